"""Counterfactual bisect: which step of BAD, given GOOD's output instead, flips an outcome — an
answer verified by forks, never assumed.

Two runs of one pipeline disagree on an outcome. The predicate ``P(i)``: BAD forked at its
aligned step ``i`` with GOOD's output swapped in — at that step alone — flips the outcome to
GOOD's value; such a step is *decisive*. The swap is an ordinary fork — ``output`` for a
declared node; for a Burr app's step, ``writes.KEY`` for each key it declares that differs
between the two runs, one fork per key, each a fork of the one before at the same step (a fork
changes one field; a fork of a fork keeps its parent's override of another field at that
step), the last one probed.

Candidates are the aligned steps both runs have, whose outputs differ (an equal output swaps
nothing: skipped without a fork), up to the step the outcome reads (a later step cannot change
an output already recorded). Swapping that step's own output gives the outcome GOOD's value by
construction (``by_construction``): a true answer, and a useless one unless no earlier step
flips it, so it is confirmed with a fork only when it is the answer.

The answer is what the probes show. ``step``: the earliest step whose swap alone flipped the
outcome, with the fork that did it (``verified``); ``exact``: no earlier candidate is untried;
``decisive``: every step whose swap alone flipped it, in order; ``monotone``: false when a probe
that flips is followed by one that does not (``why`` names them), true only when every
candidate is known and none is, null (unknown) otherwise; ``unknown``: the candidates the
budget left untried. A bisect asked again with the same budget makes the same probes.

When every candidate is known and none flips alone — the step the outcome reads aside, which
flips by construction — ``no_single_step`` is true: the outcome needs several steps' outputs
together. Pairs of candidates are then swapped together (a fork at the earlier step, then a
fork of it at the later one: ``PairProbe``) in ``pair_order`` while the budget lasts, until one
flips it (``together``); the pairs tried, and how many were not, are part of the answer.

The forks themselves — the order they are spent in (a binary search and its verification,
then every candidate untried, then pairs, within a budget: ``default_budget``), made, executed
and probed — are a set of runs: ``runs.engine.run_sets.bisect``. This module plans a bisect and
reads what its probes show.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runs.engine.analysis.diff import align, diff_values
from runs.engine.analysis.outcomes.declared import Outcome
from runs.engine.analysis.outcomes.values import OutcomeValue, evaluate, outcomes_for
from runs.engine.apps.burr import ActionSpec, BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import Pipeline
from runs.engine.errors import BisectError
from runs.lib.hashing import canonical_json
from runs.models import Node, Run

# Forks beyond a binary search that the default budget gives its verification (default_budget).
VERIFICATION_FORKS = 2


@dataclass(frozen=True)
class Swap:
    """One field of BAD's step set to GOOD's value."""

    field: str
    value: Any


@dataclass(frozen=True)
class Candidate:
    """An aligned step whose outputs differ: GOOD's, BAD's, and the swaps that give BAD
    GOOD's output there."""

    index: int  # its place among the plan's candidates
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

    @property
    def cost(self) -> int:
        """The forks its probe takes: one per swap."""
        return len(self.swaps)

    def as_json(self) -> dict[str, Any]:
        return {"node": self.node, "sequence_id": self.sequence_id}

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
    # The app, resolved once: every probe's fork executes with it.
    app: Pipeline | BurrApp | None = field(default=None, repr=False, compare=False)

    def flips(self, value: OutcomeValue) -> bool:
        """A probe's outcome is GOOD's: the swap flipped it."""
        return _key(value) == _key(self.good_value)

    def unmoved(self, value: OutcomeValue) -> bool:
        """A probe's outcome is still BAD's: the swap did not move it at all."""
        return _key(value) == _key(self.bad_value)

    @property
    def by_construction(self) -> Candidate | None:
        """The step the outcome reads, whose swap flips it by construction (None: the outcome
        reads the final state)."""
        return self.candidates[-1] if self.last_by_construction else None

    @property
    def all_forks(self) -> int:
        """The forks that try every candidate."""
        return sum(c.cost for c in self.candidates)


@dataclass(frozen=True)
class Probe:
    candidate: Candidate
    forks: tuple[int, ...]  # the chain of forks, the last one probed
    flips: bool
    value: OutcomeValue
    reused: bool  # every fork of the chain existed before this bisect

    def as_json(self) -> dict[str, Any]:
        return {**self.evidence(), "flips": self.flips, "reused": self.reused}

    def evidence(self) -> dict[str, Any]:
        """The step, its forks (the last one judged) and the outcome it got there."""
        return {
            **self.candidate.as_json(),
            "forks": list(self.forks),
            "value": None if self.value.missing else self.value.value,
        }


