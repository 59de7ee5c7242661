"""Counterfactual bisect: which step of BAD, given GOOD's output instead, flips an outcome.

Two runs of one pipeline disagree on an outcome. The predicate ``P(i)``: BAD forked at its
aligned step ``i`` with GOOD's output swapped in flips the outcome to GOOD's value. The swap is
an ordinary fork — ``output`` for a declared node; for a Burr app's step, ``writes.KEY`` for
each key it declares that differs between the two runs, one fork per key, each a fork of the
one before at the same step (a fork changes one field; a fork of a fork keeps its parent's
override of another field at that step), the last one probed.

Candidates are the aligned steps both runs have, whose outputs differ (an equal output swaps
nothing: skipped without a fork), up to the step the outcome reads (a later step cannot change
an output already recorded). Swapping that step's own output gives the outcome GOOD's value by
construction, so the search starts knowing ``P(last)``; it is checked with a fork only if it
is the answer (the reported step always has a fork that flips it).

Binary search for the earliest ``i`` with ``P(i)`` makes ⌈log₂ m⌉ forks for m candidates when
``P`` is monotone (false, then true from one step on). It then checks the step after the one
found, when no probe already did (within the same bound for 12 and 20 steps: the search leaves
it known exactly when it used its last probe). A flip followed by a step whose swap does not
flip is reported (``monotone`` false, ``why``), and the earlier candidates not yet probed are
then probed in order, so the step reported is exact: no earlier candidate's swap flips it.
``monotone`` true means no probe contradicted monotonicity, not that every step was tried.

Forks are opened, not always made (``open_fork``): a bisect asked again reuses every fork it
made. ``replay`` runs the same search over the forks that exist, making none — how the
dashboard shows a bisect a worker is making, or has made, without storing a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from runs.engine.analysis.diff import align, diff_values
from runs.engine.analysis.outcomes.declared import Outcome
from runs.engine.analysis.outcomes.values import OutcomeValue, evaluate, outcomes_for
from runs.engine.apps.burr import ActionSpec
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import BisectError, RewindError
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import Fork, Opened, existing_fork, open_fork, resolve_fork
from runs.lib.hashing import canonical_json
from runs.models import Node, Run

WAIT_SECONDS = 0.2  # how often a fork another process is executing is looked at again


@dataclass(frozen=True)
class Swap:
    """One field of BAD's step set to GOOD's value."""

    field: str
    value: Any


@dataclass(frozen=True)
class Candidate:
    """An aligned step whose outputs differ: GOOD's, BAD's, and the swaps that give BAD
    GOOD's output there."""

    good: Node
    bad: Node
    swaps: tuple[Swap, ...]

    @property
    def node(self) -> str:
        return self.bad.name

    @property
    def sequence_id(self) -> int:
        return self.bad.sequence_id

    @property
    def label(self) -> str:
        return f"{self.node} (step {self.sequence_id})"

    def leaves(self) -> list[dict[str, Any]]:
        """The leaves that differ here: ``{path, a, b}`` (a: GOOD's, b: BAD's), as the diff."""
        return [
            {"path": c["path"], "a": c["a"], "b": c["b"]}
            for c in diff_values(self.good.output, self.bad.output)
        ]


@dataclass(frozen=True)
class Plan:
    """A bisect resolved once: the runs, the outcome and its two values, the candidates."""

    good: Run
    bad: Run
    outcome: Outcome
    good_value: OutcomeValue
    bad_value: OutcomeValue
    candidates: tuple[Candidate, ...]
    last_by_construction: bool  # the last candidate is the step the outcome reads
    skipped: tuple[str, ...]  # differing steps no fork can swap (only one run has them, …)


@dataclass(frozen=True)
class Probe:
    candidate: Candidate
    forks: tuple[int, ...]  # the chain of forks, the last one probed
    flips: bool
    value: OutcomeValue
    reused: bool  # every fork of the chain existed before this bisect

    def as_json(self) -> dict[str, Any]:
        return {
            "node": self.candidate.node,
            "sequence_id": self.candidate.sequence_id,
            "forks": list(self.forks),
            "flips": self.flips,
            "value": None if self.value.missing else self.value.value,
            "reused": self.reused,
        }


