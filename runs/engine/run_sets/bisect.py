"""Bisect probes, a set of runs: the forks that swap GOOD's output into BAD one step at a time,
opened (or found), executed and judged, spent in the order below while a budget lasts. The
bisect is planned (``plan_bisect``: the candidates) and its result read (``finding``) by
``runs.engine.analysis.bisect``.

The forks are spent in this order, while a budget of forks lasts (``budget``; by default
``default_budget``: every candidate when that takes at most 16 forks, else 16, or
2⌈log₂ m⌉+2 for more than 128 candidates):

1. A binary search for the earliest flip, taking the last candidate to flip without probing it
   (by construction, or as the search's hypothesis when the outcome reads the final state):
   ⌈log₂ m⌉ forks for m candidates. It finds the step a monotone flip (no flip before some
   step, a flip from there on) starts at — but it only ever probes its midpoints, and a step
   that decides while the steps after it do not carry its decision is never among them.
2. The step found is confirmed by its own fork, if no probe did already; when it is the step
   the outcome reads by construction, only after the earlier steps, if the budget lets them
   all be tried first (an earlier flip makes its fork unneeded).
3. Every candidate not yet tried, in trajectory order.

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
    Plan,
    Probe,
    Result,
    Swap,
    default_budget,
    finding,
    plan_bisect,
)
from runs.engine.analysis.outcomes.declared import Outcome
from runs.engine.analysis.outcomes.values import evaluate
from runs.engine.errors import BisectError, RewindError
from runs.engine.execution.runner import LoadedApp
from runs.engine.forking.forks import Fork, Opened, existing_fork, open_fork, resolve_fork
from runs.engine.run_sets.execution import execute
from runs.models import Run

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
        source, forks, reused = self.plan.bad, [], True
        for swap in candidate.swaps:
            run, was_there = self._fork(source, candidate, swap)
            forks.append(run.pk)
            reused = reused and was_there
            source = run
        (value,) = evaluate(source, None, [self.plan.outcome])
        return Probe(candidate, tuple(forks), self.plan.flips(value), value, reused)

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
    prober: Callable[[Candidate], Probe]
    budget: int
    known: dict[int, Probe] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
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
                break  # known to flip, and not the answer: no fork for it
            self.P(i)


def run_search(
    plan: Plan, prober: Callable[[Candidate], Probe], budget: int | None = None
) -> Result:
    """The search, within ``budget`` forks (None: ``default_budget``), and what it shows."""
    if budget is None:
        budget = default_budget(plan.all_forks, len(plan.candidates))
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
    return finding(plan, probes, budget, searched=search.searched, pending=pending)


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