@dataclass(frozen=True)
class PairProbe:
    """Two candidates swapped together: the chain of ``first``'s probe, then ``second``'s swaps
    as forks of its last fork (the earlier step first: a fork at a later step keeps what the
    fork it is made of did before it)."""

    first: Candidate
    second: Candidate
    forks: tuple[int, ...]  # first's probe's forks, then those on top of it; the last judged
    added: int  # the forks on top of first's probe: what the pair costs the budget
    flips: bool
    value: OutcomeValue
    reused: bool  # the forks on top existed before this bisect
    # Why the two could not be swapped together ("": they were), e.g. first's fork has no
    # such step where BAD had it; nothing is made for it.
    skipped: str = ""

    @property
    def steps(self) -> tuple[Candidate, Candidate]:
        return (self.first, self.second)

    @property
    def label(self) -> str:
        return f"{self.first.label} and {self.second.label}"

    @property
    def on_top_of(self) -> int:
        """The last fork of ``first``'s probe: the run the pair's own forks are made from."""
        return self.forks[len(self.forks) - self.added - 1]

    def as_json(self) -> dict[str, Any]:
        return {
            "steps": [self.first.as_json(), self.second.as_json()],
            "forks": list(self.forks),
            "on_top_of": self.on_top_of,
            "flips": self.flips,
            "value": None if self.value.missing else self.value.value,
            "reused": self.reused,
            "skipped": self.skipped or None,
        }


