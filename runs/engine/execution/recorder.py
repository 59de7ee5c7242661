"""Writes each finished step: Burr's state row, the Node row and the Edge, in one transaction —
or, for a step the cache answered whole, held with the steps before it and written together.

One recorder for both kinds of step. A declared node (``NodeAction``) reports its telemetry
in its result; any other action of a Burr app is observed from outside: while it runs, the
HTTP calls it makes are captured (``runs.engine.calls.capture.StepCalls``), and what it wrote is
read from the state after it. Its kind is what it did: ``llm`` if it called an LLM, ``tool``
if it made only other calls, ``code`` if it made none.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from contextlib import nullcontext
from decimal import Decimal
from typing import Any

from burr.core import State
from burr.core.action import Action
from burr.lifecycle import (
    PostRunStepHook,
    PostRunStepHookAsync,
    PreRunStepHook,
    PreRunStepHookAsync,
)
from django.conf import settings
from django.db import transaction

from runs.engine.apps.state import UnstorableValue, stored_state, stored_value
from runs.engine.apps.versions import code_parts, namespace, step_changes, version_of
from runs.engine.calls import capture
from runs.engine.calls.capture import StepCalls
from runs.engine.calls.capture.redaction import redact_text
from runs.engine.calls.capture.values import StepValues, adopt
from runs.engine.errors import NodeFailure, storable_text
from runs.engine.execution.actions import NodeAction, RunContext, StepRecord
from runs.engine.execution.fence import InFlight
from runs.engine.execution.persister import DjangoPersister
from runs.lib.hashing import content_sha256
from runs.models import Blob, BurrState, Edge, Node, stored_text
from runs.models.sql import insert_all

# Steps that made no live call: the cache (or an override) answered them whole.
HELD_SOURCES = frozenset({"cache", "tool-cache", "render-cache", "override"})
HOLD_STEPS = 100  # held steps are written at the latest when this many are held
HOLD_BYTES = 8 * 1024 * 1024  # … or when the new values they keep add up to this
HOLD_SECONDS = 0.5  # … or when the first of them has been held this long, at a step's end


def failure_message(exception: BaseException, secrets: Iterable[str] = ()) -> str:
    """What a step's or run's error says: credentials in it (a URL's ``?api_key=``, a key
    the failed call carried) redacted."""
    if isinstance(exception, NodeFailure):
        message = str(exception)
    else:
        message = f"{type(exception).__name__}: {exception}"
    # NUL and lone surrogates written as escapes: every database keeps the message.
    return storable_text(redact_text(message, secrets))


class InvalidAnswer(NodeFailure):
    """An LLM call of the step got a 2xx answer that is not one of its format."""


def step_failure(calls: StepCalls | None, exception: BaseException | None) -> BaseException | None:
    """Why the step failed: a connection or call the capture refused (a hermetic replay), then
    a broken answer one of its calls got (the cause; what the action then raised, if it did,
    is named after it), else what the action raised."""
    if calls is not None and calls.refused:
        # What the library made of it (a retry, "Connection error", a fallback the app
        # chose) is beside the point: the step could not be replayed as recorded.
        return NodeFailure(calls.refused)
    call = calls.invalid_answer() if calls is not None else None
    if call is None:
        if exception is not None and calls is not None and calls.unreachable:
            # "Connection error." alone does not say where the step tried to go, or why there.
            return NodeFailure(f"{failure_message(exception)} — {calls.unreachable}")
        return exception
    message = call.error
    if exception is not None:
        message += f" (the step then raised {failure_message(exception)})"
    return InvalidAnswer(message, raw=call.raw)


class StepRecorder(PreRunStepHook, PostRunStepHook):
    def __init__(self, ctx: RunContext, persister: DjangoPersister, *, hold: bool = False) -> None:
        self.ctx = ctx
        self.persister = persister
        # ``hold``: a step the cache answered whole is held, not written at once; the held
        # steps are written in one transaction with the next step that went live or failed,
        # before a step that may go live, or at the run's end (``write_held``). None is ever
        # written out of order, and a step that went live is committed before the next begins.
        self.hold = hold
        # ``hold_all``: every step that did not fail is held, whatever answered it — for a
        # recorded program's writer, already off the step's path, which writes the held steps
        # at the end of each of its batches (``write_held``), many steps to a statement.
        self.hold_all = False
        self.held: list[tuple[BurrState, Node, Edge | None, dict[str, str]]] = []
        self.held_since = 0.0
        self.held_bytes = 0  # of the new blobs held steps keep
        # The output hash of every step of the run so far, in order (its inherited or resumed
        # steps first, set by the runner): the run's trajectory, without reading it back.
        self.trajectory: list[str] = []
        if hold:  # a declared node about to call out writes the held steps first
            ctx.before_live = self.write_held
        self.calls: StepCalls | None = None
        self.before: dict[str, Any] = {}  # the step's recorded inputs
        self.state_before: State | None = None  # the state it started from
        self.stored_before: dict[str, Any] = {}  # that state as stored (semantic keys)
        self.unstorable: UnstorableValue | None = None  # the state it left cannot be stored
        self.started = 0.0
        self.code_version = ""  # of the step's action (``versions.code_version``)
        self.code_changed = False  # the source step it re-executes ran other code
        self.code_parts: dict[str, str] = {}  # what code_version is made of

    def pre_run_step(self, **kwargs: Any) -> None:
        if self.prepare(**kwargs):
            self.write_held()

    def prepare(
        self, *, sequence_id: int, action: Action, state: State, inputs: dict, **future: Any
    ) -> bool:
        """Before a step (no database work: an async app's hook runs in its event loop).
        True when the steps held so far are to be written before it runs."""
        # Overrides apply to one step, found by its sequence id.
        self.ctx.sequence_id = sequence_id
        self.state_before, self.unstorable = state, None  # kept if the step is abandoned
        self.code_version, self.code_changed = self._code(sequence_id, action)
        if isinstance(action, NodeAction):
            self.calls, self.before = None, {}
            return False  # a declared node writes them itself before it calls out
        llm = self.ctx.overrides.get(sequence_id, {})
        semantic = self.stored_before = stored_state(state)
        self.before = step_inputs(self.ctx.turn, inputs, action, semantic)
        policy = self.ctx.policy
        unchanged = policy.every_step_unchanged or self._unchanged(sequence_id, action, llm)
        capture.install()
        self.calls = StepCalls(
            sequence_id=sequence_id,
            action=action.name,
            pins=self.ctx.pins,
            llm_model=llm["llm.model"].value if "llm.model" in llm else None,
            llm_temperature=llm["llm.temperature"].value if "llm.temperature" in llm else None,
            policy=policy,  # what it looks up, refuses and guards (``policy.guards(unchanged)``)
            unchanged=unchanged,
            fence=self.ctx.fence,
            values=self._values(sequence_id, action),
        )
        self.calls.__enter__()
        self.started = time.perf_counter()
        # A step that may call out (and take long) lets the steps held before it show first.
        return bool(self.held) and not unchanged

    def _code(self, sequence_id: int, action: Action) -> tuple[str, bool]:
        """The action's code version (its parts kept in ``code_parts``), and whether the
        source's step this one re-executes ran another (its output may then differ by the
        edit, not by chance; why: ``versions.step_changes`` of the two steps' parts)."""
        self.code_parts = code_parts(action)
        version = version_of(self.code_parts)
        source = self.ctx.source_steps.get(sequence_id)
        changed = (
            source is not None
            and source.name == action.name
            and bool(
                step_changes(
                    source.code_version,
                    getattr(source, "code_parts", None),
                    version,
                    self.code_parts,
                )
            )
        )
        return version, changed

    def _values(self, sequence_id: int, action: Action) -> StepValues | None:
        """What the step's code reads from the clock and randomness is recorded; a step that
        re-executes its source's step, in a run that reads the cache, gets back the values that
        step read (``REWIND_REPLAY_VALUES=false``: none of it)."""
        if not settings.REWIND_REPLAY_VALUES:
            return None
        adopt(namespace(action))  # ``from random import random`` in the action's module
        source = self.ctx.source_steps.get(sequence_id)
        if not self.ctx.policy.reads_cache or source is None or source.name != action.name:
            return StepValues()
        recorded = (source.values_read or {}).get("reads") or {}
        return StepValues(recorded=recorded, replaying=True)

    def _unchanged(self, sequence_id: int, action: Action, overrides: dict) -> bool:
        """Whether this step of a fork re-executes exactly as its source's did: the same
        action, inputs what the source's step had, dict order included (the blob of their
        ``stored_text``; a source stored before blobs kept that order: their canonical JSON's),
        no override of its own."""
        source = self.ctx.source_steps.get(sequence_id)
        return (
            source is not None
            and not overrides
            and source.name == action.name
            and source.inputs_blob_id
            in (Blob.key(stored_text(self.before)), content_sha256(self.before))
        )

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
        state, record, failure = self.conclude(action, state, result, exception)
        self.write(partition_key, app_id, sequence_id, action.name, state, record, failure)
        if exception is None and failure is not None:
            raise failure  # the step "succeeded" on a broken answer: the run fails here

    def conclude(
        self,
        action: Action,
        state: State,
        result: dict[str, Any] | None,
        exception: BaseException | None,
    ) -> tuple[State, StepRecord, BaseException | None]:
        """What to write for a finished step (no database work): the state its row keeps,
        its record, and why it failed, if it did. A state that cannot be stored fails the
        step, and its row keeps the state the step started from."""
        calls = self.calls
        record = self.observe(action, state, result)
        record.code_version, record.code_changed = self.code_version, self.code_changed
        record.code_parts = self.code_parts
        if self.unstorable is not None:
            return self.state_before, record, self.unstorable
        return state, record, step_failure(calls, exception)

    def observe(self, action: Action, state: State, result: dict[str, Any] | None) -> StepRecord:
        """What the step did (no database work): leaves the capture context it entered."""
        if self.calls is not None:
            self.calls.__exit__()
            self.calls.store_pending()  # async calls' answers (none when already stored)
            try:
                after = stored_state(state)
            except UnstorableValue as exc:
                self.unstorable, after = exc, None
            record = observed_step(
                action, self.calls, self.before, self.stored_before, after, self.started
            )
            self.ctx.warnings.extend(
                f"{action.name} {u.get('verb', 'connected to')} {u['endpoint']} outside capture "
                f"(from {u['line']}): its replay will not be hermetic"
                for u in self.calls.uncaptured
            )
            # Declared telemetry went out: listed, never held against the replay's verdict.
            self.ctx.warnings.extend(
                f"{action.name}: telemetry passed: {what}"
                for what in capture.guard.telemetry_passed(self.calls)
            )
            self.ctx.warnings.extend(
                w for w in self.calls.shape_warnings() if w not in self.ctx.warnings
            )
            self.calls = None
        elif result is not None and "telemetry" in result:
            record = result["telemetry"]
        else:
            # The action raised before returning: use what it had recorded so far.
            record = self.ctx.current or StepRecord(kind=self.ctx.pipeline.node(action.name).kind)
        if record.cache_source not in {"live", "override"}:
            self.ctx.hits.update(record.cache_entries)  # counted once, at the end of the run
        self.ctx.secrets.update(record.secrets)
        return record

    def write(
        self,
        partition_key: str,
        app_id: str,
        sequence_id: int,
        name: str,
        state: State,
        record: StepRecord,
        exception: BaseException | None = None,
        *,
        fenced: bool = True,
    ) -> Node:
        """Write a finished step: its state row, its Node row and the edge to it, in one
        transaction — through the run's fence (``fenced=False`` only for the step the run
        abandoned, written by the run itself once the fence is closed). A step the cache
        answered whole is held instead, when the recorder holds (passing the fence all the
        same: once it is closed, nothing more is held)."""
        row = self.state_row(partition_key, app_id, sequence_id, name, state, exception)
        return self.write_row(row, record, exception, fenced=fenced)

    def state_row(
        self,
        partition_key: str,
        app_id: str,
        sequence_id: int,
        name: str,
        state: State,
        exception: BaseException | None = None,
    ) -> BurrState:
        """A finished step's state row, unsaved: ``state`` serialised now (no database work)."""
        status = "failed" if exception is not None else "completed"
        return self.persister.row(partition_key, app_id, sequence_id, name, state, status)

    def write_row(
        self,
        row: BurrState,
        record: StepRecord,
        exception: BaseException | None = None,
        *,
        fenced: bool = True,
    ) -> Node:
        """``write``, the state row already made (``state_row``): a recorded program's writer
        (``runs.engine.execution.writer``) makes it on the step's path and writes it later."""
        sequence_id, name = row.sequence_id, row.position
        failed = exception is not None
        if failed:
            record.output, record.output_sha256 = None, ""
            if isinstance(exception, NodeFailure) and exception.raw and not record.raw_output:
                record.raw_output = exception.raw
        record.raw_output = storable_text(record.raw_output)
        node = Node(
            run_id=self.ctx.run_id,
            sequence_id=sequence_id,
            name=name,
            status=Node.Status.FAILED if failed else Node.Status.COMPLETED,
            src_run_id=self.ctx.run_id,
            src_sequence_id=sequence_id,
            error=storable_text(failure_message(exception, record.secrets)) if failed else "",
            **record.node_fields(),
        )
        edge = None
        if self.ctx.previous_node is not None:
            edge = Edge(
                run_id=self.ctx.run_id,
                sequence_id=sequence_id,
                from_node=self.ctx.previous_node,
                to_node=name,
                condition=self.ctx.pipeline.condition_label(self.ctx.previous_node, name),
            )
        step = (row, node, edge, {**row.take_new_blobs(), **node.take_new_blobs()})
        held = (
            fenced
            and not failed
            and (self.hold_all or (self.hold and record.cache_source in HELD_SOURCES))
        )
        with self.ctx.fence.writing() if fenced else nullcontext():
            if held:
                if not self.held:
                    self.held_since = time.monotonic()
                # What a held step keeps: its rows, and only the blobs not known stored (the
                # state row's decoded snapshot is dropped: its blob is all that is written).
                row.__dict__.pop("_stored_values", None)
                known = self.ctx.known_blobs
                new = {sha: text for sha, text in step[3].items() if sha not in known}
                self.held.append((row, node, edge, new))
                self.held_bytes += sum(len(text) for text in new.values())
                full = len(self.held) >= HOLD_STEPS or self.held_bytes >= HOLD_BYTES
                if full or time.monotonic() - self.held_since >= HOLD_SECONDS:
                    self._write(self._take_held())
            else:
                # Every step held before it first: one transaction, in order.
                self._write([*self._take_held(), step])
            if fenced:
                self.ctx.fence.written()
        self.ctx.previous_node = name
        self.ctx.current = None
        self.trajectory.append(node.output_sha256)
        return node

    def write_held(self, *, fenced: bool = True, savepoint: bool = True) -> None:
        """Write the steps held so far, in one transaction (none: nothing to do). The runner
        calls it at the run's end inside the transaction that finishes the run; a step calls
        it before it goes live. ``fenced=False``: the run stopped waiting for a step, and
        writes what was held before the fence closed. ``savepoint=False``: inside the
        caller's transaction, which fails whole if this does."""
        if not self.held:
            return
        with self.ctx.fence.writing() if fenced else nullcontext():
            self._write(self._take_held(), savepoint=savepoint)

    def _take_held(self) -> list[tuple[BurrState, Node, Edge | None, dict[str, str]]]:
        held, self.held, self.held_bytes = self.held, [], 0
        return held

    def _write(
        self,
        steps: list[tuple[BurrState, Node, Edge | None, dict[str, str]]],
        *,
        savepoint: bool = True,
    ) -> None:
        """One transaction: the blobs not stored yet (none, when the steps reproduced their
        source's states and values), then the state rows, the step rows and the edges, each
        kind in one statement."""
        blobs = {sha: text for *_, new in steps for sha, text in new.items()}
        with transaction.atomic(savepoint=savepoint):
            stored = Blob.objects.store(blobs, known=self.ctx.known_blobs)
            insert_all([row for row, _, _, _ in steps])
            insert_all([node for _, node, _, _ in steps])
            insert_all([edge for _, _, edge, _ in steps if edge is not None])
        self.ctx.known_blobs.update(stored)  # committed (or the caller's to commit): known
        if self.ctx.on_step is not None:
            for _, node, _, _ in steps:
                self.ctx.on_step(node)

    def abandoned(self, step: InFlight, message: str) -> Node | None:
        """Write ``step``, which the run stopped waiting for (a step timeout, a cancel), as
        failed with ``message``: the state it started from, its inputs, the calls it made so
        far. None when it had not reached its first hook (nothing is known of it)."""
        if self.ctx.sequence_id != step.sequence_id or self.state_before is None:
            return None
        calls = list(self.calls.calls) if self.calls is not None else []
        if self.calls is None:  # a declared node: what it recorded so far
            record = self.ctx.current or StepRecord(kind=self.ctx.pipeline.node(step.name).kind)
        else:
            llm = any(c.kind == "llm" for c in calls)
            record = StepRecord(kind="llm" if llm else "tool" if calls else "code")
            record.inputs = self.before
            record.calls = [c.as_json() for c in calls]
            if self.calls.values is not None:  # its thread goes on unrecorded: clock live
                self.calls.values.leave()
                record.values_read = self.calls.values.as_json()
        record.code_version, record.code_changed = self.code_version, self.code_changed
        record.code_parts = self.code_parts
        record.latency_ms = round((time.monotonic() - step.started) * 1000, 3)
        record.cache_source = "live"
        return self.write(
            "", str(self.ctx.run_id), step.sequence_id, step.name, self.state_before,
            record, NodeFailure(message), fenced=False,
        )  # fmt: skip


class AsyncStepRecorder(PreRunStepHookAsync, PostRunStepHookAsync):
    """The recorder of an async app: Burr awaits these hooks inside the event loop, where the
    ORM may not run, so the database work runs in the run's own thread (``sync_to_async``);
    the capture context is entered here, in the task that runs the action."""

    def __init__(self, recorder: StepRecorder) -> None:
        self.recorder = recorder
        # Burr (0.42, 0.43) hands post_run_step the state from *before* a sync action run in an
        # async app; the application's own state is right in every case.
        self.app: Any = None

    async def pre_run_step(self, **kwargs: Any) -> None:
        from asgiref.sync import sync_to_async

        if self.recorder.prepare(**kwargs):  # no database work: safe in the loop
            await sync_to_async(self.recorder.write_held, thread_sensitive=True)()

    async def post_run_step(
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
        from asgiref.sync import sync_to_async

        if self.app is not None and exception is None:
            state = self.app.state
        calls = self.recorder.calls
        if calls is not None and calls.pending:  # the ORM may not run in the loop: one hop
            await sync_to_async(calls.store_pending, thread_sensitive=True)()
        # In the task that ran the step (it leaves the capture context that task entered).
        state, record, failure = self.recorder.conclude(action, state, result, exception)
        await sync_to_async(self.recorder.write, thread_sensitive=True)(
            partition_key, app_id, sequence_id, action.name, state, record, failure
        )
        if exception is None and failure is not None:
            raise failure


def step_inputs(
    turn: int, inputs: dict[str, Any], action: Action, stored: dict[str, Any]
) -> dict[str, Any]:
    """What a step of a Burr app had to go on: its turn, runtime inputs, the keys it reads —
    and, as ``prior``, the keys it writes without reading them (an ``append`` to a key it does
    not declare as a read still builds on that key: two runs that differ there differ in
    input, not by chance). ``prior`` is left out when empty, so a step's inputs are what they
    always were unless it has one."""
    recorded = {
        "turn": turn,
        "inputs": {k: stored_value(k, v) for k, v in inputs.items() if not k.startswith("__")},
        "reads": {k: stored[k] for k in action.reads if k in stored},
    }
    prior = {k: stored[k] for k in action.writes if k not in action.reads and k in stored}
    if prior:
        recorded["prior"] = prior
    return recorded


def step_output(
    action: Action, before: dict[str, Any], after: dict[str, Any] | None
) -> dict[str, Any] | None:
    """What a step did: every key it declares it writes, and every other key whose value it
    changed (the state after against the state before; a key it removed is None)."""
    if after is None:
        return None
    output = {key: after.get(key) for key in action.writes}
    # In the state's order (a set's would change from one process to the next, and with it
    # the output's stored text: an unchanged replay would not share its parent's blob).
    for key in [*after, *(k for k in before if k not in after)]:
        if key not in output and after.get(key, _GONE) != before.get(key, _GONE):
            output[key] = after.get(key)
    return output


_GONE = object()


def observed_step(
    action: Action,
    calls: StepCalls,
    inputs: dict[str, Any],
    before: dict[str, Any],
    after: dict[str, Any] | None,
    started: float,
) -> StepRecord:
    """The record of a step of a Burr app, from its captured calls and the state it left
    (``after`` is None when that cannot be stored: the step fails)."""
    output = step_output(action, before, after)
    made = calls.calls
    llm = [c for c in made if c.kind == "llm"]
    kind = "llm" if llm else "tool" if made else "code"
    if any(c.cache_source == "live" for c in made) or kind == "code":
        source = "live"
    else:
        source = "cache" if llm else "tool-cache"
    costs = [c.cost_usd for c in made if c.cache_source == "live"]
    record = StepRecord(
        kind=kind,
        inputs=inputs,
        output=output,
        output_sha256=content_sha256(output) if output is not None else "",
        prompt=calls.prompt,
        model_requested=llm[0].model_requested if llm else "",
        model_answered=llm[0].model_answered if llm else "",
        temperature=llm[0].temperature if llm else None,
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        prompt_tokens=sum(c.prompt_tokens for c in made if c.cache_source == "live"),
        completion_tokens=sum(c.completion_tokens for c in made if c.cache_source == "live"),
        total_tokens=sum(c.total_tokens for c in made if c.cache_source == "live"),
        cost_usd=None if any(c is None for c in costs) else sum(costs, Decimal(0)),
        cache_source=source,
        cache_key=made[0].key if made else "",
        cache_entries=[c.entry for c in made if c.entry],
    )
    record.calls = [c.as_json() for c in made] + [
        {"kind": "uncaptured", **u, "cache_source": "live"} for u in calls.uncaptured
    ]
    record.secrets = calls.secrets
    if calls.values is not None:
        record.values_read = calls.values.as_json()
    return record
