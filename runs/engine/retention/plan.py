"""What a prune may remove (``rewind_prune``), decided before anything is deleted.

The unit is a *lineage group*: a root run with every fork, replay, sample and regression run
made of it (``Run.root``), together with the lineages of the sub-applications its runs spawned
(``Run.spawned_by``) — the rows that refer to one another (a fork's inherited steps name the run
that executed them, ``Node.src_run``), so a group is removed whole or kept whole and no run is
ever left pointing at one that is gone. A group may go when every run in it was created before
the cutoff and has finished. It is kept, although old enough:

- with ``keep_outcome_failures``, when any of its runs failed an outcome's check (the runs a
  team keeps to regress against);
- when a batch or a grid that is kept refers to it (one made after the cutoff, or one that
  also refers to a kept group); the batches and grids made only of removed groups go too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from runs.engine.errors import RewindError
from runs.models import Batch, BatchSource, Grid, GridRow, Run

MAX_DAYS = 36_500  # a century: more is a typo
CHUNK = 500  # lineages (or runs) read at a time


@dataclass(frozen=True)
class PruneRequest:
    older_than_days: float
    keep_outcome_failures: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.older_than_days <= MAX_DAYS:
            raise RewindError(
                f"--older-than is a number of days between 0 and {MAX_DAYS}, "
                f"got {self.older_than_days:g}"
            )


@dataclass
class PrunePlan:
    request: PruneRequest
    cutoff: datetime
    groups: list[list[int]] = field(default_factory=list)  # lineage roots removed together
    runs: int = 0
    batches: list[int] = field(default_factory=list)
    grids: list[int] = field(default_factory=list)
    kept: int = 0  # old enough, kept: an outcome failed, or a kept batch or grid refers to it

    @property
    def lineages(self) -> int:
        return sum(len(group) for group in self.groups)


def plan_prune(request: PruneRequest, now: datetime | None = None) -> PrunePlan:
    """The groups, batches and grids a prune removes (reads only)."""
    cutoff = (now or timezone.now()) - timedelta(days=request.older_than_days)
    lineage = Coalesce("root_id", "id")
    rows = (
        Run.objects.order_by()
        .values(lineage=lineage)
        .annotate(
            n=Count("id"),
            newest=Max("created_at"),
            going=Count("id", filter=~Q(status__in=list(Run.FINISHED))),
        )
    )
    sizes: dict[int, int] = {}
    old: set[int] = set()
    for row in rows:
        sizes[row["lineage"]] = row["n"]
        if row["newest"] < cutoff and not row["going"]:
            old.add(row["lineage"])
    group_of = _groups(sizes)
    members: dict[int, list[int]] = {}
    for root, group in group_of.items():
        members.setdefault(group, []).append(root)
    prunable = {g for g, roots in members.items() if all(root in old for root in roots)}
    kept_by_outcomes = (
        _failed_outcomes(members, prunable) if request.keep_outcome_failures else set()
    )
    prunable -= kept_by_outcomes
    batches, grids = _references(lineage)
    made = dict(Batch.objects.values_list("pk", "created_at"))
    grid_made = dict(Grid.objects.values_list("pk", "created_at"))
    while True:  # a kept batch or grid keeps every group it refers to, which may keep another
        pinned = {
            group_of[root]
            for refs, when in ((batches, made), (grids, grid_made))
            for pk, roots in refs.items()
            if when.get(pk, cutoff) >= cutoff or any(group_of[r] not in prunable for r in roots)
            for root in roots
        }
        if not pinned & prunable:
            break
        prunable -= pinned
    plan = PrunePlan(request, cutoff)
    plan.groups = [sorted(members[g]) for g in sorted(prunable)]
    plan.runs = sum(sizes[root] for g in prunable for root in members[g])
    plan.batches = sorted(
        pk for pk, roots in batches.items() if all(group_of[r] in prunable for r in roots)
    )
    plan.grids = sorted(
        pk for pk, roots in grids.items() if all(group_of[r] in prunable for r in roots)
    )
    old_groups = {g for g, roots in members.items() if all(root in old for root in roots)}
    plan.kept = sum(len(members[g]) for g in old_groups - prunable)
    return plan


def _groups(lineages: dict[int, int]) -> dict[int, int]:
    """Each lineage's group (a representative root): lineages joined by ``spawned_by``."""
    parent = {root: root for root in lineages}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    spawned = Run.objects.filter(spawned_by__isnull=False).values_list(
        Coalesce("root_id", "id"), Coalesce("spawned_by__root_id", "spawned_by_id")
    )
    for child, spawner in spawned:
        if child in parent and spawner in parent:
            a, b = find(child), find(spawner)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {root: find(root) for root in lineages}


def _references(lineage) -> tuple[dict[int, set[int]], dict[int, set[int]]]:
    """The lineages each batch and each grid refers to (sources, forks, rows)."""
    batches: dict[int, set[int]] = {}
    for pk, source, fork in BatchSource.objects.values_list(
        "batch_id", Coalesce("source__root_id", "source_id"), Coalesce("fork__root_id", "fork_id")
    ):
        batches.setdefault(pk, set()).update(r for r in (source, fork) if r is not None)
    grids: dict[int, set[int]] = {}
    for pk, source in Grid.objects.values_list("pk", Coalesce("source__root_id", "source_id")):
        grids.setdefault(pk, set()).add(source)
    for pk, run in GridRow.objects.values_list("grid_id", Coalesce("run__root_id", "run_id")):
        grids.setdefault(pk, set()).add(run)
    return batches, grids


def _failed_outcomes(members: dict[int, list[int]], groups: set[int]) -> set[int]:
    """The groups among ``groups`` in which some completed run failed an outcome's check,
    evaluated a page of runs at a time (``evaluate_runs``: a bounded number of queries each)."""
    from runs.engine.analysis.outcomes.values import evaluate_runs

    group_of_root = {root: g for g in groups for root in members[g]}
    roots = sorted(group_of_root)
    failed: set[int] = set()
    for start in range(0, len(roots), CHUNK):
        chunk = roots[start : start + CHUNK]
        runs = Run.objects.filter(status=Run.Status.COMPLETED).filter(
            Q(root_id__in=chunk) | Q(pk__in=chunk, root__isnull=True)
        )
        page = list(runs.only("id", "pipeline", "root_id", "status"))
        for index in range(0, len(page), CHUNK):
            failed |= _failing(page[index : index + CHUNK], evaluate_runs, group_of_root)
    return failed


def _failing(page: list[Run], evaluate, group_of_root: dict[int, int]) -> set[int]:
    values = evaluate(page)
    return {
        group_of_root[run.root_id or run.pk]
        for run in page
        if any(v.passed is False for v in values.get(run.pk, []))
    }
