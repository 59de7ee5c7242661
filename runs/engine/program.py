"""Recording a Burr application that runs in the user's own program (``runs.recording``).

The same recorder as a run Rewind executes (``StepRecorder``: state row, Node row and Edge
in one transaction; calls captured by ``StepCalls``), driven by the user's ``app.run``. The
Run row is made at the first step; each execute call (``run``, ``step``, ``iterate``…) is
one turn, its runtime inputs and the action it halted after kept on the run, so a fork
re-executes the remaining turns the way the program ran them.
"""

from __future__ import annotations

from typing import Any

from burr.core import State
from burr.core.action import Action
from burr.lifecycle import (
    PostApplicationCreateHook,
    PostApplicationExecuteCallHook,
    PostRunStepHook,
    PreApplicationExecuteCallHook,
    PreRunStepHook,
)
from django.db import close_old_connections
from django.utils import timezone

from runs.engine.actions import RunContext
from runs.engine.application import make_context
from runs.engine.hashing import semantic_state
from runs.engine.persister import PARTITION_KEY, DjangoPersister
from runs.engine.pipeline import get_pipeline
from runs.engine.recorder import StepRecorder
from runs.models import Run


class ProgramRecorder(
    PostApplicationCreateHook,
    PreApplicationExecuteCallHook,
    PreRunStepHook,
    PostRunStepHook,
    PostApplicationExecuteCallHook,
):
    def __init__(self, pipeline: str) -> None:
        get_pipeline(pipeline)  # an unregistered name is an error now, not after the run
        self.pipeline = pipeline
        self.initial: dict[str, Any] = {}
        self.run: Run | None = None
        self.recorder: StepRecorder | None = None
        self.turn = -1
        self.turn_inputs: dict[str, Any] = {}
        self.last_action = ""

    def post_application_create(self, *, state: State, **future: Any) -> None:
        self.initial = semantic_state(state.get_all())

    def pre_run_execute_call(self, **future: Any) -> None:
        self.turn += 1
        self.turn_inputs = {}

    def pre_run_step(self, *, action: Action, inputs: dict, **kwargs: Any) -> None:
        close_old_connections()
        if self.recorder is None:
            self.recorder = self._start()
        self.recorder.ctx.turn = max(self.turn, 0)
        self.turn_inputs.update({k: v for k, v in inputs.items() if not k.startswith("__")})
        self.recorder.pre_run_step(action=action, inputs=inputs, **kwargs)

    def post_run_step(
        self, *, sequence_id: int, state: State, action: Action, **kwargs: Any
    ) -> None:
        assert self.recorder is not None
        kwargs.update(app_id=str(self.recorder.ctx.run_id), partition_key=PARTITION_KEY)
        self.recorder.post_run_step(sequence_id=sequence_id, state=state, action=action, **kwargs)
        self.last_action = action.name

    def post_run_execute_call(self, *, exception: Exception | None = None, **future: Any) -> None:
        from runs.engine.execution import finish_run

        if self.run is None:
            return
        turns = list(self.run.turns) + [{"inputs": self.turn_inputs}]
        halt_after = sorted({*self.run.halt.get("after", []), self.last_action} - {""})
        Run.objects.filter(pk=self.run.pk).update(
            turns=turns, halt={"after": halt_after, "before": []}
        )
        self.run.refresh_from_db()
        finish_run(
            self.run,
            Run.Status.FAILED if exception is not None else Run.Status.COMPLETED,
            error=f"{type(exception).__name__}: {exception}" if exception is not None else "",
        )

    def _start(self) -> StepRecorder:
        # The program's own client made its calls: Rewind's provider settings play no part.
        snapshot = {"preset": "app", "model": "", "temperature": None, "simulator": False}
        run = Run.objects.create(
            pipeline=self.pipeline,
            inputs=self.initial,
            provider=snapshot,
            mode=Run.Mode.LIVE,  # the program's calls go to its provider, as it wrote them
            status=Run.Status.RUNNING,
            started_at=timezone.now(),
            heartbeat_at=timezone.now(),
        )
        Run.objects.filter(pk=run.pk).update(root=run)
        self.run = run
        ctx: RunContext = make_context(
            run_id=run.pk,
            pipeline=get_pipeline(self.pipeline),
            provider=snapshot,
            overrides={},
            live=True,
            prior=[],
            pins={},
        )
        return StepRecorder(ctx, DjangoPersister())
