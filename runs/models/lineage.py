"""A page of root runs with their lineages, bounded by the page, not by the history (issue 19):
each root brings at most ``LATEST`` descendants (its newest) and the counts of all of them by
kind, read in two queries whatever the size of the lineages.

A lineage of at most ``LATEST`` descendants is shown whole, as a tree; a bigger one shows its
newest ``LATEST`` beneath the root, each naming its parent, and a line with the counts and a
link to the whole lineage (``/runs/<root>/lineage/``, paginated).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.expressions import RawSQL

from runs.models import Run

LATEST = 5


@dataclass(frozen=True)
class LineageCounts:
    """A root's descendants by kind, as ``describe_change`` tells them apart."""

    root: int
    forks: int = 0
    replays: int = 0
    samples: int = 0
    regressions: int = 0

    @property
    def total(self) -> int:
        return self.forks + self.replays + self.samples + self.regressions

    @property
    def hidden(self) -> int:
        return max(0, self.total - LATEST)

    @property
    def parts(self) -> list[str]:
        """ "3,000 replays", "1,990 forks", "5 samples": the kinds there are, the most first."""
        kinds = [
            (self.replays, "replay"),
            (self.forks, "fork"),
            (self.samples, "sample"),
            (self.regressions, "regression"),
        ]
        kinds.sort(key=lambda kind: -kind[0])
        return [f"{n:,} {name}{'' if n == 1 else 's'}" for n, name in kinds if n]


def kind_of_run() -> Case:
    """A run's kind in SQL (the same rule as ``runs.pages.change.describe_change``): a stability
    sample; a regression run; a replay (no override, or its parent's own override at its
    parent's step: a replay of a fork); otherwise a fork. Reads the parent's columns: join
    ``parent``."""
    same_change = Q(fork_sequence_id=F("parent__fork_sequence_id")) & Q(
        override=F("parent__override")
    )
    return Case(
        When(sample_of__isnull=False, then=Value("sample")),
        When(~Q(regression_code=""), then=Value("regression")),
        When(override__isnull=True, then=Value("replay")),
        When(same_change, then=Value("replay")),
        default=Value("fork"),
        output_field=CharField(),
    )


def lineage_counts(roots: Iterable[int]) -> dict[int, LineageCounts]:
    """Each root's descendants counted by kind: one GROUP BY over the roots' lineages. A
    descendant's parent is in its lineage, so the join is of the lineages with themselves
    (``parent__root_id__in``): PostgreSQL hashed the whole runs table for an open join. The
    rows are read from the (root, created_at) index: the cost grows with the lineages (about
    2-3 ms of SQL per 1,000 descendants here), never with the rest of the table."""
    ids = list(roots)
    rows = (
        Run.objects.filter(root_id__in=ids, parent__root_id__in=ids)
        .exclude(pk__in=ids)
        .annotate(kind=kind_of_run())
        .order_by()
        .values("root_id", "kind")
        .annotate(n=Count("id"))
    )
    counts: dict[int, dict[str, int]] = {pk: {} for pk in ids}
    for row in rows:
        counts[row["root_id"]][row["kind"] + "s"] = row["n"]
    return {pk: LineageCounts(pk, **kinds) for pk, kinds in counts.items()}


def latest_descendants(roots: Iterable[int], limit: int = LATEST) -> RawSQL:
    """The ids of each root's ``limit`` newest descendants, as one subquery: a ``LIMIT`` per
    root read from the (root, created_at) index, so a root with 5,000 descendants costs what
    one with 5 does."""
    parts, params = [], []
    for n, root in enumerate(roots):
        parts.append(
            f"SELECT id FROM (SELECT id FROM runs_run WHERE root_id = %s AND id <> %s "
            f"ORDER BY created_at DESC, id DESC LIMIT %s) AS latest{n}"
        )
        params += [root, root, limit]
    return RawSQL(" UNION ALL ".join(parts) or "SELECT NULL WHERE 1 = 0", params)


@dataclass(frozen=True)
class Placed:
    """A run's place in the list: its depth, whether it names its parent, and after it, the
    counts of a lineage shown in part."""

    run: Run
    depth: int
    names_parent: bool = False
    more: LineageCounts | None = None


def place_lineages(
    roots: list[Run], load: Callable[[QuerySet[Run]], QuerySet[Run]]
) -> list[Placed]:
    """Roots with their descendants beneath them: a whole lineage as a depth-first tree, a big
    one as its newest ``LATEST`` and its counts. ``load`` adds what the rows show (totals);
    two queries, whatever the lineages hold."""
    ids = [r.pk for r in roots]
    counts = lineage_counts(ids) if ids else {}
    loaded = list(
        load(Run.objects.filter(pk__in=latest_descendants(ids)).order_by()) if ids else []
    )
    by_root: dict[int, list[Run]] = {}
    for run in loaded:
        by_root.setdefault(run.root_id, []).append(run)
    placed: list[Placed] = []
    for root in roots:
        descendants = by_root.get(root.pk, [])
        count = counts.get(root.pk, LineageCounts(root.pk))
        if count.total <= LATEST:
            placed.extend(_tree(root, descendants))
            continue
        placed.append(Placed(root, 0))
        newest = sorted(descendants, key=lambda r: (r.created_at, r.pk), reverse=True)
        for n, run in enumerate(newest):
            last = n == len(newest) - 1
            placed.append(Placed(run, 1, run.parent_id != root.pk, count if last else None))
    return placed


def _tree(root: Run, descendants: list[Run]) -> list[Placed]:
    by_parent: dict[int | None, list[Run]] = {}
    for run in sorted(descendants, key=lambda r: (r.created_at, r.pk)):
        by_parent.setdefault(run.parent_id, []).append(run)
    rows: list[Placed] = []

    def walk(run: Run, depth: int) -> None:
        rows.append(Placed(run, depth))
        for child in by_parent.get(run.pk, []):
            walk(child, depth + 1)

    walk(root, 0)
    return rows
