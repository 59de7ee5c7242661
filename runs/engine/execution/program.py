"""Recording a Burr application that runs in the user's own program (``runs.recording``).

The same recorder as a run Rewind executes (``StepRecorder``: state row, Node row and Edge
in one transaction; calls captured by ``StepCalls``), driven by the user's ``app.run``. The
Run row is made at the first step; each execute call (``run``, ``step``, ``iterate``…) is
one turn, its runtime inputs and the action it halted after kept on the run, so a fork
re-executes the remaining turns the way the program ran them.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from burr.core import State
from burr.core.action import Action
from burr.core.application import PRIOR_STEP, SEQUENCE_ID
from burr.lifecycle import (
    PostApplicationCreateHook,
    PostApplicationExecuteCallHook,
    PostRunStepHook,
    PreApplicationExecuteCallHook,
    PreRunStepHook,
)
from django.db import close_old_connections
from django.utils import timezone

from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.state import UnstorableValue, stored_state
from runs.engine.execution.actions import RunContext
from runs.engine.execution.application import make_context
from runs.engine.execution.persister import PARTITION_KEY, DjangoPersister
from runs.engine.execution.recorder import StepRecorder, failure_message
from runs.models import Run

logger = logging.getLogger("rewind.recording")


class ProgramRecorder(
    PostApplicationCreateHook,
    PreApplicationExecuteCallHook,
    PreRunStepHook,
    PostRunStepHook,
    PostApplicationExecuteCallHook,
):
    """Sync hooks: Burr calls them in the task or thread that runs the steps, also in an async
    app, so the capture context they enter is the one the actions see. Database work runs in
    a thread of its own when an event loop is running here (the ORM may not run in one).

    A step is written when the next hook arrives, with the state that hook is handed: Burr
    (0.42, 0.43) hands ``post_run_step`` the state from *before* a sync action run in an async app,
    while the next step's ``pre_run_step`` (or the end of the call) sees the state after it."""

    def __init__(self, pipeline: str) -> None:
        get_pipeline(pipeline)  # an unregistered name is an error now, not after the run
        self.pipeline = pipeline
        # Why recording stopped: Rewind never breaks the program it observes. Whatever goes
        # wrong while recording (a value no serde can store, a database error) marks the run
        # failed with the step and the reason, is logged once, and the program goes on.
        self.broken: str | None = None
        self.initial: dict[str, Any] = {}
        self.run: Run | None = None
        self.recorder: StepRecorder | None = None
        self.turn = -1
        self.turn_inputs: dict[str, Any] = {}
        self.last_action = ""
        self.pending: tuple[int, Action, dict | None, Exception | None] | None = None
        self._db: ThreadPoolExecutor | None = None

    def post_application_create(self, *, state: State, **future: Any) -> None:
        try:
            self.initial = stored_state(state)
        except UnstorableValue as exc:  # never the user's program's problem: noted, it goes on
            logger.warning("rewind: the initial state cannot be recorded: %s", exc)
            self.initial = {}

    def pre_run_execute_call(self, **future: Any) -> None:
        self.turn += 1
        self.turn_inputs = {}

    def pre_run_step(self, *, action: Action, inputs: dict, state: State, **kwargs: Any) -> None:
        self._guarded(self._pre_run_step, action, inputs, state, kwargs)

    def _pre_run_step(self, action: Action, inputs: dict, state: State, kwargs: dict) -> None:
        self._flush(state)
        if self.recorder is None:
            self.recorder = self._database(self._start)
        self.recorder.ctx.turn = max(self.turn, 0)
        self.turn_inputs.update({k: v for k, v in inputs.items() if not k.startswith("__")})
        self.recorder.pre_run_step(action=action, inputs=inputs, state=state, **kwargs)

    def _guarded(self, work: Any, *args: Any) -> None:
        """Run a piece of recording; if it fails, stop recording — the program goes on."""
        if self.broken is not None:
            return
        try:
            work(*args)
        except Exception as exc:  # noqa: BLE001 — whatever it is, it is Rewind's, not the app's
            self._give_up(exc)

    def _give_up(self, exc: BaseException) -> None:
        step = self.recorder.calls.action if self.recorder and self.recorder.calls else ""
        if self.recorder is not None and self.recorder.calls is not None:
            self.recorder.calls.__exit__()  # the program's calls go out uncaptured from here
            self.recorder.calls = None
        reason = failure_message(exc, self.recorder.ctx.secrets if self.recorder else ())
        self.broken = f"{step}: {reason}" if step and not reason.startswith(step) else reason
        logger.warning(
            "rewind: recording of this run stopped (%s); the program goes on", self.broken
        )
        if self.run is not None:
            from runs.engine.execution.runner import finish_run

            run, error = self.run, self.broken
            try:
                self._database(lambda: finish_run(run, Run.Status.FAILED, error=error))
            except Exception:  # noqa: BLE001 — the database itself may be what failed
                logger.warning("rewind: run %s could not be marked failed", run.pk)

    def post_run_step(
        self,
        *,
        sequence_id: int,
        action: Action,
        result: dict | None = None,
        exception: Exception | None = None,
        **future: Any,
    ) -> None:
        self.pending = (sequence_id, action, result, exception)
        self.last_action = action.name

    def post_run_execute_call(
        self, *, state: State | None = None, exception: Exception | None = None, **future: Any
    ) -> None:
        self._guarded(self._post_run_execute_call, state, exception)

    def _post_run_execute_call(self, state: State | None, exception: Exception | None) -> None:
        if state is not None:
            self._flush(state)
        if self.run is not None and self.broken is None:
            self._database(self._end_turn, exception)

    # -- writing ----------------------------------------------------------------------------

    def _flush(self, state: State) -> None:
        """Write the step that ran last, now that ``state`` is the state it left."""
        if self.pending is None or self.recorder is None:
            return
        sequence_id, action, result, exception = self.pending
        self.pending = None
        state = state.update(**{SEQUENCE_ID: sequence_id, PRIOR_STEP: action.name})
        calls = self.recorder.calls
        if calls is not None and calls.pending:  # async calls' answers, where the ORM may run
            self._database(calls.store_pending)
        # A broken answer or an unstorable state fails the recorded step, never the program.
        state, record, exception = self.recorder.conclude(action, state, result, exception)
        unstorable = self.recorder.unstorable
        if unstorable is not None:  # the row keeps the state the step started from
            state = state.update(**{SEQUENCE_ID: sequence_id, PRIOR_STEP: action.name})
        self._database(
            self.recorder.write,
            PARTITION_KEY,
            str(self.recorder.ctx.run_id),
            sequence_id,
            action.name,
            state,
            record,
            exception,
        )
        if unstorable is not None:  # the state cannot be recorded any further: stop here
            raise UnstorableValue(f"{action.name}: {unstorable}")

    def _database(self, work: Any, *args: Any) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            close_old_connections()
            return work(*args)
        if self._db is None:
            self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rewind-recorder")
        return self._db.submit(work, *args).result()

    def _end_turn(self, exception: Exception | None) -> None:
        from runs.engine.execution.runner import finish_run

        assert self.run is not None
        turns = list(self.run.turns) + [{"inputs": self.turn_inputs}]
        halt_after = sorted({*self.run.halt.get("after", []), self.last_action} - {""})
        Run.objects.filter(pk=self.run.pk).update(
            turns=turns, halt={"after": halt_after, "before": []}
        )
        self.run.refresh_from_db()
        finish_run(
            self.run,
            Run.Status.FAILED if exception is not None else Run.Status.COMPLETED,
            error=failure_message(exception, self.recorder.ctx.secrets) if exception else "",
            warnings=self.recorder.ctx.warnings,
        )
        self.recorder.ctx.warnings = []  # each turn adds its own

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
