"""A batch (a counterfactual's or a regression replay's) planned and made: every fork and sample
resolved first (``plan_batch``, ``plan_regression``), then written together, queued
(``make_batch``). Executed by ``execution.execute``; read by ``analysis.batches``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.db import transaction

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import Pipeline
from runs.engine.apps.versions import AppVersion, app_version, stale_files
from runs.engine.errors import ForkError, RewindError
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.engine.forking.replays import regression_request
from runs.engine.run_sets.requests import BatchRequest, RegressionRequest, select_sources
from runs.engine.run_sets.samples import make_samples, sample_request
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
    request: BatchRequest | RegressionRequest
    pipeline: str
    rows: list[PlannedSource] = field(default_factory=list)
    code: AppVersion | None = None  # a regression replay's: the app's code it runs
    # The set's app, resolved once: its forks, its samples and its executor take it.
    app: Pipeline | BurrApp | None = field(default=None, repr=False)

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
    limit = request.limit or Batch.MAX_SOURCES
    sources = select_sources(request.selection, limit, newest=bool(request.limit))
    name = sources[0].pipeline
    app = get_pipeline(name)  # once: every source's fork, its samples and the executor take it
    plan = Plan(request, name, app=app)
    for source in sources:
        first: PlannedSource | None = None
        for index, value in enumerate(request.values):
            try:
                if source.status != Run.Status.COMPLETED:  # it has no trajectory to change
                    raise ForkError(
                        f"run {source.pk} {source.status}"
                        + (f": {source.error}" if source.error else "")
                    )
                fork = resolve_fork(source, request.node, request.field, value, pipeline=app)
                row = PlannedSource(source, index, fork)
            except RewindError as exc:
                row = PlannedSource(source, index, None, str(exc))
            plan.rows.append(row)
            first = first or row
        if request.samples and any(r.fork for r in plan.rows if r.source is source):
            try:
                first.samples = sample_request(source, request.samples, pipeline=app)
            except RewindError as exc:  # pragma: no cover - the fork above resolved the run
                first.error = f"samples: {exc}"
    if not plan.forks:
        raise ForkError(
            f"the change applies to none of the {len(sources)} run(s): {plan.rows[0].error}"
        )
    return plan


def plan_regression(request: RegressionRequest) -> Plan:
    """A regression replay (``rewind_regress``): each selected source re-run from its first
    step with the app's code as this process has it — refused when that code changed on disk
    after this process loaded it (it would check old code as new). A source that cannot be
    re-run (a fork, a run still going or failed) is kept with the reason; when none can, the
    whole request is refused (``ForkError``)."""
    limit = request.limit or Batch.MAX_SOURCES
    sources = select_sources(request.selection, limit, newest=bool(request.limit))
    name = sources[0].pipeline
    stale = stale_files(name)
    if stale:
        raise ForkError(
            f"the {name} app's code changed on disk ({stale[0]}) after this process loaded it: "
            "restart it (`rewind serve`), or run rewind_regress from a shell"
        )
    app = get_pipeline(name)  # once: every source's fork and the executor take it
    code = app_version(app)
    plan = Plan(request, name, code=code, app=app)
    for source in sources:
        try:
            if source.status != Run.Status.COMPLETED:
                raise ForkError(
                    f"run {source.pk} {source.status}"
                    + (f": {source.error}" if source.error else "")
                )
            fork = regression_request(source, code.version, pipeline=app)
            row = PlannedSource(source, 0, fork)
            if request.samples:  # the new code's noise: live re-runs, not the source's samples
                row.samples = replace(fork, live=True)
        except RewindError as exc:
            row = PlannedSource(source, 0, None, str(exc))
        plan.rows.append(row)
    if not plan.forks:
        raise ForkError(f"none of the {len(sources)} run(s) can be re-run: {plan.rows[0].error}")
    return plan


def make_batch(plan: Plan, created_by: object = None) -> Batch:
    """Write the batch (a regression replay's too: ``plan.code``): its queued forks (ordinary
    forks, ``make_fork``), its samples (``make_samples``) and one row per source and value —
    all in one transaction, so a batch never lacks a row. Nothing is executed or enqueued
    here (the runs it executes: ``analysis.batches.batch_run_ids``)."""
    request = plan.request
    with transaction.atomic():
        code = plan.code
        batch = Batch.objects.create(
            pipeline=plan.pipeline,
            selection=request.selection.as_json(),
            node="" if code else request.node,
            field="" if code else request.field,
            values=[code.label] if code else list(request.values),
            samples=request.samples,
            code_version=code.version if code else "",
            code_parts=code.parts if code else {},
            code_commit=code.commit if code else "",
            created_by=created_by,
        )
        rows = []
        for position, planned in enumerate(plan.rows):
            fork = make_fork(planned.fork) if planned.fork is not None else None
            samples = []
            if planned.samples is not None and plan.code is not None:
                samples = [make_fork(planned.samples) for _ in range(request.samples)]
            elif planned.samples is not None:
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
