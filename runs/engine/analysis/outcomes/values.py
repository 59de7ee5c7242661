"""The values of a run's outcomes, computed when the run is shown.

Nothing is stored per run: a step's output and every state snapshot are already stored, so an
outcome is a lookup. ``step.leaf`` reads the **last** visit of that step (``step#k.leaf`` the
k-th, from 1); ``state.leaf`` reads the final state — the Burr state row the run's last step
left, found under the run and step that really executed it (``src_run``/``src_sequence_id``:
an inherited step's row is its executor's).

A leaf that is not there is a value of its own (``missing``, with why), never an error: on a
finished run it fails its check; on a run still going it is pending (``pass`` null).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Case, F, OuterRef, Q, Subquery, Value, When

from runs.engine.analysis.leaves import MISSING, leaf_at
from runs.engine.analysis.outcomes.checks import Check, RefusedCheck
from runs.engine.analysis.outcomes.declared import (
    DASHBOARD,
    Outcome,
    declared,
    outcome_from_json,
)
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import OutcomeError, PipelineError
from runs.engine.forking.overrides import state_key, states_after
from runs.models import Node, Run
from runs.models import Outcome as OutcomeRow


@dataclass(frozen=True)
class OutcomeValue:
    """One outcome of one run: its ``value`` (None when ``missing``), whether it ``passed``
    its check (None: no check, a run still going that has not produced it yet, or an
    ``error``: the check could not be evaluated) and ``why`` — what failed, why the value is
    missing, or why the check could not be evaluated."""

    outcome: Outcome
    value: Any
    passed: bool | None
    missing: bool = False
    why: str = ""
    error: bool = False  # its check could not be evaluated on this value (``why`` says how)

    @property
    def name(self) -> str:
        return self.outcome.name

    @property
    def check(self) -> Check | None:
        return self.outcome.check

    @property
    def value_text(self) -> str:
        if self.missing:
            return "—"
        return self.value if isinstance(self.value, str) else json.dumps(self.value)

    def as_json(self) -> dict[str, Any]:
        """``{name, value, pass}`` (the contract), plus where it is read, its check, and
        whether and why it is missing or failed."""
        return {
            "name": self.name,
            "value": self.value,
            "pass": self.passed,
            "path": self.outcome.path,
            "check": self.check.as_json() if self.check else None,
            "missing": self.missing,
            "error": self.error,
            "why": self.why or None,
        }


# --- which outcomes a pipeline has -------------------------------------------------------


def pipeline_spec(pipeline: str) -> Any | None:
    try:
        return get_pipeline(pipeline)
    except PipelineError:
        return None  # a pipeline no longer registered: its dashboard outcomes still read


def row_outcome(row: OutcomeRow) -> Outcome:
    check = {row.check_kind: row.check_argument} if row.check_kind else None
    outcome = outcome_from_json({"name": row.name, "path": row.path, "check": check}, DASHBOARD)
    return Outcome(outcome.name, outcome.path, outcome.check, DASHBOARD, row.pk)


def refused_row_outcome(row: OutcomeRow, reason: str) -> Outcome | None:
    """A dashboard row whose check the parser refuses now, as an outcome whose check marks it
    ``error`` (``RefusedCheck``); None when its name or path is refused too (not shown)."""
    try:
        check = RefusedCheck(row.check_kind, row.check_argument, reason=reason)
        return Outcome(row.name, row.path, check, DASHBOARD, row.pk)
    except OutcomeError:
        return None


def outcomes_by_pipeline(pipelines: Iterable[str]) -> dict[str, tuple[Outcome, ...]]:
    """Every outcome of each pipeline: declared (code, then ``REWIND_OUTCOMES``) and added on
    the dashboard, a declared name shadowing a row of the same name. One query."""
    names = sorted(set(pipelines))
    found = {name: {o.name: o for o in declared(name, pipeline_spec(name))} for name in names}
    for row in OutcomeRow.objects.filter(pipeline__in=names).order_by("created_at", "id"):
        try:
            outcome = row_outcome(row)
        except OutcomeError as exc:
            # A row older than the rule that refuses it: shown, marked error, removable.
            outcome = refused_row_outcome(row, str(exc))
            if outcome is None:
                continue
        found[row.pipeline].setdefault(outcome.name, outcome)
    return {name: tuple(by_name.values()) for name, by_name in found.items()}


def outcomes_for(pipeline: str) -> tuple[Outcome, ...]:
    return outcomes_by_pipeline([pipeline])[pipeline]


# --- reading them ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StepRef:
    """What choosing a visit needs of a step (no values)."""

    pk: int
    name: str
    sequence_id: int
    status: str
    src_run_id: int
    src_sequence_id: int


def _visit(steps: Sequence[StepRef], outcome: Outcome) -> StepRef | str:
    """The step ``outcome`` reads, or why there is none."""
    path = outcome.parsed
    visits = [s for s in steps if s.name == path.step]
    if not visits:
        return f"step {path.step} did not run"
    if path.visit is None:
        return visits[-1]
    if path.visit > len(visits):
        return f"step {path.step} ran {len(visits)} time(s), not {path.visit}"
    return visits[path.visit - 1]


def read(
    outcome: Outcome,
    steps: Sequence[StepRef],
    outputs: dict[int, Any],
    state: dict[str, Any] | None,
    finished: bool,
) -> OutcomeValue:
    """``outcome``'s value in a run whose ``steps`` are given in order, with the ``outputs``
    (by step pk) of the steps it reads and its final ``state`` (None: no state row)."""
    path = outcome.parsed
    base: Any = MISSING
    if path.step is None:
        where = "state"
        if state is not None:
            base = state
        else:
            why = "no state yet" if not steps else "no state row for the last step"
    else:
        where = path.step if path.visit is None else f"{path.step}#{path.visit}"
        step = _visit(steps, outcome)
        if isinstance(step, str):
            why = step
        elif step.status != Node.Status.COMPLETED:
            why = f"step {where} failed"
        else:
            base = outputs.get(step.pk)
    if base is not MISSING:
        value, why = leaf_at(base, path.leaf)
        if value is not MISSING:
            if outcome.check is None:
                return OutcomeValue(outcome, value, None)
            try:
                passed, failed = outcome.check.judge(value)
            except OutcomeError as exc:  # a stored check refused now (``RefusedCheck``)
                why = f"the check is refused: {exc}"
                return OutcomeValue(outcome, value, None, error=True, why=why)
            except Exception as exc:  # noqa: BLE001 — a check marks its outcome, never the page
                why = f"the check could not be evaluated ({type(exc).__name__})"
                return OutcomeValue(outcome, value, None, error=True, why=why)
            return OutcomeValue(outcome, value, passed, why=failed)
        why = f"{where}: {why}"
    # Missing. A run still going may yet produce it; a finished one did not.
    passed = None if outcome.check is None or not finished else False
    return OutcomeValue(outcome, None, passed, missing=True, why=f"missing: {why}")


def _refs(nodes: Iterable[Node]) -> list[StepRef]:
    return [
        StepRef(n.pk, n.name, n.sequence_id, n.status, n.src_run_id, n.src_sequence_id)
        for n in nodes
    ]


def evaluate(
    run: Run, steps: Sequence[Node] | None = None, outcomes: Sequence[Outcome] | None = None
) -> list[OutcomeValue]:
    """``run``'s outcomes. ``steps``, the run's steps in order with their outputs, may be
    passed when the caller has them (``run_json`` does); then at most two queries: the
    dashboard's outcomes and, for ``state.`` outcomes, the final state."""
    if outcomes is None:
        outcomes = outcomes_for(run.pipeline)
    if not outcomes:
        return []
    if steps is None:
        return evaluate_runs([run], {run.pipeline: tuple(outcomes)})[run.pk]
    refs = _refs(steps)
    outputs = {n.pk: n.output for n in steps if any(o.parsed.step == n.name for o in outcomes)}
    state = None
    if steps and any(o.parsed.step is None for o in outcomes):
        state = states_after([steps[-1]]).get(state_key(steps[-1]))
    return [read(o, refs, outputs, state, run.is_finished) for o in outcomes]