@dataclass
class Result:
    plan: Plan
    step: Candidate | None
    probes: list[Probe]
    monotone: bool
    why: str = ""
    pending: Candidate | None = None  # ``replay``: the step whose fork is not finished yet

    @property
    def forks(self) -> list[int]:
        return [pk for probe in self.probes for pk in probe.forks]

    @property
    def made(self) -> int:
        """Forks this bisect made (not reused)."""
        return sum(len(p.forks) for p in self.probes if not p.reused)

    def as_json(self) -> dict[str, Any]:
        """The contract — ``step`` (``{node, sequence_id}``: BAD's step), ``leaves``,
        ``forks``, ``monotone`` — plus the runs, the outcome's two values, each probe, why
        it is not monotone, and the candidates counted."""
        plan = self.plan
        return {
            "step": (
                {"node": self.step.node, "sequence_id": self.step.sequence_id}
                if self.step
                else None
            ),
            "leaves": self.step.leaves() if self.step else [],
            "forks": self.forks,
            "monotone": self.monotone,
            "good": plan.good.pk,
            "bad": plan.bad.pk,
            "outcome": {
                "name": plan.outcome.name,
                "good": _shown(plan.good_value),
                "bad": _shown(plan.bad_value),
            },
            "probes": [p.as_json() for p in self.probes],
            "candidates": len(plan.candidates),
            "skipped": list(plan.skipped),
            "why": self.why or None,
            "pending": (
                {"node": self.pending.node, "sequence_id": self.pending.sequence_id}
                if self.pending
                else None
            ),
        }


def _shown(value: OutcomeValue) -> Any:
    return None if value.missing else value.value


def _key(value: OutcomeValue) -> tuple[bool, str]:
    return (value.missing, "" if value.missing else canonical_json(value.value))


# --- the plan ---------------------------------------------------------------------------------


def find_outcome(pipeline: str, name: str) -> Outcome:
    """``pipeline``'s outcome called ``name`` (declared or added on the dashboard)."""
    outcomes = outcomes_for(pipeline)
    for outcome in outcomes:
        if outcome.name == name:
            return outcome
    names = ", ".join(o.name for o in outcomes) or "none"
    raise BisectError(f"pipeline {pipeline} has no outcome {name!r}; its outcomes: {names}")


def plan_bisect(good: Run, bad: Run, outcome: Outcome | str) -> Plan:
    """Everything that can be wrong with a bisect, checked before any fork is made."""
    if good.pk == bad.pk:
        raise BisectError(f"GOOD and BAD are the same run ({good.pk}): bisect needs two runs")
    if good.pipeline != bad.pipeline:
        raise BisectError(
            f"runs {good.pk} ({good.pipeline}) and {bad.pk} ({bad.pipeline}) are of different "
            "pipelines: bisect compares two runs of one pipeline"
        )
    for run in (good, bad):
        if run.status != Run.Status.COMPLETED:
            raise BisectError(f"run {run.pk} is {run.status}: bisect needs two completed runs")
    if isinstance(outcome, str):
        outcome = find_outcome(good.pipeline, outcome)
    nodes_good = list(good.nodes.order_by("sequence_id"))
    nodes_bad = list(bad.nodes.order_by("sequence_id"))
    (good_value,) = evaluate(good, nodes_good, [outcome])
    (bad_value,) = evaluate(bad, nodes_bad, [outcome])
    if _key(good_value) == _key(bad_value):
        raise BisectError(
            f"runs {good.pk} and {bad.pk} agree on {outcome.name} "
            f"({good_value.value_text}): nothing to bisect"
        )
    spec = get_pipeline(bad.pipeline)
    read_good = _read_visit(nodes_good, outcome)
    read_bad = _read_visit(nodes_bad, outcome)
    candidates: list[Candidate] = []
    skipped: list[str] = []
    last_by_construction = False
    for i, j in align([n.name for n in nodes_good], [n.name for n in nodes_bad]):
        g = nodes_good[i] if i is not None else None
        b = nodes_bad[j] if j is not None else None
        if b is not None and read_bad is not None and b.sequence_id > read_bad.sequence_id:
            break  # after the step the outcome reads: its output is already recorded
        if g is None or b is None:
            present = b or g
            skipped.append(f"{present.name} (step {present.sequence_id}): only one run has it")
            continue
        if g.output_sha256 and g.output_sha256 == b.output_sha256:
            continue  # the same output: swapping it changes nothing
        if b.status != Node.Status.COMPLETED or g.status != Node.Status.COMPLETED:
            skipped.append(f"{b.name} (step {b.sequence_id}): a step that failed")
            continue
        swaps = _swaps(spec.node(b.name), g, b)
        if not swaps:
            skipped.append(
                f"{b.name} (step {b.sequence_id}): differs only in keys it does not declare"
            )
            continue
        candidates.append(Candidate(g, b, swaps))
        last_by_construction = b is read_bad and g is read_good
    if not candidates:
        raise BisectError(
            f"runs {good.pk} and {bad.pk} differ on {outcome.name} but no step before it has "
            "an output that can be swapped" + (f" ({'; '.join(skipped)})" if skipped else "")
        )
    return Plan(
        good, bad, outcome, good_value, bad_value, tuple(candidates), last_by_construction,
        tuple(skipped),
    )  # fmt: skip


