"""Making a batch: every fork and sample resolved first, then written together, queued."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from runs.engine.analysis.batches.request import BatchRequest, select_sources
from runs.engine.analysis.noise import make_samples, sample_request
from runs.engine.errors import ForkError, RewindError
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.models import Batch, BatchSource, Run


@dataclass
class PlannedSource:
    """A source run under one value: the fork to make, or why the change does not apply."""

    source: Run
    value_index: int
    fork: Fork | None
    error: str = ""
    samples: Fork | None = None  # the sample request (on the first value's row only)


@dataclass
class Plan:
    request: BatchRequest
    pipeline: str
    rows: list[PlannedSource] = field(default_factory=list)

    @property
    def forks(self) -> list[Fork]:
        return [row.fork for row in self.rows if row.fork is not None]

    @property
    def sample_forks(self) -> list[Fork]:
        """One request per sample to make (a source's request ``samples`` times)."""
        k = self.request.samples
        return [row.samples for row in self.rows if row.samples is not None for _ in range(k)]


def plan_batch(request: BatchRequest) -> Plan:
    """Resolve the change in every source run (the node as ``rewind_fork`` takes it, the value
    typed by the field) and the samples — before anything is written. A source the change
    cannot apply to (no such step, a field its step does not consume) is kept, with the
    reason; a change that applies to none of them is refused (``ForkError``)."""
    sources = select_sources(request.selection)
    plan = Plan(request, sources[0].pipeline)
    for source in sources:
        first: PlannedSource | None = None
        for index, value in enumerate(request.values):
            try:
                if source.status != Run.Status.COMPLETED:  # it has no trajectory to change
                    raise ForkError(
                        f"run {source.pk} {source.status}"
                        + (f": {source.error}" if source.error else "")
                    )
                fork = resolve_fork(source, request.node, request.field, value)
                row = PlannedSource(source, index, fork)
            except RewindError as exc:
                row = PlannedSource(source, index, None, str(exc))
            plan.rows.append(row)
            first = first or row
        if request.samples and any(r.fork for r in plan.rows if r.source is source):
            try:
                first.samples = sample_request(source, request.samples)
            except RewindError as exc:  # pragma: no cover - the fork above resolved the run
                first.error = f"samples: {exc}"
    if not plan.forks:
        raise ForkError(
            f"the change applies to none of the {len(sources)} run(s): {plan.rows[0].error}"
        )
    return plan


def make_batch(plan: Plan, created_by: object = None) -> Batch:
    """Write the batch: its queued forks (ordinary forks, ``make_fork``), its samples
    (``make_samples``) and one row per source and value — all in one transaction, so a batch
    never lacks a row. Nothing is executed or enqueued here."""
    request = plan.request
    with transaction.atomic():
        batch = Batch.objects.create(
            pipeline=plan.pipeline,
            selection=request.selection.as_json(),
            node=request.node,
            field=request.field,
            values=list(request.values),
            samples=request.samples,
            created_by=created_by,
        )
        rows = []
        for position, planned in enumerate(plan.rows):
            fork = make_fork(planned.fork) if planned.fork is not None else None
            samples = []
            if planned.samples is not None:
                samples = make_samples(planned.source, request.samples, request=planned.samples)
            rows.append(
                BatchSource(
                    batch=batch,
                    position=position,
                    source=planned.source,
                    value_index=planned.value_index,
                    fork=fork,
                    samples=[s.pk for s in samples],
                    error=planned.error,
                )
            )
        BatchSource.objects.bulk_create(rows)
    return batch


def batch_run_ids(batch: Batch) -> list[int]:
    """The runs the batch executes, per source: its fork(s), then its samples."""
    ids: list[int] = []
    for fork_id, samples in batch.sources.order_by("position").values_list("fork_id", "samples"):
        if fork_id is not None:
            ids.append(fork_id)
        ids.extend(samples)
    return ids
