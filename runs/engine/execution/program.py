"""Recording a Burr application that runs in the user's own program (``runs.recording``).

The same recorder as a run Rewind executes (``StepRecorder``: state row, Node row and Edge
in one transaction; calls captured by ``StepCalls``), driven by the user's ``app.run``. The
Run row is made at the first step; each execute call (``run``, ``step``, ``iterate``…) is
one turn, its runtime inputs and the action it halted after kept on the run, so a fork
re-executes the remaining turns the way the program ran them.

The step's path does no database work: what a step did is observed there (its state
serialised, its calls' answers kept) and handed to the process's writer
(``runs.engine.execution.writer``), which stores the answers as cache entries, then the
step, many steps to a transaction; the end of every execute call waits until all of it is
committed. With ``sync=True`` every piece is committed before the hook returns: a step is
in the database before the next one begins. With ``wait=False`` the end of an execute call
does not wait: it is handed over ``due``, so the writer commits the call's steps as soon as it
gets to them rather than after ``LINGER_SECONDS`` (and at exit); a ``kill -9`` can lose a call
that had returned in the time that transaction takes.

A run reads ``completed`` (or ``failed``) only as its last turn left it: the first step of the
next turn sets it ``running`` again, in the same batch as that step or one before it, so a
crash in that turn leaves it ``running`` — marked ``interrupted`` by the lease — and never
shows a finished run holding part of a turn.
"""

from __future__ import annotations

import logging
import sys
import threading
import weakref
from functools import partial
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
from django.db import transaction
from django.utils import timezone

from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.state import UnstorableValue, stored_state
from runs.engine.calls.capture import StepCalls, store_answers
from runs.engine.execution import writer
from runs.engine.execution.actions import RunContext, StepRecord
from runs.engine.execution.application import make_context
from runs.engine.execution.persister import PARTITION_KEY, DjangoPersister
from runs.engine.execution.recorder import StepRecorder, failure_message
from runs.models import BurrState, Run
from runs.models.sql import insert, update_where

logger = logging.getLogger("rewind.recording")

_recorders: weakref.WeakSet[ProgramRecorder] = weakref.WeakSet()