def _read_visit(nodes: Sequence[Node], outcome: Outcome) -> Node | None:
    """The step ``outcome`` reads (None: it reads the final state, or the step did not run)."""
    path = outcome.parsed
    if path.step is None:
        return None
    visits = [n for n in nodes if n.name == path.step]
    if not visits:
        return None
    if path.visit is None:
        return visits[-1]
    return visits[path.visit - 1] if path.visit <= len(visits) else None


def _swaps(spec: Any, good: Node, bad: Node) -> tuple[Swap, ...]:
    """GOOD's output as overrides of BAD's step: ``output`` for a declared node; for a Burr
    step, ``writes.KEY`` for each key it declares whose value differs."""
    if not isinstance(spec, ActionSpec):
        return (Swap("output", good.output),)
    ours = good.output if isinstance(good.output, dict) else {}
    theirs = bad.output if isinstance(bad.output, dict) else {}
    return tuple(
        Swap(f"writes.{key}", ours.get(key))
        for key in spec.writes
        if canonical_json(ours.get(key)) != canonical_json(theirs.get(key))
    )


# --- probing ----------------------------------------------------------------------------------


class Pending(Exception):
    """``replay``: the fork a probe needs does not exist yet, or has not finished."""

    def __init__(self, candidate: Candidate) -> None:
        super().__init__(candidate.label)
        self.candidate = candidate


Opener = Callable[[Fork], Opened]


class Prober:
    """``P(candidate)``: open (or, read-only, find) the chain of forks that swaps GOOD's output
    into BAD there, execute what is queued, and compare the outcome with GOOD's."""

    def __init__(self, plan: Plan, opener: Opener | None = open_fork, wait: bool = True):
        self.plan, self.opener, self.wait = plan, opener, wait

    def __call__(self, candidate: Candidate) -> Probe:
        source, forks, reused = self.plan.bad, [], True
        for swap in candidate.swaps:
            run, was_there = self._fork(source, candidate, swap)
            forks.append(run.pk)
            reused = reused and was_there
            source = run
        (value,) = evaluate(source, None, [self.plan.outcome])
        flips = _key(value) == _key(self.plan.good_value)
        return Probe(candidate, tuple(forks), flips, value, reused)

    def _fork(self, source: Run, candidate: Candidate, swap: Swap) -> tuple[Run, bool]:
        try:
            fork = resolve_fork(
                source, str(candidate.sequence_id), swap.field, swap.value, from_text=False
            )
        except RewindError as exc:
            raise BisectError(f"cannot swap {swap.field} at {candidate.label}: {exc}") from None
        if self.opener is None:  # read-only: the fork must exist and have finished
            run = existing_fork(fork)
            if run is None or not run.is_finished:
                raise Pending(candidate)
            reused = True
        else:
            opened = self.opener(fork)
            run, reused = opened.run, opened.reused
            if run.status == Run.Status.QUEUED:
                run = execute_run(run.pk)
            while not run.is_finished and self.wait:  # another process is executing it
                time.sleep(WAIT_SECONDS)
                run.refresh_from_db()
        if run.status != Run.Status.COMPLETED:
            raise BisectError(
                f"fork {run.pk} (swap {swap.field} at {candidate.label}) {run.status}: "
                f"{run.error or 'no error recorded'}"
            )
        return run, reused


