"""Removing what a ``PrunePlan`` names, in short transactions, and then what nothing refers to.

1. The batches and grids made only of removed groups (their rows refer to the runs).
2. The groups, a few hundred runs at a time, each in a transaction of its own: checked again
   first (a group that got a new run since the plan — a fork just made — is kept), then its
   steps, edges, Burr state rows and runs. A write lock is held for one such transaction only.
3. The cache entries the removed steps pinned that no remaining step pins, made and last read
   before the cutoff (an entry read since is in use: a new run may be about to pin it).
4. The blobs the removed steps and states referred to that no remaining step or state refers
   to — checked and deleted a chunk at a time, in one statement each.

A fork or replay never outlives its source here: a group goes whole (``plan``). With
``dry_run`` nothing is deleted and the same counts are reported (3 and 4 read which entries and
blobs would be left without a reference).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Length
from django.utils import timezone

from runs.engine.execution.persister import PARTITION_KEY
from runs.engine.retention.plan import PrunePlan
from runs.models import (
    Batch,
    BatchSource,
    Blob,
    BurrState,
    Edge,
    Grid,
    GridRow,
    LLMCacheEntry,
    Node,
    Prune,
    Run,
    ToolCacheEntry,
)

RUNS_PER_TRANSACTION = 500
BLOBS_PER_STATEMENT = 2000


@dataclass
class PruneReport:
    runs: int = 0
    lineages: int = 0
    steps: int = 0
    states: int = 0
    batches: int = 0
    grids: int = 0
    cache_entries: int = 0
    blobs: int = 0
    blob_bytes: int = 0
    kept: int = 0

    def as_json(self) -> dict[str, int]:
        return asdict(self)


def prune(
    plan: PrunePlan,
    *,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[PruneReport, Prune | None]:
    """Remove what ``plan`` names (``dry_run``: count it); ``progress(done, total)`` as runs go.
    The prune is recorded (``Prune``) unless it is a dry run."""
    report = PruneReport(kept=plan.kept)
    record = None
    if not dry_run:
        record = Prune.objects.create(
            older_than_days=plan.request.older_than_days,
            cutoff=plan.cutoff,
            keep_outcome_failures=plan.request.keep_outcome_failures,
        )
    gone: set[int] = set()  # the runs removed (or, in a dry run, that would be)
    entries: set[str] = set()  # "llm:12", "tool:3": pinned by removed steps
    blobs: set[str] = set()
    report.batches, report.grids = _batches_and_grids(plan, dry_run)
    for group_runs in _chunks(plan):
        with transaction.atomic():
            runs = _still_prunable(group_runs, plan)
            if not runs:
                continue
            ids = [pk for pk, _ in runs]
            steps = Node.objects.filter(run_id__in=ids)
            for pinned, *values in steps.values_list(
                "cache_entries", "inputs_blob_id", "output_blob_id", "prompt_blob_id"
            ):
                entries.update(pinned or [])
                blobs.update(v for v in values if v)
            apps = [str(pk) for pk in ids]
            states = BurrState.objects.filter(partition_key=PARTITION_KEY, app_id__in=apps)
            blobs.update(states.values_list("state_blob_id", flat=True))
            report.steps += steps.count() if dry_run else _delete(steps)
            report.states += states.count() if dry_run else _delete(states)
            if not dry_run:
                _delete(Edge.objects.filter(run_id__in=ids))
                _delete(Run.objects.filter(pk__in=ids))
            report.runs += len(ids)
            report.lineages += len({root for _, root in runs})
            gone.update(ids)
        if progress is not None:
            progress(report.runs, plan.runs)
    report.cache_entries = _sweep_entries(entries, gone, plan, dry_run)
    report.blobs, report.blob_bytes = _sweep_blobs(blobs, gone, dry_run)
    if record is not None:
        for name, value in report.as_json().items():
            setattr(record, name, value)
        record.finished_at = timezone.now()
        record.save()
    return report, record


def _chunks(plan: PrunePlan) -> Iterator[list[int]]:
    """The plan's lineage roots, a transaction's worth of runs at a time (a group whole)."""
    chunk: list[int] = []
    for group in plan.groups:
        chunk.extend(group)
        if len(chunk) >= RUNS_PER_TRANSACTION // 10:  # lineages of ~10 runs on average
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _still_prunable(roots: list[int], plan: PrunePlan) -> list[tuple[int, int]]:
    """(run, lineage) of the lineages in ``roots`` that are still old and finished — a fork
    made since the plan keeps its lineage (and, with it, the rest of its group is kept too:
    its groups are whole in ``roots`` only when every member is)."""
    rows = list(
        Run.objects.select_for_update()
        .filter(Q(root_id__in=roots) | Q(pk__in=roots))
        .values_list("pk", "root_id", "created_at", "status")
    )
    young = {
        root or pk
        for pk, root, created, status in rows
        if created >= plan.cutoff or status not in Run.FINISHED
    }
    if young:  # keep every group that has a young lineage
        keep = {r for group in plan.groups if young & set(group) for r in group}
        rows = [row for row in rows if (row[1] or row[0]) not in keep]
    return [(pk, root or pk) for pk, root, _, _ in rows]


def _batches_and_grids(plan: PrunePlan, dry_run: bool) -> tuple[int, int]:
    if dry_run:
        return len(plan.batches), len(plan.grids)
    with transaction.atomic():
        _delete(BatchSource.objects.filter(batch_id__in=plan.batches))
        batches = _delete(Batch.objects.filter(pk__in=plan.batches))
        _delete(GridRow.objects.filter(grid_id__in=plan.grids))
        grids = _delete(Grid.objects.filter(pk__in=plan.grids))
    return batches, grids


def _sweep_entries(pinned: set[str], gone: set[int], plan: PrunePlan, dry_run: bool) -> int:
    """Delete the entries in ``pinned`` no remaining step pins, made and read before the
    cutoff. One read of every remaining step's pins (streamed)."""
    if not pinned:
        return 0
    still: set[str] = set()
    for run_id, pins in Node.objects.values_list("run_id", "cache_entries").iterator(5000):
        if pins and run_id not in gone:
            still.update(pins)
    count = 0
    for prefix, model in (("llm:", LLMCacheEntry), ("tool:", ToolCacheEntry)):
        ids = sorted(int(e.removeprefix(prefix)) for e in pinned - still if e.startswith(prefix))
        for start in range(0, len(ids), BLOBS_PER_STATEMENT):
            unused = model.objects.filter(
                pk__in=ids[start : start + BLOBS_PER_STATEMENT], created_at__lt=plan.cutoff
            ).filter(Q(last_hit_at__isnull=True) | Q(last_hit_at__lt=plan.cutoff))
            count += unused.count() if dry_run else _delete(unused)
    return count