def evaluate_runs(
    runs: Sequence[Run], outcomes: dict[str, tuple[Outcome, ...]] | None = None
) -> dict[int, list[OutcomeValue]]:
    """The outcomes of many runs (a page of the runs list) in a bounded number of queries,
    whatever their number or length: the dashboard's outcomes (one), the steps the outcomes
    name and each run's last step, with the outputs of the visits read (one), the final
    states (one, when an outcome reads the state)."""
    if outcomes is None:
        outcomes = outcomes_by_pipeline(run.pipeline for run in runs)
    wanted = [run for run in runs if outcomes.get(run.pipeline)]
    result: dict[int, list[OutcomeValue]] = {run.pk: [] for run in runs}
    if not wanted:
        return result
    names = {o.parsed.step for run in wanted for o in outcomes[run.pipeline]} - {None}
    needs_state = any(o.parsed.step is None for run in wanted for o in outcomes[run.pipeline])
    # One query for the steps: every visit of a named step and each run's last step, without
    # values, but for the output of each named step's last visit (and of every visit of a
    # step an outcome reads by ``#k``): a loop's hundred earlier visits cost no bytes.
    k_names = {o.parsed.step for r in wanted for o in outcomes[r.pipeline] if o.parsed.visit}
    last_of_run = Node.objects.filter(run_id=OuterRef("run_id")).order_by("-sequence_id")
    last_visit = last_of_run.filter(name=OuterRef("name"))
    which = Q(name__in=names)
    if needs_state:
        which |= Q(sequence_id=Subquery(last_of_run.values("sequence_id")[:1]))
    read_value = Q(name__in=k_names) | Q(
        name__in=names, sequence_id=Subquery(last_visit.values("sequence_id")[:1])
    )
    rows = (
        Node.objects.filter(which, run_id__in=[run.pk for run in wanted])
        .annotate(body=Case(When(read_value, then=F("output_blob__body")), default=Value(None)))
        .order_by("run_id", "sequence_id")
        .values_list(
            "pk", "name", "sequence_id", "status", "src_run_id", "src_sequence_id", "run_id", "body"
        )
    )
    steps: dict[int, list[StepRef]] = {run.pk: [] for run in wanted}
    outputs: dict[int, Any] = {}
    for *fields, run_id, body in rows:
        steps[run_id].append(StepRef(*fields))
        if body is not None:
            outputs[fields[0]] = json.loads(body)
    states: dict[tuple[int, int], dict] = {}
    if needs_state:
        states = states_after(s[-1] for s in steps.values() if s)
    for run in wanted:
        run_steps = steps[run.pk]
        named = [s for s in run_steps if s.name in names]
        state = states.get(state_key(run_steps[-1])) if run_steps else None
        result[run.pk] = [
            read(o, named if o.parsed.step else run_steps, outputs, state, run.is_finished)
            for o in outcomes[run.pipeline]
        ]
    return result