class ProgramRecorder(
    PostApplicationCreateHook,
    PreApplicationExecuteCallHook,
    PreRunStepHook,
    PostRunStepHook,
    PostApplicationExecuteCallHook,
):
    """Sync hooks: Burr calls them in the task or thread that runs the steps, also in an async
    app, so the capture context they enter is the one the actions see. Database work is the
    writer's, in its own thread (the ORM may not run in an event loop, nor slow the steps).

    A step is handed over when the next hook arrives, with the state that hook is handed: Burr
    (0.42, 0.43) hands ``post_run_step`` the state from *before* a sync action run in an async
    app, while the next step's ``pre_run_step`` (or the end of the call) sees the state after
    it. Burr hands ``post_run_execute_call`` no exception, and ``post_run_step`` none for a
    ``KeyboardInterrupt``: what is propagating through them (``sys.exc_info``, when it is not
    what was already being handled as the call or step began) is taken instead."""

    def __init__(self, pipeline: str, *, sync: bool = False, wait: bool = True) -> None:
        if sync and not wait:
            raise ValueError("sync=True commits every step as it ends: it cannot be wait=False")
        get_pipeline(pipeline)  # an unregistered name is an error now, not after the run
        self.pipeline = pipeline
        self.sync = sync
        self.wait = wait
        self.writer = writer.shared()
        # Why recording stopped: Rewind never breaks the program it observes. Whatever goes
        # wrong while recording (a value no serde can store, a database error) marks the run
        # failed with the step and the reason, is logged once, and the program goes on.
        self.broken: str | None = None
        self.stopped = False  # the writer's: nothing more of this run is written
        self._stopping = threading.Lock()
        self.initial: dict[str, Any] = {}
        self.recorder: StepRecorder | None = None
        self.run: Run | None = None  # made by the writer's first piece of this run
        self.turn = -1
        self.turn_inputs: dict[str, Any] = {}
        self.turn_open = False
        self.reopen = False  # a turn ended: the next one's first step sets the run running
        self.last_action = ""
        self.pending: tuple[int, Action, dict | None, BaseException | None] | None = None
        self._outer: dict[str, BaseException | None] = {"call": None, "step": None}
        self._writing = ""  # the step the writer is writing (named if it fails)
        self._waiting: list[tuple] = []  # steps handed over, written at the batch's end
        _recorders.add(self)
        writer.before_exit(_end_open_turns)

    def post_application_create(self, *, state: State, **future: Any) -> None:
        try:
            self.initial = stored_state(state)
        except UnstorableValue as exc:  # never the user's program's problem: noted, it goes on
            logger.warning("rewind: the initial state cannot be recorded: %s", exc)
            self.initial = {}

    def pre_run_execute_call(self, **future: Any) -> None:
        self.turn += 1
        self.turn_inputs = {}
        self.turn_open = True
        self._outer["call"] = sys.exc_info()[1]

    def pre_run_step(self, *, action: Action, inputs: dict, state: State, **kwargs: Any) -> None:
        self._guarded(self._pre_run_step, action, inputs, state, kwargs)

    def _pre_run_step(self, action: Action, inputs: dict, state: State, kwargs: dict) -> None:
        self._flush(state)
        if self.recorder is None:
            self._start()
        elif self.reopen:
            self.reopen = False
            self._submit(partial(self._reopen_run, timezone.now()))
        self.recorder.ctx.turn = max(self.turn, 0)
        self.turn_inputs.update({k: v for k, v in inputs.items() if not k.startswith("__")})
        self._outer["step"] = sys.exc_info()[1]
        # ``prepare``, not ``pre_run_step``: the held steps are the writer's to write.
        self.recorder.prepare(action=action, inputs=inputs, state=state, **kwargs)
        if self.recorder.calls is not None:
            self.recorder.calls.deferred = True  # the writer stores the answers, with the step

    def post_run_step(
        self,
        *,
        sequence_id: int,
        action: Action,
        result: dict | None = None,
        exception: Exception | None = None,
        **future: Any,
    ) -> None:
        self.pending = (sequence_id, action, result, exception or self._raised("step"))
        self.last_action = action.name

    def post_run_execute_call(
        self, *, state: State | None = None, exception: Exception | None = None, **future: Any
    ) -> None:
        exception = exception or self._raised("call")
        self._guarded(self._post_run_execute_call, state, exception)
        self.turn_open = False
        if self.recorder is not None and self.wait:
            self.writer.flush()  # the call returns once all of it is committed

    def _post_run_execute_call(self, state: State | None, exception: BaseException | None) -> None:
        if state is not None:
            self._flush(state)
        if self.recorder is not None:
            error = failure_message(exception, self.recorder.ctx.secrets) if exception else ""
            self._end_turn(exception is not None, error)

    def _raised(self, scope: str) -> BaseException | None:
        exc = sys.exc_info()[1]
        return exc if exc is not None and exc is not self._outer[scope] else None

    # -- when recording stops -----------------------------------------------------------------

    def _guarded(self, work: Any, *args: Any) -> None:
        """Run a piece of recording; if it fails, stop recording — the program goes on."""
        if self.broken is not None:
            self._leave_capture()  # the writer may have stopped it since the step began
            return
        try:
            work(*args)
        except Exception as exc:  # noqa: BLE001 — whatever it is, it is Rewind's, not the app's
            self._give_up(exc)

    def _leave_capture(self) -> None:
        if self.recorder is not None and self.recorder.calls is not None:
            self.recorder.calls.__exit__()  # the program's calls go out uncaptured from here
            self.recorder.calls = None

    def _give_up(self, exc: BaseException) -> None:
        step = self.recorder.calls.action if self.recorder and self.recorder.calls else ""
        self._leave_capture()
        if self._stop(exc, step) and self.recorder is not None:
            self._submit(self._mark_failed)  # after the steps handed over before

    def _stop(self, exc: BaseException, step: str) -> bool:
        """Note why recording stopped (logged once); False when it had already stopped."""
        reason = failure_message(exc, self.recorder.ctx.secrets if self.recorder else ())
        with self._stopping:
            if self.broken is not None:
                return False
            self.broken = f"{step}: {reason}" if step and not reason.startswith(step) else reason
        logger.warning(
            "rewind: recording of this run stopped (%s); the program goes on", self.broken
        )
        return True

    def failed(self, exc: BaseException) -> None:
        """The writer could not write a piece of this run: nothing more of it is written."""
        self.stopped = True
        self._stop(exc, self._writing)
        self._mark_failed()

    def _mark_failed(self) -> None:
        from runs.engine.execution.runner import finish_run

        self.stopped = True
        if self.run is None:
            return
        try:  # the steps held before the failure are the run's all the same
            with transaction.atomic():
                self._write_held()
        except Exception:  # noqa: BLE001 — the database itself may be what failed
            logger.warning("rewind: run %s: the steps held were not written", self.run.pk)
        try:
            with transaction.atomic():
                finish_run(self.run, Run.Status.FAILED, error=self.broken or "")
        except Exception:  # noqa: BLE001 — the database itself may be what failed
            logger.warning("rewind: run %s could not be marked failed", self.run.pk)

    # -- the step's path: what to write ---------------------------------------------------------

    def _submit(self, work: Any, *, due: bool = False) -> None:
        self.writer.submit(self, work, due=due)
        if self.sync:
            self.writer.flush()

    def _start(self) -> None:
        # The program's own client made its calls: Rewind's provider settings play no part.
        snapshot = {"preset": "app", "model": "", "temperature": None, "simulator": False}
        ctx: RunContext = make_context(
            run_id=0,  # the run's id once the writer made its row
            pipeline=get_pipeline(self.pipeline),
            provider=snapshot,
            overrides={},
            live=True,
            prior=[],
            pins={},
            own_calls=True,  # no query: this may be an event loop's thread
        )
        self.recorder = StepRecorder(ctx, DjangoPersister())
        self.recorder.hold_all = True  # written at the end of each of the writer's batches
        self._submit(partial(self._create_run, snapshot, self.initial, timezone.now()))

    def _flush(self, state: State) -> None:
        """Hand over the step that ran last, now that ``state`` is the state it left."""
        if self.pending is None or self.recorder is None:
            return
        sequence_id, action, result, exception = self.pending
        self.pending = None
        recorder = self.recorder
        state = state.update(**{SEQUENCE_ID: sequence_id, PRIOR_STEP: action.name})
        calls = recorder.calls
        answers = calls.take_pending() if calls is not None else []  # stored by the writer
        # A broken answer or an unstorable state fails the recorded step, never the program.
        state, record, exception = recorder.conclude(action, state, result, exception)
        made = list(calls.calls) if calls is not None else []
        unstorable = recorder.unstorable
        if unstorable is not None:  # the row keeps the state the step started from
            state = state.update(**{SEQUENCE_ID: sequence_id, PRIOR_STEP: action.name})
        # Serialised now: what the program does to its values next is not this step's.
        row = recorder.state_row(PARTITION_KEY, "", sequence_id, action.name, state, exception)
        self._submit(partial(self._write_step, calls, answers, made, row, record, exception))
        if unstorable is not None:  # the state cannot be recorded any further: stop here
            raise UnstorableValue(f"{action.name}: {unstorable}")

    def _end_turn(self, failed: bool, error: str) -> None:
        ctx = self.recorder.ctx
        warnings, ctx.warnings = ctx.warnings, []  # each turn adds its own
        self.turn_open = False
        self.reopen = True
        # Not waited for (wait=False): written at once, not after the writer's linger.
        self._submit(
            partial(self._finish_turn, dict(self.turn_inputs), self.last_action, failed, error,
                    warnings),
            due=not self.wait,
        )  # fmt: skip

    # -- the writer's side ---------------------------------------------------------------------

    def _create_run(self, snapshot: dict, initial: dict, started: Any) -> None:
        with transaction.atomic():
            run = insert(
                Run(
                    pipeline=self.pipeline,
                    inputs=initial,
                    provider=snapshot,
                    mode=Run.Mode.LIVE,  # the program's calls go to its provider, as written
                    status=Run.Status.RUNNING,
                    started_at=started,
                    heartbeat_at=started,
                )
            )
            Run.objects.make_root(run)
        self.run = run
        self.recorder.ctx.run_id = run.pk

    def _reopen_run(self, started: Any) -> None:
        """A new turn of a run that ended one: ``running`` again, beating from now (the lease
        then tells a crash in this turn), until the turn's end finishes it once more."""
        update_where(
            Run,
            {"status": Run.Status.RUNNING, "finished_at": None, "heartbeat_at": started},
            {"id": self.run.pk},
            unless={"status": Run.Status.CANCELLED},
        )

    def _write_step(
        self,
        calls: StepCalls | None,
        answers: list,
        made: list,
        row: BurrState,
        record: StepRecord,
        exception: BaseException | None,
    ) -> None:
        """A step handed over: written with the batch's others (``_write_held``), its cache
        entries with theirs."""
        self._waiting.append((calls, answers, made, row, record, exception))

    @property
    def holding(self) -> bool:
        return bool(self._waiting) or (self.recorder is not None and bool(self.recorder.held))

    def batch_end(self) -> None:
        """The writer's batch ends: the steps its pieces held, together (``hold_all``)."""
        self._write_held()

    def _write_held(self) -> None:
        waiting, self._waiting = self._waiting, []
        if waiting:
            # The steps' cache entries first (their rows name them): each kind in one INSERT.
            self._writing = "the cache entries of the steps held to be written together"
            store_answers([(calls, answers) for calls, answers, *_ in waiting if answers])
            for _, answers, made, row, record, exception in waiting:
                self._writing = row.position
                if answers:
                    record.cache_entries = [c.entry for c in made if c.entry]
                    for data, call in zip(record.calls, made, strict=False):
                        data["entry"] = call.entry
                row.app_id = str(self.run.pk)
                self.recorder.write_row(row, record, exception)
        if self.recorder is not None and self.recorder.held:
            self._writing = "the steps held to be written together"
            self.recorder.write_held(savepoint=False)  # in the writer's savepoint
        self._writing = ""

    def _finish_turn(
        self, inputs: dict, last_action: str, failed: bool, error: str, warnings: list[str]
    ) -> None:
        from runs.engine.execution.runner import finish_run

        run = self.run  # this writer alone changes its turns and warnings: no read back
        with transaction.atomic():
            self._write_held()  # the turn's steps before its end
            run.turns = [*run.turns, {"inputs": inputs}]
            after = sorted({*run.halt.get("after", []), last_action} - {""})
            run.halt = {"after": after, "before": []}
            update_where(Run, {"turns": run.turns, "halt": run.halt}, {"id": run.pk})
            finish_run(
                run,
                Run.Status.FAILED if failed else Run.Status.COMPLETED,
                error=error,
                warnings=warnings,
                hashes=list(self.recorder.trajectory),  # every step of the run, in order
            )
        if warnings:
            run.warnings = [*run.warnings, *warnings]


def _end_open_turns() -> None:
    """At exit: a call still in progress (the program left it through an exception that
    escaped a hook, a signal) ends its turn, failed."""
    for recorder in list(_recorders):
        if recorder.turn_open and recorder.recorder is not None and recorder.broken is None:
            recorder._guarded(recorder._end_turn, True, "the program exited during this call")