def _sweep_blobs(candidates: set[str], gone: set[int], dry_run: bool) -> tuple[int, int]:
    """Delete the blobs in ``candidates`` no remaining step or state refers to; (count,
    bytes). Each chunk: which candidates a step or a state still refers to (a scan of those
    tables: their blob columns are not indexed, so a chunk is large), then one DELETE."""
    names = sorted(candidates)
    count = size = 0
    apps = {str(pk) for pk in gone}
    for start in range(0, len(names), BLOBS_PER_STATEMENT):
        chunk = names[start : start + BLOBS_PER_STATEMENT]
        used = _used_by_steps(chunk, gone) | {
            sha
            for app, sha in BurrState.objects.filter(state_blob_id__in=chunk).values_list(
                "app_id", "state_blob_id"
            )
            if app not in apps
        }
        free = [sha for sha in chunk if sha not in used]
        if not free:
            continue
        with transaction.atomic():
            rows = Blob.objects.filter(pk__in=free)
            size += sum(rows.annotate(n=Length("body")).values_list("n", flat=True))
            count += len(free) if dry_run else _delete(rows)
    return count, size


def _used_by_steps(chunk: list[str], gone: set[int]) -> set[str]:
    used: set[str] = set()
    query = Q(inputs_blob_id__in=chunk) | Q(output_blob_id__in=chunk) | Q(prompt_blob_id__in=chunk)
    wanted = set(chunk)
    for run_id, *values in Node.objects.filter(query).values_list(
        "run_id", "inputs_blob_id", "output_blob_id", "prompt_blob_id"
    ):
        if run_id not in gone:
            used.update(v for v in values if v in wanted)
    return used


def _delete(queryset: Any) -> int:
    """Delete the rows in one statement, with no cascade collected: a prune deletes every
    related row itself, in the order above (foreign keys are checked at commit)."""
    return queryset._raw_delete(queryset.db) or 0  # None: an empty ``__in``, nothing sent