@dataclass
class Result:
    """What the probes show: the step named (the earliest whose swap alone flipped the outcome),
    every step that did, which steps are untried, whether the flip is monotone (None: unknown),
    and, when no single step decides it, the pairs swapped together."""

    plan: Plan
    step: Candidate | None
    probes: list[Probe]  # in the order they were made
    monotone: bool | None
    budget: int
    why: str = ""
    pending: Candidate | None = None  # ``replay``: the step whose fork is not finished yet
    # Forks the binary search and its confirmation took (None: the budget ran out first) —
    # what naming a step of a monotone flip costs; the forks after it check the answer.
    searched: int | None = None
    pairs: list[PairProbe] = field(default_factory=list)  # in the order they were made

    @property
    def forks(self) -> list[int]:
        """Every fork this bisect's probes and pairs took, each once, in the order made."""
        alone = [pk for probe in self.probes for pk in probe.forks]
        on_top = [pk for pair in self.pairs for pk in pair.forks[len(pair.forks) - pair.added :]]
        return alone + on_top

    @property
    def spent(self) -> int:
        """Forks this bisect's probes took, reused or made (what the budget counts)."""
        return len(self.forks)

    @property
    def made(self) -> int:
        """Forks this bisect made (not reused)."""
        return sum(len(p.forks) for p in self.probes if not p.reused) + sum(
            p.added for p in self.pairs if not p.reused
        )

    @property
    def by_construction(self) -> Candidate | None:
        return self.plan.by_construction

    @property
    def decisive(self) -> list[Probe]:
        """Every step whose swap alone flipped the outcome, in trajectory order."""
        return sorted((p for p in self.probes if p.flips), key=lambda p: p.candidate.index)

    @property
    def verified(self) -> Probe | None:
        """The probe that confirms the step named: a fork swapping that step alone."""
        if self.step is None:
            return None
        return next((p for p in self.probes if p.candidate.index == self.step.index), None)

    @property
    def unknown(self) -> list[Candidate]:
        """The candidates no probe tried — but the step that flips by construction once an
        earlier step was found to flip: it is known, and not the answer."""
        tried = {p.candidate.index for p in self.probes}
        last = self.by_construction
        if last is not None and any(p.flips for p in self.probes):
            tried.add(last.index)
        return [c for c in self.plan.candidates if c.index not in tried]

    @property
    def exact(self) -> bool:
        """The step named is the earliest decisive step: every earlier candidate was tried."""
        if self.step is None or self.pending is not None:
            return False
        return all(c.index > self.step.index for c in self.unknown)

    @property
    def no_single_step(self) -> bool | None:
        """True: every candidate was tried and none flips the outcome alone (the step it reads
        aside: by construction); False: one does, or the step it reads is the only one that
        differs (it decides); None: none tried does, and some are untried."""
        last = self.by_construction
        if any(p.flips for p in self.probes if last is None or p.candidate.index != last.index):
            return False
        if last is not None and len(self.plan.candidates) == 1:
            return False
        if self.pending is not None or self.unknown:
            return None
        return True

    @property
    def together(self) -> PairProbe | None:
        """The pair whose swap together flipped the outcome (the search stops at the first)."""
        return next((p for p in self.pairs if p.flips), None)

    @property
    def pairs_untried(self) -> list[tuple[Candidate, Candidate]]:
        """When no single step decides it and no pair tried flips it: the pairs not tried."""
        if self.no_single_step is not True or self.together is not None:
            return []
        tried = {(p.first.index, p.second.index) for p in self.pairs}
        known = {p.candidate.index: p for p in self.probes}
        return [(a, b) for a, b in pair_order(self.plan, known) if (a.index, b.index) not in tried]

    @property
    def no_single_step_why(self) -> str:
        """The finding in words when no single step decides it ("" otherwise)."""
        if self.no_single_step is not True:
            return ""
        name = self.plan.outcome.name
        said = f"no single step decides {name}"
        if (pair := self.together) is not None:
            return f"{said}: swapping {pair.label} together flips it"
        untried = len(self.pairs_untried)
        if not self.pairs:
            if not untried:
                return f"{said}, and there is no pair of steps to swap together"
            return (
                f"{said}; no pair of steps tried together within the budget of {self.budget} "
                f"forks ({untried} pair{'s' * (untried != 1)} to try)"
            )
        tried = len(self.pairs)
        said += f"; {tried} pair{'s' * (tried != 1)} tried together, none flips it"
        if untried:
            said += f"; {untried} not tried within the budget of {self.budget} forks"
        return said

    @property
    def budget_for_the_rest(self) -> int:
        """The budget a bisect asked again needs to try every candidate still untried — and,
        when no single step decides it, every pair not yet tried."""
        rest = sum(c.cost for c in self.unknown)
        rest += sum(b.cost for _, b in self.pairs_untried)
        return self.spent + rest

    def as_json(self) -> dict[str, Any]:
        """The contract — ``step`` (``{node, sequence_id}``: BAD's step), ``leaves``,
        ``forks``, ``monotone`` (true, false, null: unknown) — plus the runs, the outcome's two
        values, each probe, why it is not (or not known to be) monotone, the candidates
        counted, and the verification: the fork that confirms the step (``verified``), every
        step whose swap alone flips the outcome (``decisive``), whether the step is the
        earliest (``exact``), the step that flips it by construction, the budget and the forks
        spent, the candidates left untried (``unknown``) and the budget that tries them
        (``budget_for_the_rest``); and whether no single step decides it (``no_single_step``),
        the pairs swapped together (``pairs``), the pair that flips it (``together``) and the
        pairs left untried (``pairs_untried``)."""
        plan = self.plan
        verified = self.verified
        last = self.by_construction
        together = self.together
        return {
            "step": self.step.as_json() if self.step else None,
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
            "pending": self.pending.as_json() if self.pending else None,
            "verified": verified.evidence() if verified else None,
            "decisive": [p.evidence() for p in self.decisive],
            "exact": self.exact,
            "by_construction": last.as_json() if last else None,
            "budget": self.budget,
            "spent": self.spent,
            "unknown": [c.as_json() for c in self.unknown],
            "budget_for_the_rest": self.budget_for_the_rest,
            "no_single_step": self.no_single_step,
            "no_single_step_why": self.no_single_step_why or None,
            "together": [c.as_json() for c in together.steps] if together else None,
            "pairs": [p.as_json() for p in self.pairs],
            "pairs_untried": len(self.pairs_untried),
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
        candidates.append(Candidate(len(candidates), g, b, swaps))
        last_by_construction = b is read_bad and g is read_good
    if not candidates:
        raise BisectError(
            f"runs {good.pk} and {bad.pk} differ on {outcome.name} but no step before it has "
            "an output that can be swapped" + (f" ({'; '.join(skipped)})" if skipped else "")
        )
    return Plan(
        good, bad, outcome, good_value, bad_value, tuple(candidates), last_by_construction,
        tuple(skipped), app=spec,
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


def swaps_onto(plan: Plan, candidate: Candidate, node: Node) -> tuple[Swap, ...]:
    """The swaps that give ``node`` — ``candidate``'s step in a fork, whose output the forks
    before it may have changed from BAD's — GOOD's output there (none: it has it already)."""
    if node.output_sha256 and node.output_sha256 == candidate.good.output_sha256:
        return ()
    spec = plan.app if plan.app is not None else get_pipeline(plan.bad.pipeline)
    return _swaps(spec.node(candidate.node), candidate.good, node)


# --- what the probes show --------------------------------------------------------------------


def default_budget(candidates: int, widest: int = 1) -> int:
    """The forks a bisect may spend when not told: what a binary search over ``candidates``
    steps and its verification cost, ⌈log₂ n⌉ + 2 probes of at most ``widest`` forks each (a
    Burr step that wrote k differing keys takes k).

    The binary search takes ⌈log₂ n⌉ probes. The two more verify what it names: one is the
    named step's own fork (its swap alone flips the outcome), which the search did not make
    when it took the last candidate without a probe; the other stands for the step before it,
    shown not to flip — by the probe that moved the search's lower bound there, so it is
    always among the search's own when the step is not the first, and the fork is left for the
    earliest step not yet tried. On a monotone flip the step is then named and verified; the
    answer says which steps stayed untried (``unknown``: ``monotone`` stays unknown), and a
    larger budget (``Result.budget_for_the_rest``) tries them all, reusing the forks made."""
    probes = math.ceil(math.log2(candidates)) if candidates > 1 else 0
    return (probes + VERIFICATION_FORKS) * max(widest, 1)


def pair_order(plan: Plan, known: Mapping[int, Probe]) -> list[tuple[Candidate, Candidate]]:
    """The pairs of candidates to swap together, in the order tried: the step the outcome
    reads aside (it flips alone, by construction), first the pairs of steps whose swap alone
    moved the outcome off BAD's value (without reaching GOOD's: the probes' evidence that they
    matter), then those with one such step, then the rest — each group in trajectory order."""
    last = plan.by_construction
    steps = [c for c in plan.candidates if last is None or c.index != last.index]
    moved = {i for i, probe in known.items() if not probe.flips and not plan.unmoved(probe.value)}
    pairs = [(a, b) for n, a in enumerate(steps) for b in steps[n + 1 :]]
    return sorted(pairs, key=lambda p: -((p[0].index in moved) + (p[1].index in moved)))


def finding(
    plan: Plan,
    probes: list[Probe],
    budget: int,
    *,
    searched: int | None = None,
    pending: Candidate | None = None,
    pairs: Sequence[PairProbe] = (),
) -> Result:
    """What ``probes`` (in the order they were made, within ``budget`` forks; ``searched``: the
    forks the binary search and its confirmation took) and ``pairs`` show — the step named, the
    steps that flip, whether the flip is monotone, whether no single step decides it — or,
    ``pending``, what is known while ``replay`` waits for that step's fork."""
    result = Result(
        plan, None, probes, None, budget, pending=pending, searched=searched, pairs=list(pairs)
    )
    if pending is not None:
        return result
    known = {p.candidate.index: p for p in probes}
    flips = {i: p.flips for i, p in known.items()}
    if plan.last_by_construction:
        flips.setdefault(len(plan.candidates) - 1, True)
    name = plan.outcome.name
    decisive = sorted(i for i, p in known.items() if p.flips)
    if decisive:
        result.step = plan.candidates[decisive[0]]
    unknown = result.unknown
    broken = next(
        (
            (j, k)
            for j in sorted(flips)
            if flips[j]
            for k in sorted(flips)
            if k > j and not flips[k]
        ),
        None,
    )
    if broken is not None:
        j, k = (plan.candidates[i].label for i in broken)
        result.monotone = False
        result.why = f"not monotone: swapping {j} flips {name} but swapping {k} after it does not"
    elif not unknown:
        if any(flips.values()):
            result.monotone = True
        else:  # no flip to be monotone about: ``no_single_step`` says what there is
            result.why = f"no step's swap alone flips {name}"
    if unknown:
        untried = (
            f"{len(unknown)} of {len(plan.candidates)} differing steps not tried within the "
            f"budget of {budget} forks ({result.spent} spent)"
        )
        if result.step is None:
            untried = f"no step tried flips {name}; " + untried
        result.why = "; ".join(filter(None, [result.why, untried]))
    return result


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
