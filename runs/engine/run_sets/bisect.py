"""Bisect probes, a set of runs: the forks that swap GOOD's output into BAD one step at a time,
opened (or found), executed and judged, spent in the order below while a budget lasts. The
bisect is planned (``plan_bisect``: the candidates) and its result read (``finding``) by
``runs.engine.analysis.bisect``.

The forks are spent in this order, while a budget of forks lasts (``budget``; by default
``default_budget``: ⌈log₂ n⌉ + 2 for n candidates, what steps 1 and 2 cost):

1. A binary search for the earliest flip, taking the last candidate to flip without probing it
   (by construction, or as the search's hypothesis when the outcome reads the final state):
   ⌈log₂ n⌉ forks for n candidates. It finds the step a monotone flip (no flip before some
   step, a flip from there on) starts at — but it only ever probes its midpoints, and a step
   that decides while the steps after it do not carry its decision is never among them.
2. The step found is confirmed by its own fork, if no probe did already; when it is the step
   the outcome reads by construction, only after the earlier steps, if the budget lets them
   all be tried first (an earlier flip makes its fork unneeded). The step before it is known
   not to flip from step 1 (the probe that moved the search's lower bound there).
3. Every candidate not yet tried, in trajectory order.
4. When every candidate is known and none flips the outcome alone (the step it reads aside),
   pairs swapped together (``pair_order``), each a fork of the earlier step's probe at the
   later step, until one flips it.

Forks are opened, not always made (``open_fork``): a bisect asked again reuses every fork it
made, and one with a larger budget reuses them and goes on. ``replay`` runs the same search over
the forks that exist, making none — how the dashboard shows a bisect a worker is making, or has
made, without storing a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from runs.engine.analysis.bisect import (
    Candidate,
    PairProbe,
    Plan,
    Probe,
    Result,
    Swap,
    default_budget,
    finding,
    pair_order,
    plan_bisect,
    swaps_onto,
)
from runs.engine.analysis.outcomes.declared import Outcome
from runs.engine.analysis.outcomes.values import evaluate
from runs.engine.errors import BisectError, RewindError
from runs.engine.execution.runner import LoadedApp
from runs.engine.forking.forks import Fork, Opened, existing_fork, open_fork, resolve_fork
from runs.engine.run_sets.execution import execute
from runs.models import Node, Run

WAIT_SECONDS = 0.2  # how often a fork another process is executing is looked at again


class Pending(Exception):
    """``replay``: the fork a probe needs does not exist yet, or has not finished."""

    def __init__(self, candidate: Candidate) -> None:
        super().__init__(candidate.label)
        self.candidate = candidate


Opener = Callable[[Fork], Opened]


class Prober:
    """``P(candidate)``: open (or, read-only, find) the chain of forks that swaps GOOD's output
    into BAD there, execute what is queued (here, with the app the plan resolved once), and
    compare the outcome with GOOD's."""

    def __init__(self, plan: Plan, opener: Opener | None = open_fork, wait: bool = True):
        self.plan, self.opener, self.wait = plan, opener, wait
        self.app = LoadedApp(plan.bad.pipeline, plan.app) if plan.app is not None else None

    def __call__(self, candidate: Candidate) -> Probe:
        source, forks, reused = self._chain(self.plan.bad, candidate, candidate.swaps)
        (value,) = evaluate(source, None, [self.plan.outcome])
        return Probe(candidate, tuple(forks), self.plan.flips(value), value, reused)

    def on_top(self, base: Probe, second: Candidate) -> tuple[Swap, ...] | str:
        """The swaps that give ``base``'s last fork GOOD's output at ``second`` (none: it has
        it already), or why they cannot (the fork has no such step where BAD had it)."""
        fork = Run.objects.get(pk=base.forks[-1])
        node = fork.nodes.filter(sequence_id=second.sequence_id).first()
        if node is None or node.name != second.node or node.status != Node.Status.COMPLETED:
            return f"fork {fork.pk} has no completed step {second.label}"
        return swaps_onto(self.plan, second, node)

    def pair(self, base: Probe, second: Candidate, swaps: tuple[Swap, ...]) -> PairProbe:
        """``P(first, second)``: ``swaps`` at ``second`` as forks of ``base``'s last fork."""
        source = Run.objects.get(pk=base.forks[-1])
        source, forks, reused = self._chain(source, second, swaps)
        (value,) = evaluate(source, None, [self.plan.outcome])
        return PairProbe(
            base.candidate, second, (*base.forks, *forks), len(forks), self.plan.flips(value),
            value, reused,
        )  # fmt: skip

    def _chain(
        self, source: Run, candidate: Candidate, swaps: tuple[Swap, ...]
    ) -> tuple[Run, list[int], bool]:
        """Each swap a fork of the one before at ``candidate``'s step: the last fork, every
        fork's id, and whether all of them existed before."""
        forks, reused = [], True
        for swap in swaps:
            run, was_there = self._fork(source, candidate, swap)
            forks.append(run.pk)
            reused = reused and was_there
            source = run
        return source, forks, reused

    def _fork(self, source: Run, candidate: Candidate, swap: Swap) -> tuple[Run, bool]:
        try:
            fork = resolve_fork(
                source,
                str(candidate.sequence_id),
                swap.field,
                swap.value,
                from_text=False,
                pipeline=self.plan.app,
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
                run = self._execute(run)
            while not run.is_finished and self.wait:  # another process is executing it
                time.sleep(WAIT_SECONDS)
                run.refresh_from_db()
        if run.status != Run.Status.COMPLETED:
            raise BisectError(
                f"fork {run.pk} (swap {swap.field} at {candidate.label}) {run.status}: "
                f"{run.error or 'no error recorded'}"
            )
        return run, reused

    def _execute(self, run: Run) -> Run:
        executed = execute([run.pk], app=self.app)
        if executed.interrupted:  # Ctrl-C: the fork is withdrawn, and the bisect stops
            raise KeyboardInterrupt
        return executed.done[run.pk]


class _OutOfBudget(Exception):
    """The next probe would take more forks than the budget has left."""


@dataclass
class _Search:
    plan: Plan
    prober: Prober
    budget: int
    known: dict[int, Probe] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    pairs: list[PairProbe] = field(default_factory=list)
    spent: int = 0
    searched: int | None = None  # forks spent by the binary search and its confirmation

    def P(self, i: int) -> bool:
        if i not in self.known:
            candidate = self.plan.candidates[i]
            if self.spent + candidate.cost > self.budget:
                raise _OutOfBudget
            probe = self.prober(candidate)
            self.known[i] = probe
            self.order.append(i)
            self.spent += len(probe.forks)
        return self.known[i].flips

    def untried_cost(self, below: int) -> int:
        return sum(c.cost for c in self.plan.candidates[:below] if c.index not in self.known)

    def run(self) -> None:
        """The probes, in order, until every candidate is known or the budget runs out."""
        candidates = self.plan.candidates
        last = len(candidates) - 1
        construction = self.plan.last_by_construction
        # 1. The earliest flip if it is monotone, taking the last candidate to flip: no probe
        #    on it (by construction, or the hypothesis when the outcome reads the final state).
        lo, hi = 0, last
        while lo < hi:
            mid = (lo + hi) // 2
            if self.P(mid):
                hi = mid
            else:
                lo = mid + 1
        # 2. Confirm it: the step the outcome reads last of all, if the budget can try every
        #    earlier step first (only if none of them flips is it the answer).
        if lo not in self.known:
            first_the_rest = self.untried_cost(lo) + candidates[lo].cost
            if not (construction and self.spent + first_the_rest <= self.budget):
                self.P(lo)
        self.searched = self.spent
        # 3. Everything else, in order: the earliest decisive step, then every other one.
        for i in range(last + 1):
            if i == last and construction and any(p.flips for p in self.known.values()):
                return  # known to flip, and not the answer: no fork for it
            self.P(i)
        # 4. No step flips it alone (the step the outcome reads aside): pairs, until one does.
        if any(self.P(i) for i in range(last if construction else last + 1)):
            return
        for first, second in pair_order(self.plan, self.known):
            base = self.known[first.index]
            swaps = self.prober.on_top(base, second)
            if isinstance(swaps, str):  # nothing to fork: recorded, and costs nothing
                skipped = PairProbe(first, second, base.forks, 0, False, base.value, True, swaps)
                self.pairs.append(skipped)
                continue
            if self.spent + len(swaps) > self.budget:
                raise _OutOfBudget
            pair = self.prober.pair(base, second, swaps)
            self.pairs.append(pair)
            self.spent += pair.added
            if pair.flips:
                return


def run_search(plan: Plan, prober: Prober, budget: int | None = None) -> Result:
    """The search, within ``budget`` forks (None: ``default_budget``), and what it shows."""
    if budget is None:
        widest = max(c.cost for c in plan.candidates)
        budget = default_budget(len(plan.candidates), widest)
    if budget < 1:
        raise BisectError(f"a budget of {budget} forks: at least 1")
    search = _Search(plan, prober, budget)
    pending: Candidate | None = None
    try:
        search.run()
    except _OutOfBudget:
        pass
    except Pending as waiting:  # ``replay``: what is known until then
        pending = waiting.candidate
    probes = [search.known[i] for i in search.order]
    return finding(
        plan, probes, budget, searched=search.searched, pending=pending, pairs=search.pairs
    )


def bisect(
    good: Run,
    bad: Run,
    outcome: Outcome | str,
    *,
    opener: Opener | None = open_fork,
    budget: int | None = None,
) -> Result:
    """Bisect in this process: forks opened with ``opener`` (``open_fork``, or the dashboard's
    ``open_within_budget`` for a user) and executed here, at most ``budget`` of them
    (None: ``default_budget``)."""
    plan = plan_bisect(good, bad, outcome)
    return run_search(plan, Prober(plan, opener), budget)


def replay(good: Run, bad: Run, outcome: Outcome | str, budget: int | None = None) -> Result:
    """The same search over the forks that exist, making none: the result when every fork it
    needs has finished, else what is known so far and the step it waits for (``pending``)."""
    plan = plan_bisect(good, bad, outcome)
    return run_search(plan, Prober(plan, None), budget)
