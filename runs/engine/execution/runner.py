"""Driving a run's Burr application step by step: turns, halts and the overrides that act
between steps (DESIGN.md, "Any Burr app, unchanged"; "Overrides").

Rewind steps the application itself rather than calling ``app.run`` so that, before a step,
it can apply what a fork changes there: ``state.KEY`` (replaced in state before the step
runs), ``input.NAME`` (the runtime input the step receives) and ``writes.KEY`` (the step does
not execute; its writes are the source's with KEY replaced). Halting follows ``app.run``: a
turn ends after an action in ``halt_after`` or before one in ``halt_before``, and the next
turn's inputs are fed from there — a graph that loops back to its start runs one turn per halt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from burr.core import Application, State
from burr.core.application import PRIOR_STEP, SEQUENCE_ID
from django.conf import settings
from django.db import transaction

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import Pipeline
from runs.engine.apps.state import restored_state, stored_state
from runs.engine.apps.versions import check_version
from runs.engine.calls import cache
from runs.engine.calls.policy import CallPolicy
from runs.engine.errors import NodeFailure, RewindError
from runs.engine.execution.actions import RunContext, StepRecord
from runs.engine.execution.application import build_application, make_context, source_pins
from runs.engine.execution.leases import Heartbeat
from runs.engine.execution.persister import PARTITION_KEY, DjangoPersister
from runs.engine.execution.recorder import (
    AsyncStepRecorder,
    StepRecorder,
    failure_message,
    step_inputs,
)
from runs.engine.execution.watch import RunStopped, run_steps, step_timeout
from runs.engine.forking.overrides import effective_overrides
from runs.engine.telemetry import export_run
from runs.lib.hashing import content_sha256, trajectory_sha256
from runs.models import BurrState, Node, Run


class Turns:
    """The turns of a run and where the next step stands among them."""

    def __init__(self, run: Run, start: int) -> None:
        self.run = run
        self.turns = run.turns or [{"inputs": {}}]
        self.after = set((run.halt or {}).get("after", []))
        self.before = set((run.halt or {}).get("before", []))
        # An imported run whose last turn no halt ends (a loop its program stepped itself):
        # its forks stop after as many steps as it ran (``runs.engine.imports.writing``).
        self.steps = (run.halt or {}).get("steps")
        self.index = start
        self.budget = settings.REWIND_MAX_STEPS
        self.next_action: Any = None
        self.entrypoint: str | None = None  # the app's own, while a step is pinned (``pin``)

    def running(self, app: Application) -> bool:
        """Is there a next step? It is kept for ``prepare_step`` (evaluating an app's
        conditions is its users' code: once per question)."""
        more = self.index < len(self.turns)
        if more and isinstance(self.steps, int):
            more = next_sequence_id(app) < self.steps
        self.next_action = app.get_next_action() if more else None
        return self.next_action is not None

    def pin(self, app: Application, action: Any) -> None:
        """Make ``action`` the step Burr runs next whatever the state says, the way Burr
        resumes at a node (the entrypoint, no prior step): ``app.step`` chooses its action
        again from the state it is handed, so a ``state.*`` override of a key a condition
        reads would otherwise change which step runs instead of the route after it."""
        self.entrypoint = app.entrypoint
        app.entrypoint = action.name
        app.update_state(app.state.wipe(delete=[PRIOR_STEP]))

    def advance(self, app: Application, action_name: str) -> None:
        """After a step: count it against ``REWIND_MAX_STEPS``; end the turn on a halt."""
        if self.entrypoint is not None:  # the step ran (Burr set its prior step): unpin
            app.entrypoint, self.entrypoint = self.entrypoint, None
        self.budget -= 1
        if self.budget <= 0:
            raise NodeFailure(
                f"run {self.run.pk} took {settings.REWIND_MAX_STEPS} steps without halting "
                "(REWIND_MAX_STEPS); a graph that loops needs --halt-after or --halt-before"
            )
        if self.ends_after(app, action_name):
            self.index += 1

    def inputs(self) -> dict[str, Any]:
        return dict(self.turns[self.index].get("inputs") or {})

    def ends_after(self, app: Application, action_name: str) -> bool:
        """Does the turn halt after ``action_name`` (as ``app.run(halt_after/before)``)?"""
        if action_name in self.after:
            return True
        if not self.before:
            return False
        following = app.get_next_action()
        return following is not None and following.name in self.before


def start_turn(run: Run, prior: list[Node], app: Application) -> int:
    """The turn the first step to execute belongs to: the last recorded step's, or the next
    one when that step ended its turn."""
    if not prior:
        return 0
    last = prior[-1]
    turn = int((last.inputs or {}).get("turn", 0)) if isinstance(last.inputs, dict) else 0
    halts = Turns(run, turn)
    return turn + 1 if halts.ends_after(app, last.name) else turn


def next_sequence_id(app: Application) -> int:
    return 0 if app.sequence_id is None else app.sequence_id + 1


def prepare_step(
    app: Application, ctx: RunContext, turns: Turns
) -> tuple[Any, int, dict, dict | None]:
    """Before the next step: its action, sequence id, runtime inputs and ``writes.*``
    overrides, with this step's ``state.*`` overrides applied to the state and ``input.*``
    ones to the inputs."""
    ctx.turn = turns.index
    action = turns.next_action
    seq = next_sequence_id(app)
    overrides = ctx.overrides.get(seq, {})
    visit = (action.name, ctx.visits[action.name])
    ctx.visits[action.name] += 1
    # What the same visit of this action received in the source; a step the source never
    # ran takes its turn's inputs.
    inputs = dict(ctx.source_inputs.get(visit, turns.inputs()))
    state_changes = {}
    for name, override in overrides.items():
        if override.node != action.name:
            continue
        if name.startswith("input."):
            inputs[name.removeprefix("input.")] = override.value
        elif name.startswith("state."):
            state_changes[name.removeprefix("state.")] = override.value
    if state_changes:
        turns.pin(app, action)  # the override changes what the step reads, not which step
        app.update_state(app.state.update(**state_changes))
    required, optional = action.optional_and_required_inputs
    accepted = {k: v for k, v in inputs.items() if k in required or k in optional}
    return action, seq, accepted, writes_override(ctx, seq, action.name)


def writes_override(ctx: RunContext, seq: int, action_name: str) -> dict[str, Any] | None:
    """The ``writes.*`` overrides of this step, or None: then the step executes."""
    found = {
        name.removeprefix("writes."): o.value
        for name, o in ctx.overrides.get(seq, {}).items()
        if name.startswith("writes.") and o.node == action_name
    }
    return found or None


def skip_step(
    app: Application,
    ctx: RunContext,
    recorder: StepRecorder,
    action: Any,
    seq: int,
    writes: dict[str, Any],
) -> None:
    """Run a step whose writes a fork replaced: it does not execute. The state takes the
    source step's writes with the overridden keys replaced, Burr's position moves past it, and
    the step is recorded with ``cache_source`` "override"."""
    source = ctx.source_steps.get(seq)
    if source is None or source.name != action.name:
        raise NodeFailure(f"cannot override the writes of {action.name}: no source step {seq}")
    output = {**(source.output or {}), **writes}
    before = stored_state(app.state)
    state: State = app.state.update(**restored_state(output)).update(
        **{PRIOR_STEP: action.name, SEQUENCE_ID: seq}
    )
    app.update_state(state)
    record = StepRecord(
        kind=source.kind,
        inputs=step_inputs(ctx.turn, {}, action, before),
        output=output,
        output_sha256=content_sha256(output),
        cache_source="override",
    )
    recorder.ctx.sequence_id = seq
    recorder.write("", str(ctx.run_id), seq, action.name, state, record)


def drive(app: Application, run: Run, ctx: RunContext, recorder: StepRecorder, start: int) -> None:
    """Step the application through the run's turns (sync actions)."""
    turns = Turns(run, start)
    while turns.running(app):
        action, seq, inputs, writes = prepare_step(app, ctx, turns)
        ctx.fence.begin(seq, action.name)
        if writes is not None:
            skip_step(app, ctx, recorder, action, seq, writes)
        else:
            app.step(inputs=inputs)
        turns.advance(app, action.name)


async def adrive(
    app: Application, run: Run, ctx: RunContext, recorder: StepRecorder, start: int
) -> None:
    """The same for an app with async actions (``app.astep``)."""
    from asgiref.sync import sync_to_async

    from runs.engine.calls.capture import ensure_slot

    ensure_slot()  # in this task: the hooks, run as tasks of their own, fill it
    turns = Turns(run, start)
    while turns.running(app):
        action, seq, inputs, writes = prepare_step(app, ctx, turns)
        ctx.fence.begin(seq, action.name)
        if writes is not None:
            await sync_to_async(skip_step, thread_sensitive=True)(
                app, ctx, recorder, action, seq, writes
            )
        else:
            await app.astep(inputs=inputs)
        turns.advance(app, action.name)


# -- executing a run -------------------------------------------------------------------------

logger = logging.getLogger("rewind.runner")


@dataclass(frozen=True)
class LoadedApp:
    """An app resolved once by a caller that executes many runs of it (a regression replay):
    its registered ``name``, the ``app``, and ``checked``, the regression code version this
    process has already found it runs ("": none) — so each run neither looks the app up nor
    computes its version again."""

    name: str
    app: Pipeline | BurrApp
    checked: str = ""


def execute_run(
    run_id: int,
    *,
    on_step: Callable[[Node], None] | None = None,
    app: LoadedApp | None = None,
) -> Run:
    """Execute a queued run to the end; returns it finished (completed, failed or cancelled).

    Claims the run atomically (queued → running), so a run is never executed twice; a run
    cancelled before it started is returned as it is. The steps execute in a thread of their
    own (``watch.run_steps``): a step that outlasts the step timeout fails the run, naming
    it, and a cancel stops it — at once, whatever the step is doing.

    Steps the cache answers whole are held by the recorder and written together, at the
    latest in the transaction that finishes the run: a fully cached replay commits three
    times (its creation, this claim, its end). A step that goes live is committed, with the
    steps held before it, before the next step begins.

    The run returned is not read back: it carries the values its end wrote (its heartbeat is
    the one its claim wrote). It is read back when a cancel won the race or the run stopped.
    ``app``: the run's app as the caller resolved (and checked) it, used when it is the run's.
    """
    claimed = Run.objects.claim(run_id)
    run = Run.objects.with_parent(run_id)
    if not claimed:
        if run.status == Run.Status.CANCELLED:
            return run
        raise RewindError(f"run {run_id} is {run.status}, not queued; it was not started again")
    heartbeat = Heartbeat(run_id)
    heartbeat.start()
    ctx: RunContext | None = None
    recorder: StepRecorder | None = None
    try:
        prior, source_steps = _steps(run)
        ctx = _context(run, prior, source_steps, app)
        ctx.on_step = on_step
        recorder = StepRecorder(ctx, DjangoPersister(), hold=ctx.policy.reads_cache)
        recorder.trajectory = [step.output_sha256 for step in prior]
        hook = AsyncStepRecorder(recorder) if ctx.pipeline.is_async else recorder
        app = _application(run, ctx, hook, prior)
        if isinstance(hook, AsyncStepRecorder):
            hook.app = app
        start = start_turn(run, prior, app)
        if ctx.pipeline.is_async:
            work = partial(async_to_sync(adrive), app, run, ctx, recorder, start)
        else:
            work = partial(drive, app, run, ctx, recorder, start)
        run_steps(
            work, ctx.fence, timeout=step_timeout(run.pipeline, ctx.pipeline),
            cancelled=lambda: heartbeat.cancelled, name=f"run-{run_id}-steps",
        )  # fmt: skip
    except RunStopped as stopped:
        heartbeat.stop()
        _stopped(run, ctx, recorder, stopped)
        ended = None
    except Exception as exc:  # noqa: BLE001 — every failure ends the run as failed, loudly
        if not isinstance(exc, RewindError):
            logger.exception("run %s failed unexpectedly", run_id)
        heartbeat.stop()
        ended = _end(run, ctx, recorder, Run.Status.FAILED, exc)
    else:
        heartbeat.stop()
        ended = _end(run, ctx, recorder, Run.Status.COMPLETED)
    if ended is None:  # a cancel won the race, or the run stopped: as the database has it
        run.refresh_from_db()
    else:  # the end this run wrote is the row's last change: no read-back
        for name, value in ended.items():
            setattr(run, name, value)
    return run


def _end(
    run: Run,
    ctx: RunContext | None,
    recorder: StepRecorder | None,
    status: str,
    failure: BaseException | None = None,
) -> dict[str, Any] | None:
    """End an executed run in one transaction: the steps still held, the cache hits counted,
    its status, trajectory and artifact. A held step that cannot be written fails the run.
    The run's values written (``end_run``)."""
    warnings = ctx.warnings if ctx is not None else []
    try:
        with transaction.atomic():
            if recorder is not None:
                recorder.write_held(savepoint=False)
            _count_hits(ctx)
            if failure is not None:
                ended = end_run(run, status, error=_run_error(run, failure, ctx), warnings=warnings)
            else:
                ended = end_run(
                    run, status, artifact=ctx.artifact, warnings=warnings,
                    hashes=recorder.trajectory,
                )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 — the run must still end
        logger.exception("run %s: its end was not written", run.pk)
        if recorder is not None:
            recorder.held.clear()  # not written: a resume executes those steps again
        ended = end_run(
            run, Run.Status.FAILED, error=_run_error(run, failure or exc, ctx), warnings=warnings
        )
    export_run(run.pk)  # see finish_run
    return ended


def _stopped(run: Run, ctx: RunContext, recorder: StepRecorder | None, stopped: RunStopped) -> None:
    """The run stopped waiting for its steps: the steps held before the fence closed and the
    step in flight (failed) are written by the run itself — the abandoned step writes nothing
    more — the hits so far are counted, and a timed-out run fails naming the step; a
    cancelled run stays as its cancel left it."""
    logger.warning("run %s stopped: %s", run.pk, stopped)
    try:
        recorder.write_held(fenced=False)
    except Exception:  # noqa: BLE001 — the run must still end; the held steps are a detail
        logger.exception("run %s: the steps held before it stopped were not written", run.pk)
    if stopped.step is not None:
        message = f"cancelled while it ran ({stopped})" if stopped.cancelled else str(stopped)
        try:
            recorder.abandoned(stopped.step, message)
        except Exception:  # noqa: BLE001 — the run must still end; the step row is a detail
            logger.exception("run %s: the abandoned step %s was not written", run.pk, stopped.step)
    _count_hits(ctx)
    if not stopped.cancelled:
        finish_run(run, Run.Status.FAILED, error=str(stopped), warnings=ctx.warnings)
    else:
        export_run(run.pk)  # cancelled: as its cancel left it, exported all the same


def _count_hits(ctx: RunContext | None) -> None:
    if ctx is not None and ctx.hits:
        cache.count_hits(ctx.hits)


def _run_error(run: Run, exc: BaseException, ctx: RunContext | None) -> str:
    failed = run.nodes.filter(status=Node.Status.FAILED).order_by("-sequence_id").first()
    message = failure_message(exc, ctx.secrets if ctx is not None else ())
    return f"{failed.name}: {message}" if failed else message


def finish_run(
    run: Run,
    status: str,
    *,
    error: str = "",
    artifact: tuple[str, str] | None = None,
    warnings: list[str] | None = None,
    hashes: list[str] | None = None,
) -> None:
    end_run(run, status, error=error, artifact=artifact, warnings=warnings, hashes=hashes)
    # Every run ends here (executed, forked, replayed, recorded by a program): with
    # REWIND_OTLP_ENDPOINT set it leaves as a trace — queued, never waited on; unset, a no-op.
    export_run(run.pk)


def end_run(
    run: Run,
    status: str,
    *,
    error: str = "",
    artifact: tuple[str, str] | None = None,
    warnings: list[str] | None = None,
    hashes: list[str] | None = None,
) -> dict[str, Any] | None:
    """The run's end as one UPDATE (a cancelled run stays cancelled): ``hashes``, the output
    hashes of its steps in order, when the caller knows them (else they are read). The values
    written, or None when the run was cancelled meanwhile (``RunQuerySet.finish``)."""
    fields: dict[str, Any] = {"error": error}
    if warnings:
        fields["warnings"] = [*run.warnings, *warnings]
    if status == Run.Status.COMPLETED:
        if hashes is None:
            hashes = list(run.nodes.order_by("sequence_id").values_list("output_sha256", flat=True))
        fields["trajectory_sha256"] = trajectory_sha256(hashes)
        if artifact is not None:
            fields["artifact_path"], fields["artifact_sha256"] = artifact
    return Run.objects.finish(run.pk, status, **fields)


DEFERRED = ("output", "prompt", "calls", "raw_output", "error", "cache_note")


def _steps(run: Run) -> tuple[list[Node], list[Node]]:
    """A run's steps and its source's, in order, in one query, without what only some forks
    read (outputs: a writes.* override reads its one step's) or nothing reads while
    executing."""
    runs = [run.pk] if run.parent_id is None else [run.pk, run.parent_id]
    found = Node.objects.filter(run_id__in=runs).order_by("sequence_id").defer(*DEFERRED)
    mine: list[Node] = []
    source: list[Node] = []
    for node in found:
        (mine if node.run_id == run.pk else source).append(node)
    return mine, source


def _context(
    run: Run, prior: list[Node], source_steps: list[Node], app: LoadedApp | None = None
) -> RunContext:
    start = run.fork_sequence_id if run.fork_sequence_id is not None else 0
    if app is None or app.name != run.pipeline:
        app = LoadedApp(run.pipeline, get_pipeline(run.pipeline))
    pipeline = app.app
    # The code it was asked to run, or nothing: checked here unless the caller did.
    if run.regression_code and run.regression_code != app.checked:
        check_version(run.pipeline, pipeline, run.regression_code)
    ctx = make_context(
        run_id=run.pk,
        pipeline=pipeline,
        provider=run.provider,
        overrides=effective_overrides(run),
        policy=CallPolicy.of_run(run),  # how it answers its calls, decided once
        prior=prior,
        pins=source_pins(source_steps, start),
        source_steps=source_steps,
        start=start,
    )
    ctx.known_blobs = known_blobs(run.parent, [*prior, *source_steps])
    return ctx


def known_blobs(source: Run | None, steps: list[Node]) -> set[str]:
    """The blobs a run's steps are likely to store again, all known to be stored: its
    source's state snapshots (one query) and the values of ``steps``."""
    known = {
        blob
        for step in steps
        for blob in (step.inputs_blob_id, step.output_blob_id, step.prompt_blob_id)
        if blob is not None
    }
    if source is not None:
        known.update(BurrState.objects.snapshot_hashes(PARTITION_KEY, str(source.pk)))
    return known


def _application(
    run: Run, ctx: RunContext, hook: StepRecorder | AsyncStepRecorder, prior: list[Node]
):
    return build_application(
        ctx,
        app_id=str(run.pk),
        inputs=run.inputs,
        # The last step already recorded: inherited, or executed by this run before its
        # worker died (a resumed run continues after it).
        predecessor=prior[-1] if prior else None,
        hooks=[hook],
    )
