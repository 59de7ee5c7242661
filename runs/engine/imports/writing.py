"""Imported steps written as a run: its Run row, a Node, a Burr state row and an Edge per
step — the rows a run of the same app recorded under Rewind has, so every page, the diff and a
fork read it like any run. One app is written in one transaction (a bad line leaves nothing of
it), its steps in batches (memory does not grow with the log). Importing the same source again
finds its run by ``Run.import_key`` and adds only the steps it does not have yet.

Burr's log does not say where the program's ``app.run`` calls began and ended, so the turns are
read from the runtime inputs: a step that received some begins a turn (so does every later visit
of its action), and the turn before it ends there. The run's halts are what a fork needs to end
its turns where the source's ended whatever route it takes: before each action that began a
turn, after each action that only ever ended one — and, when neither ends the last turn (a loop
the program stepped itself), after as many steps as the source ran (``halt["steps"]``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from runs.engine.calls.capture.redaction import redact_body, redact_text
from runs.engine.errors import storable_text
from runs.engine.execution.persister import PARTITION_KEY
from runs.engine.execution.recorder import step_output
from runs.engine.forking.forks import inherited_copy
from runs.engine.imports.genai import calls_of, clean_attributes
from runs.engine.imports.tracker import Span, Step
from runs.lib.hashing import (
    FRAMEWORK_PREFIX,
    content_sha256,
    sha256_text,
    trajectory_sha256,
)
from runs.models import BurrState, Edge, Node, Run, stored_text

BATCH = 200  # steps per bulk insert
NO_CALLS = (
    "calls not recorded: the log holds no LLM call bodies for this run, so a fork "
    "re-executes from its fork point live"
)
NO_INPUTS: dict[str, Any] = {"inputs": {}}  # a turn with no runtime input, shared, never mutated
PROVIDER = {"preset": "app", "model": "", "temperature": None, "simulator": False}


def import_key(*parts: str) -> str:
    """The key a source is known by (a tracker app: project and app id; a persister row set:
    its database, table, partition key and app id)."""
    return sha256_text("\x00".join(parts))


def semantic(state: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (state or {}).items() if not k.startswith(FRAMEWORK_PREFIX)}


class Action:
    """What ``step_output`` needs of an action: the keys it declares it reads and writes
    (from Burr's graph; none known for a persister's rows)."""

    def __init__(self, name: str, reads: Iterable[str] = (), writes: Iterable[str] = ()) -> None:
        self.name, self.reads, self.writes = name, list(reads), list(writes)


@dataclass
class Source:
    """One app's history to write, whatever it was read from."""

    key: str
    pipeline: str
    imported_from: dict[str, Any]
    actions: dict[str, Action] = field(default_factory=dict)
    conditions: dict[tuple[str, str], str] = field(default_factory=dict)
    parent: Run | None = None
    parent_sequence_id: int | None = None  # the parent's last step this app started from
    calls_logged: bool = True  # whether a call body could be in the log at all
    # The pipeline was named by the person importing (--pipeline): a run imported before
    # under another name is renamed (its forks go through this app from now on).
    pipeline_given: bool = False

    def action(self, name: str) -> Action:
        return self.actions.get(name) or Action(name)


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return timezone.make_aware(value) if timezone.is_naive(value) else value


