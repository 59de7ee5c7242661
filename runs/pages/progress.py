"""What a run that has not finished is doing: the step being executed and the steps to come.

A declared linear pipeline knows what is still to come: every step it has not run yet, in
order ("waiting"). A graph that branches or loops does not — Burr picks the next action after
each step from the conditions on the transitions out of it — so a running run of such a graph
names the one step it is executing, as Burr chose it: the transitions out of the last recorded
step tried in order on the state that step left (``runs.engine.apps.routes.next_step``), and
lists no branch as waiting. A step's row is written when it completes and Burr asks for the
next action right after, so "the step after the last recorded one" is the step running.

At most one query, and only when it decides something: the state the last step left, read when
a condition on the way out of that step needs it (a default transition, a fork about to
re-execute its fork step and a fresh run's entrypoint need none). The polling endpoints' "no
change" answers never get here.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runs.engine.apps import routes
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.state import restored_state
from runs.engine.errors import PipelineError
from runs.models import BurrState, Node, Run

logger = logging.getLogger("rewind.progress")


@dataclass(frozen=True)
class Progress:
    running: str | None = None  # the step being executed now, when it can be told
    waiting: tuple[str, ...] = ()  # a linear pipeline's steps still to come, in order
    linear: bool = True  # what is to come is known in advance


FINISHED = Progress()


def progress(run: Run, nodes: Sequence[Any]) -> Progress:
    """``nodes`` are the run's steps in order (``Node`` or ``pages.runs.Step``)."""
    if run.is_finished:
        return FINISHED
    try:
        pipeline = get_pipeline(run.pipeline)
    except PipelineError:
        return FINISHED  # nothing to predict without the pipeline
    if routes.is_linear(pipeline):
        done = {n.name for n in nodes}
        return Progress(waiting=tuple(n for n in routes.names(pipeline) if n not in done))
    if run.status != Run.Status.RUNNING:
        return Progress(linear=False)
    return Progress(running=running_step(run, pipeline, nodes), linear=False)


def running_step(run: Run, pipeline: Any, nodes: Sequence[Any]) -> str | None:
    """The step after the last recorded one, as Burr chooses it; None when it cannot be told
    (the last step failed, its state is gone, a condition raised on it)."""
    last = nodes[-1] if nodes else None
    if run.fork_sequence_id is not None and (
        last is None or last.sequence_id < run.fork_sequence_id
    ):
        return run.fork_node  # a fork re-executes its fork step right after what it inherited
    if last is not None and last.status == Node.Status.FAILED:
        return None
    try:
        return routes.next_step(pipeline, last.name if last else None, lambda: _state_after(last))
    except routes.Undecided as exc:
        logger.debug("run %s: the step running after %s cannot be told: %s", run.pk, last, exc)
        return None


def _state_after(step: Any) -> Mapping[str, Any] | None:
    """The state ``step`` left: the state row of the run that executed it (an inherited step's
    is its source's)."""
    body = (
        BurrState.objects.filter(app_id=str(step.src_run_id), sequence_id=step.src_sequence_id)
        .order_by("-id")
        .values_list("state_blob__body", flat=True)
        .first()
    )
    if body is None:
        return None
    try:
        return restored_state(json.loads(body))
    except Exception:  # noqa: BLE001 — a value whose type cannot be restored here
        return None