# --- the search -------------------------------------------------------------------------------


@dataclass
class _Search:
    plan: Plan
    prober: Callable[[Candidate], Probe]
    known: dict[int, Probe] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)

    def P(self, i: int) -> bool:
        if i not in self.known:
            self.known[i] = self.prober(self.plan.candidates[i])
            self.order.append(i)
        return self.known[i].flips

    def truth(self, i: int) -> bool:
        if i == len(self.plan.candidates) - 1 and self.plan.last_by_construction:
            if i not in self.known:
                return True  # the step the outcome reads: GOOD's output there is GOOD's value
        return self.P(i)

    def violation(self) -> tuple[int, int] | None:
        """A probed step that flips followed by a probed step that does not, if any."""
        flips = sorted(i for i, p in self.known.items() if p.flips)
        for j in flips:
            later = [k for k, p in self.known.items() if k > j and not p.flips]
            if later:
                return j, min(later)
        return None


def run_search(plan: Plan, prober: Callable[[Candidate], Probe]) -> Result:
    search = _Search(plan, prober)
    m = len(plan.candidates)
    found: int | None = None
    if search.truth(m - 1):
        lo, hi = 0, m - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if search.truth(mid):
                hi = mid
            else:
                lo = mid + 1
        found = lo
        if found + 1 < m and found + 1 not in search.known and found + 1 != m - 1:
            search.P(found + 1)  # a flip the step after does not keep: not monotone
        if not search.P(found):  # only the step the outcome reads was assumed: it is the answer
            found = None
    monotone = True
    why = ""
    if found is None:
        monotone = False
        why = f"swapping {plan.candidates[m - 1].label} does not flip {plan.outcome.name}"
    elif (broken := search.violation()) is not None:
        monotone = False
        j, k = broken
        why = (
            f"not monotone: swapping {plan.candidates[j].label} flips {plan.outcome.name} "
            f"but swapping {plan.candidates[k].label} after it does not"
        )
    if not monotone:
        # The earlier steps nobody probed, in order: the first that flips is the earliest.
        for i in range(found if found is not None else m):
            if i not in search.known and search.P(i):
                found = i
                break
        if found is None:
            forks = [pk for i in search.order for pk in search.known[i].forks]
            raise BisectError(
                f"no single step's output swapped from run {plan.good.pk} into run "
                f"{plan.bad.pk} flips {plan.outcome.name} (forks {', '.join(map(str, forks))})"
            )
    probes = [search.known[i] for i in search.order]
    return Result(plan, plan.candidates[found], probes, monotone, why)


def bisect(
    good: Run, bad: Run, outcome: Outcome | str, *, opener: Opener | None = open_fork
) -> Result:
    """Bisect in this process: forks opened with ``opener`` (``open_fork``, or the dashboard's
    ``open_within_budget`` for a user) and executed here."""
    plan = plan_bisect(good, bad, outcome)
    return run_search(plan, Prober(plan, opener))


def replay(good: Run, bad: Run, outcome: Outcome | str) -> Result:
    """The same search over the forks that exist, making none: the result when every fork it
    needs has finished, else what is known so far and the step it waits for (``pending``)."""
    plan = plan_bisect(good, bad, outcome)
    probes: list[Probe] = []

    def prober(candidate: Candidate) -> Probe:
        probe = Prober(plan, None)(candidate)
        probes.append(probe)
        return probe

    try:
        return run_search(plan, prober)
    except Pending as pending:
        return Result(plan, None, probes, True, pending=pending.candidate)


def differing(
    a: Run, b: Run, steps_a: Sequence[Node] | None = None, steps_b: Sequence[Node] | None = None
) -> list[tuple[OutcomeValue, OutcomeValue]]:
    """The outcomes two completed runs of one pipeline disagree on, each as (A's, B's): what
    the compare page offers to bisect. Nothing for runs of two pipelines or unfinished ones."""
    if a.pipeline != b.pipeline or not a.status == b.status == Run.Status.COMPLETED:
        return []
    outcomes = outcomes_for(a.pipeline)
    if not outcomes:
        return []
    values_a = evaluate(a, steps_a, outcomes)
    values_b = evaluate(b, steps_b, outcomes)
    return [(x, y) for x, y in zip(values_a, values_b, strict=True) if _key(x) != _key(y)]
