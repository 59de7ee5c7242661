"""Writes each finished step: Burr's state row, the Node row and the Edge, in one transaction."""

from __future__ import annotations

from typing import Any

from burr.core import State
from burr.core.action import Action
from burr.lifecycle import PostRunStepHook, PreRunStepHook
from django.db import transaction
from django.utils import timezone

from runs.engine.actions import RunContext, StepRecord
from runs.engine.errors import NodeFailure, storable_text
from runs.engine.persister import DjangoPersister
from runs.models import Edge, Node, Run


def failure_message(exception: BaseException) -> str:
    if isinstance(exception, NodeFailure):
        return str(exception)
    return f"{type(exception).__name__}: {exception}"


class StepRecorder(PreRunStepHook, PostRunStepHook):
    def __init__(self, ctx: RunContext, persister: DjangoPersister) -> None:
        self.ctx = ctx
        self.persister = persister

    def pre_run_step(self, *, sequence_id: int, **future_kwargs: Any) -> None:
        # Overrides apply to one step, found by its sequence id.
        self.ctx.sequence_id = sequence_id

    def post_run_step(
        self,
        *,
        app_id: str,
        partition_key: str,
        sequence_id: int,
        state: State,
        action: Action,
        result: dict[str, Any] | None,
        exception: Exception | None,
        **future_kwargs: Any,
    ) -> None:
        if exception is None and result is not None:
            record: StepRecord = result["telemetry"]
        else:
            # The action raised before returning: use what it had recorded so far.
            record = self.ctx.current or StepRecord(kind=self.ctx.pipeline.node(action.name).kind)
        failed = exception is not None
        if failed:
            record.output, record.output_sha256 = None, ""
            if isinstance(exception, NodeFailure) and exception.raw and not record.raw_output:
                record.raw_output = exception.raw
        record.raw_output = storable_text(record.raw_output)
        with transaction.atomic():
            self.persister.save(
                partition_key,
                app_id,
                sequence_id,
                action.name,
                state,
                "failed" if failed else "completed",
            )
            node = Node.objects.create(
                run_id=self.ctx.run_id,
                sequence_id=sequence_id,
                name=action.name,
                status=Node.Status.FAILED if failed else Node.Status.COMPLETED,
                src_run_id=self.ctx.run_id,
                src_sequence_id=sequence_id,
                error=storable_text(failure_message(exception)) if failed else "",
                **record.node_fields(),
            )
            if self.ctx.previous_node is not None:
                Edge.objects.create(
                    run_id=self.ctx.run_id,
                    sequence_id=sequence_id,
                    from_node=self.ctx.previous_node,
                    to_node=action.name,
                    condition=self.ctx.pipeline.condition_label(
                        self.ctx.previous_node, action.name
                    ),
                )
            Run.objects.filter(pk=self.ctx.run_id).update(heartbeat_at=timezone.now())
        self.ctx.previous_node = action.name
        self.ctx.current = None
        if self.ctx.on_step is not None:
            self.ctx.on_step(node)