class RunWriter:
    """Writes one source's steps into its run (made on the first step, or found)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.run: Run | None = Run.objects.filter(import_key=source.key).first()
        self.created = False
        self.renamed = False
        self.added = 0
        self.previous: str | None = None
        self.before: dict[str, Any] = {}
        self.last_seq = -1
        self.turns: list[dict[str, Any]] = []
        self.turn = -1  # the turn of the last step written
        self.starters: set[str] = set()  # actions that began a turn (halt before them)
        self.enders: set[str] = set()  # actions that ended one (halt after them) ...
        self.inner: set[str] = set()  # ... unless they also ran inside one
        self.llm_steps = 0
        self.failed: Step | None = None
        self.started: datetime | None = None
        self.ended: datetime | None = None
        self._rows: list[tuple[Node, BurrState, Edge | None]] = []
        self.finished = False  # the run ended (completed, failed or interrupted), not followed
        if self.run is not None:
            self._resume()
            if source.pipeline_given and self.run.pipeline != source.pipeline:
                Run.objects.filter(pk=self.run.pk).update(pipeline=source.pipeline)
                self.run.pipeline = source.pipeline
                self.renamed = True

    def _resume(self) -> None:
        """Continue after the run's last step: its state, its name, its turns."""
        run = self.run
        assert run is not None
        last = (
            run.nodes.order_by("-sequence_id")
            .only("sequence_id", "name", "src_run_id", "src_sequence_id")
            .first()
        )
        self.llm_steps = run.nodes.filter(kind=Node.Kind.LLM).count()
        if last is None:
            return
        self._continue_turns(run, last)
        self.last_seq, self.previous = last.sequence_id, last.name
        self.before = _state_after(last)

    def _continue_turns(self, run: Run, last: Node) -> None:
        """The turns and halts of ``run`` up to ``last`` (a step of it), to go on from.
        An action that ran and is not among the halts after was inside a turn."""
        turn = last.inputs.get("turn") if isinstance(last.inputs, dict) else None
        self.turn = turn if isinstance(turn, int) else len(run.turns or []) - 1
        self.turns = list(run.turns or [])[: self.turn + 1]
        halt = run.halt or {}
        self.starters = set(halt.get("before", []))
        self.enders = set(halt.get("after", []))
        ran = run.nodes.filter(sequence_id__lte=last.sequence_id).order_by()
        self.inner = set(ran.values_list("name", flat=True).distinct()) - self.enders

    # -- the run row ------------------------------------------------------------------------

    def _create(self, first: Step) -> Run:
        source = self.source
        parent = source.parent
        initial = self._initial_state(first)
        run = Run.objects.create(
            pipeline=source.pipeline,
            inputs=initial,
            provider=dict(PROVIDER),
            mode=Run.Mode.LIVE,
            status=Run.Status.RUNNING,
            imported_from=source.imported_from,
            import_key=source.key,
            parent=parent,
            root=parent.root if parent is not None else None,
            fork_node=first.action if parent is not None else "",
            fork_sequence_id=first.sequence_id if parent is not None else None,
            started_at=_aware(first.started),
            heartbeat_at=timezone.now(),
        )
        if parent is None:
            Run.objects.make_root(run)
        else:
            self._inherit(run, parent)
        self.created = True
        return run

    def _initial_state(self, first: Step) -> dict[str, Any]:
        """The state the app started from: its parent's for a fork; else, as no log holds it,
        the state after the first step without what that step writes — or, with no graph
        to say what it writes, nothing (its output is then the whole state it left)."""
        if self.source.parent is not None:
            return dict(self.source.parent.inputs)
        if first.action not in self.source.actions:
            return {}  # no graph (a persister's rows): what the first step wrote is unknown
        writes = set(self.source.action(first.action).writes)
        return {k: v for k, v in semantic(first.state).items() if k not in writes}

    def _inherit(self, run: Run, parent: Run) -> None:
        """A fork's steps up to its fork point are its parent's (as a fork Rewind makes)."""
        last = self.source.parent_sequence_id
        kept = list(parent.nodes.filter(sequence_id__lte=last).order_by("sequence_id"))
        Node.objects.bulk_create([inherited_copy(n, run) for n in kept])
        edges = list(parent.edges.filter(sequence_id__lte=last))
        Edge.objects.bulk_create(
            [
                Edge(run=run, sequence_id=e.sequence_id, from_node=e.from_node,
                     to_node=e.to_node, condition=e.condition)
                for e in edges
            ]
        )  # fmt: skip
        if kept:
            self._continue_turns(parent, kept[-1])
            self.last_seq, self.previous = kept[-1].sequence_id, kept[-1].name
            self.before = _state_after(kept[-1])

    # -- steps ------------------------------------------------------------------------------

    def add(self, step: Step) -> None:
        """Write ``step`` (buffered; ``flush`` writes the batch). A step already imported is
        passed over."""
        if step.sequence_id <= self.last_seq:
            return
        if self.run is None:
            self.run = self._create(step)
            if self.source.parent is None:
                self.before = self._initial_state(step)
        self.started = self.started or step.started
        self.ended = step.ended or step.started
        action = self.source.action(step.action)
        after = semantic(step.state) if step.state is not None else None
        failed = step.exception is not None
        output = None if failed else step_output(action, self.before, after)
        calls = calls_of(step.spans)
        self.llm_steps += bool(calls)
        self._turn(step)
        inputs = self._inputs(step, action)
        node = Node(
            run=self.run,
            sequence_id=step.sequence_id,
            name=step.action,
            kind=Node.Kind.LLM if calls else Node.Kind.CODE,
            status=Node.Status.FAILED if failed else Node.Status.COMPLETED,
            output_sha256=content_sha256(output) if output is not None else "",
            cache_source=Node.CacheSource.LIVE,
            src_run=self.run,
            src_sequence_id=step.sequence_id,
            error=storable_text(redact_text(step.exception or ""))[:20000],
            latency_ms=_latency(step),
            calls=[{k: v for k, v in c.items() if k not in {"messages", "completion"}}
                   for c in calls],
            spans=_spans(step),
            **_llm_fields(calls),
        )  # fmt: skip
        node.inputs, node.output = inputs, output
        node.ended_at = _aware(step.ended or step.started)
        if calls:
            node.prompt = calls[0]["messages"]
            node.raw_output = storable_text(_completion_text(calls[0]))
        state = step.state if step.state is not None else {
            **self.before, "__SEQUENCE_ID": step.sequence_id, "__PRIOR_STEP": step.action
        }  # fmt: skip
        row = BurrState(
            partition_key=PARTITION_KEY,
            app_id=str(self.run.pk),
            sequence_id=step.sequence_id,
            position=step.action,
            status="failed" if failed else "completed",
        )
        row.state = stored_text(state)  # in the order the log holds it, as a fork reads it
        edge = None
        if self.previous is not None:
            edge = Edge(
                run=self.run,
                sequence_id=step.sequence_id,
                from_node=self.previous,
                to_node=step.action,
                condition=self.source.conditions.get((self.previous, step.action), "default"),
            )
        self._rows.append((node, row, edge))
        self.previous, self.last_seq = step.action, step.sequence_id
        if after is not None:
            self.before = after
        self.failed = step if failed else None
        self.added += 1
        if len(self._rows) >= BATCH:
            self.flush()

    def _turn(self, step: Step) -> None:
        """Place ``step`` in a turn: the first step, one that received runtime inputs (the
        program's next ``app.run(inputs=…)``) and any visit of an action that began a turn
        begin one; any other step goes on with the turn of the step before it."""
        inputs = _runtime(step)
        if self.turn >= 0 and not inputs and step.action not in self.starters:
            if self.previous is not None:
                self.inner.add(self.previous)
            return
        if self.turn >= 0 and self.previous is not None:
            self.enders.add(self.previous)
        if inputs:
            self.starters.add(step.action)
        self.turn += 1
        self.turns[self.turn :] = [{"inputs": inputs} if inputs else NO_INPUTS]

    def halts(self, *, ended: bool = True) -> dict[str, Any]:
        """Where a fork's turns end: before an action that began a turn; after one that
        ended a turn and never ran inside one; else, for the last turn, after as many steps
        as the source ran (a loop the program stepped itself has no other end). The last
        step ended its turn only if the program stopped there (``ended``), not if it raised
        or the log ends inside the step after it: a fork of a failed run goes on past it."""
        enders = (self.enders | {self.previous or ""}) if ended else self.enders
        halt: dict[str, Any] = {
            "after": sorted(enders - self.inner - {""}),
            "before": sorted(self.starters),
        }
        if self.previous in self.inner:
            halt["steps"] = self.last_seq + 1
        return halt

    def _turn_ended(self, open_step: Step | None) -> bool:
        """Whether the last step written ended its turn: the program stopped after it, or
        the step the log ends inside begins the next turn — not if the last step raised."""
        if self.failed is not None:
            return False
        return open_step is None or bool(_runtime(open_step)) or open_step.action in self.starters

    def _inputs(self, step: Step, action: Action) -> dict[str, Any]:
        """As ``recorder.step_inputs``: its turn, runtime inputs, what it read."""
        recorded: dict[str, Any] = {
            "turn": self.turn,
            "inputs": _runtime(step),
            "reads": {k: self.before[k] for k in action.reads if k in self.before},
        }
        prior = {
            k: self.before[k] for k in action.writes if k not in action.reads and k in self.before
        }
        if prior:
            recorded["prior"] = prior
        return recorded

    def flush(self) -> None:
        if not self._rows:
            return
        nodes, rows, edges = zip(*self._rows, strict=True)
        Node.objects.bulk_create(nodes)
        # A step's row time is when it ended in Burr (the timeline and the OpenTelemetry
        # export place a step by it), not when it was imported: auto_now_add set the latter.
        ended = [n for n in nodes if getattr(n, "ended_at", None) is not None]
        for node in ended:
            node.created_at = node.ended_at
        Node.objects.bulk_update(ended, ["created_at"], batch_size=BATCH)
        BurrState.objects.bulk_create(rows)
        Edge.objects.bulk_create([e for e in edges if e is not None])
        self._rows = []

    def finish(self, *, open_step: Step | None = None, following: bool = False) -> None:
        """The run's status and times, once every step is written: completed, failed (its
        last step raised), running (``following`` a step still open) or interrupted (the log
        ends inside a step: its process stopped, or still runs)."""
        self.flush()
        run = self.run
        if run is None or (not self.added and open_step is None and run.is_finished):
            return  # nothing new: an import of the same source changes nothing
        fields: dict[str, Any] = {
            "turns": self.turns,
            "halt": self.halts(ended=self._turn_ended(open_step)),
            "heartbeat_at": timezone.now(),
        }
        warnings = list(run.warnings)
        if self.llm_steps == 0 and NO_CALLS not in warnings:
            warnings.append(NO_CALLS)
        elif self.llm_steps and NO_CALLS in warnings:
            warnings.remove(NO_CALLS)
        fields["warnings"] = warnings
        self.finished = open_step is None or not following
        if open_step is not None:
            status = Run.Status.RUNNING if following else Run.Status.INTERRUPTED
            error = "" if following else (
                f"the log ends inside step {open_step.sequence_id} ({open_step.action}): its "
                "program stopped there, or is still running (import it with --follow)"
            )  # fmt: skip
            finished = None
        elif self.failed is not None:
            status, finished = Run.Status.FAILED, _aware(self.ended)
            error = f"{self.failed.action}: {_last_line(self.failed.exception or '')}"
        else:
            status, finished, error = Run.Status.COMPLETED, _aware(self.ended), ""
        hashes = (
            run.nodes.order_by("sequence_id")
            .values_list("output_sha256", flat=True)
            .iterator(chunk_size=2000)
        )
        Run.objects.filter(pk=run.pk).update(
            status=status,
            error=storable_text(redact_text(error))[:2000],
            finished_at=finished or run.finished_at,
            trajectory_sha256=trajectory_sha256(hashes) if status == Run.Status.COMPLETED else "",
            **fields,
        )


