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

from typing import Any

from burr.core import Application, State
from burr.core.application import PRIOR_STEP, SEQUENCE_ID
from django.conf import settings

from runs.engine.actions import RunContext, StepRecord
from runs.engine.errors import NodeFailure
from runs.engine.hashing import content_sha256, semantic_state
from runs.engine.recorder import StepRecorder
from runs.models import Node, Run


class Turns:
    """The turns of a run and where the next step stands among them."""

    def __init__(self, run: Run, start: int) -> None:
        self.turns = run.turns or [{"inputs": {}}]
        self.after = set((run.halt or {}).get("after", []))
        self.before = set((run.halt or {}).get("before", []))
        self.index = start

    @property
    def done(self) -> bool:
        return self.index >= len(self.turns)

    def inputs(self) -> dict[str, Any]:
        return dict(self.turns[self.index].get("inputs") or {})

    def ends_after(self, app: Application, action_name: str) -> bool:
        """Does the turn halt after ``action_name`` (as ``app.run(halt_after/before)``)?"""
        if action_name in self.after:
            return True
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


def prepare_step(app: Application, ctx: RunContext, turns: Turns) -> tuple[Any, int, dict]:
    """Before the next step: its action, sequence id and runtime inputs, with this step's
    ``state.*`` overrides applied to the state and ``input.*`` ones to the inputs."""
    action = app.get_next_action()
    seq = next_sequence_id(app)
    overrides = ctx.overrides.get(seq, {})
    inputs = turns.inputs()
    state_changes = {}
    for name, override in overrides.items():
        if override.node != action.name:
            continue
        if name.startswith("input."):
            inputs[name.removeprefix("input.")] = override.value
        elif name.startswith("state."):
            state_changes[name.removeprefix("state.")] = override.value
    if state_changes:
        app.update_state(app.state.update(**state_changes))
    required, optional = action.optional_and_required_inputs
    accepted = {k: v for k, v in inputs.items() if k in required or k in optional}
    return action, seq, accepted


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
    source = ctx.source_outputs.get(seq)
    if source is None or source[0] != action.name:
        raise NodeFailure(f"cannot override the writes of {action.name}: no source step {seq}")
    output = {**(source[1] or {}), **writes}
    before = semantic_state(app.state.get_all())
    state: State = app.state.update(**output).update(**{PRIOR_STEP: action.name, SEQUENCE_ID: seq})
    app.update_state(state)
    record = StepRecord(
        kind=source[2],
        inputs={
            "turn": ctx.turn,
            "inputs": {},
            "reads": {k: before[k] for k in action.reads if k in before},
        },
        output=output,
        output_sha256=content_sha256(output),
        cache_source="override",
    )
    recorder.ctx.sequence_id = seq
    recorder.write("", str(ctx.run_id), seq, action.name, state, record)


def drive(app: Application, run: Run, ctx: RunContext, recorder: StepRecorder, start: int) -> None:
    """Step the application through the run's turns (sync actions)."""
    turns = Turns(run, start)
    budget = settings.REWIND_MAX_STEPS
    while not turns.done and app.has_next_action():
        ctx.turn = turns.index
        action, seq, inputs = prepare_step(app, ctx, turns)
        writes = writes_override(ctx, seq, action.name)
        if writes is not None:
            skip_step(app, ctx, recorder, action, seq, writes)
        else:
            app.step(inputs=inputs)
        budget -= 1
        if budget <= 0:
            raise NodeFailure(_budget_message(run))
        if turns.ends_after(app, action.name):
            turns.index += 1


async def adrive(
    app: Application, run: Run, ctx: RunContext, recorder: StepRecorder, start: int
) -> None:
    """The same for an app with async actions (``app.astep``)."""
    from asgiref.sync import sync_to_async

    from runs.engine.capture import ensure_slot

    ensure_slot()  # in this task: the hooks, run as tasks of their own, fill it
    turns = Turns(run, start)
    budget = settings.REWIND_MAX_STEPS
    while not turns.done and app.has_next_action():
        ctx.turn = turns.index
        action, seq, inputs = prepare_step(app, ctx, turns)
        writes = writes_override(ctx, seq, action.name)
        if writes is not None:
            await sync_to_async(skip_step, thread_sensitive=True)(
                app, ctx, recorder, action, seq, writes
            )
        else:
            await app.astep(inputs=inputs)
        budget -= 1
        if budget <= 0:
            raise NodeFailure(_budget_message(run))
        if turns.ends_after(app, action.name):
            turns.index += 1


def _budget_message(run: Run) -> str:
    return (
        f"run {run.pk} took {settings.REWIND_MAX_STEPS} steps without halting "
        "(REWIND_MAX_STEPS); a graph that loops needs --halt-after or --halt-before"
    )