def _runtime(step: Step) -> dict[str, Any]:
    """The runtime inputs ``step`` received (Burr's own ``__`` inputs are not the program's),
    credentials redacted by the capture's rules (an ``api_key`` input is never kept: a fork of
    the run is handed ``[redacted]`` for it)."""
    return redact_body({k: v for k, v in step.inputs.items() if not k.startswith("__")})


def _state_after(node: Node) -> dict[str, Any]:
    """The semantic state ``node`` left: the state row of the run that executed it."""
    row = BurrState.objects.filter(
        partition_key=PARTITION_KEY, app_id=str(node.src_run_id), sequence_id=node.src_sequence_id
    ).first()
    return semantic(json.loads(row.state)) if row is not None else {}


def _latency(step: Step) -> float:
    if step.started and step.ended:
        return round(max((step.ended - step.started).total_seconds(), 0) * 1000, 3)
    return 0.0


def _spans(step: Step) -> list[dict[str, Any]]:
    spans = [s.as_json() for s in step.spans]
    for span in spans:
        span["attributes"] = clean_attributes(span["attributes"])
    if step.attributes:
        spans.insert(0, Span(id="", parent=None, name=step.action).as_json())
        spans[0]["attributes"] = clean_attributes(step.attributes)
    return spans


def _llm_fields(calls: list[dict[str, Any]]) -> dict[str, Any]:
    if not calls:
        return {}
    costs = [c["cost_usd"] for c in calls]
    return {
        "model_requested": calls[0]["model_requested"][:200],
        "model_answered": calls[0]["model_answered"][:200],
        "temperature": calls[0]["temperature"],
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "completion_tokens": sum(c["completion_tokens"] for c in calls),
        "total_tokens": sum(c["total_tokens"] for c in calls),
        "cost_usd": None if None in costs else sum((Decimal(c) for c in costs), Decimal(0)),
    }


def _completion_text(call: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in call.get("completion") or [])


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "raised"


def write_steps(source: Source, steps: Iterable[Step], *, following: bool = False) -> RunWriter:
    """Write ``steps`` of ``source`` in one transaction; the writer tells what it did."""
    with transaction.atomic():
        writer = RunWriter(source)
        open_step = None
        for step in steps:
            if not step.finished:
                open_step = step
                break
            writer.add(step)
        writer.finish(open_step=open_step, following=following)
    return writer
