"""Batch counterfactuals on the dashboard: the list, a batch's page (its summary first, then
its sources a page at a time, a progress bar while its runs execute) and the form that starts
one from a step of a run over the recorded runs of its pipeline. The dashboard's batches go
through the task queue, within the daily budget (runs.budgets)."""

from __future__ import annotations

from functools import partial

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseStopPolling

from runs.budgets import admitted
from runs.engine.analysis.batches import batch_result
from runs.engine.analysis.batches.regression import regression_result
from runs.engine.analysis.projection import projected_cost
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.versions import app_version, stale_files
from runs.engine.errors import PipelineError, RewindError
from runs.engine.forking.overrides import current_fields
from runs.engine.run_sets.batches import Plan, make_batch, plan_batch, plan_regression
from runs.engine.run_sets.execution import Execution, execute
from runs.engine.run_sets.requests import BatchRequest, RegressionRequest, Selection
from runs.forms import BatchForm, PageForm, RegressionForm, field_text
from runs.models import Batch, Node, Run
from runs.views.common import create_or_refuse, get_batch, get_node, get_run, navigate

BATCHES_PER_PAGE = 25
SOURCES_PER_PAGE = 50


@require_GET
def batch_list(request: HttpRequest) -> HttpResponse:
    form = PageForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    batches = (
        Batch.objects.with_counts().select_related("created_by").order_by("-created_at", "-id")
    )
    page = Paginator(batches, BATCHES_PER_PAGE).get_page(form.cleaned_data["page"] or 1)
    return render(request, "runs/batch_list.html", {"page": page})


@require_GET
def batch_detail(request: HttpRequest, batch_id: int) -> HttpResponse:
    """Summary first (per outcome, the flip rate and its interval), then one page of sources.
    While runs of the batch execute, the live region polls itself (htmx) or the page
    refreshes (no JS); the poll is answered 286 once every run has finished."""
    batch = get_batch(batch_id)
    form = PageForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    rows = Paginator(range(batch.sources.count()), SOURCES_PER_PAGE)
    page = rows.get_page(form.cleaned_data["page"] or 1)
    positions = list(page.object_list)
    regression = regression_result(batch, page=positions) if batch.is_regression else None
    result = regression.result if regression else batch_result(batch, page=positions)
    context = {
        "batch": batch,
        "result": result,
        "regression": regression,
        "page": page,
        "query": request.GET.urlencode(),
    }
    if request.htmx:
        response = render(request, "runs/batch_detail.html#batch-live", context)
        if result.progress.finished:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "runs/batch_detail.html", context)


@require_http_methods(["GET", "POST"])
def batch_new(request: HttpRequest, run_id: int, sequence_id: int) -> HttpResponse:
    """Apply one change of this step to the recorded runs of the pipeline: every run is
    resolved before anything is written, the whole batch is admitted within the budget or
    refused, then its runs are queued and the batch page opens."""
    run = get_run(run_id)
    node = get_node(run, sequence_id)
    try:
        spec = get_pipeline(run.pipeline).node(node.name)
    except PipelineError as exc:
        raise Http404(str(exc)) from None
    current = current_fields(spec, node)
    names = list(current)
    chosen = request.GET.get("field") if request.GET.get("field") in current else None
    chosen = chosen or (names[0] if names else "")
    initial = {"field": chosen, "value": field_text(current.get(chosen)), "samples": 0}
    form = BatchForm(names, request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        batch, status = create_or_refuse(form, lambda: _make_batch(request, run, node, form))
        if batch is not None:
            return navigate(request, reverse("batch-detail", args=[batch.pk]))
        chosen = form.data.get("field", chosen)
    matching = Selection(pipeline=run.pipeline).queryset().count()
    context = {
        "run": run,
        "node": node,
        "form": form,
        "fields": names,
        "chosen": chosen,
        "matching": matching,
        "max_sources": Batch.MAX_SOURCES,
    }
    return render(request, "runs/batch_new.html", context, status=status)


@require_http_methods(["GET", "POST"])
def regression_new(request: HttpRequest, pipeline: str) -> HttpResponse:
    """Re-run the recorded runs of ``pipeline`` with its code as this server has it: the form
    says which code (its version), how many runs match, and refuses when the code changed on
    disk after the server loaded it. Admitted within the budget as a whole re-run of each run
    (which calls the code changes is known only once it runs), then queued."""
    try:
        app = get_pipeline(pipeline)
    except PipelineError as exc:
        raise Http404(str(exc)) from None
    form = RegressionForm(request.POST or None, initial={"samples": 0})
    status = 200
    if request.method == "POST":
        batch, status = create_or_refuse(form, lambda: _make_regression(request, pipeline, form))
        if batch is not None:
            return navigate(request, reverse("batch-detail", args=[batch.pk]))
    context = {
        "pipeline": pipeline,
        "form": form,
        "code": app_version(app),
        "stale": stale_files(pipeline),
        "matching": Selection(pipeline=pipeline).queryset().count(),
        "max_sources": Batch.MAX_SOURCES,
    }
    return render(request, "runs/regression_new.html", context, status=status)


def _make_regression(request: HttpRequest, pipeline: str, form: RegressionForm) -> Batch | None:
    data = form.cleaned_data
    try:
        wanted = RegressionRequest(
            selection=Selection(pipeline=pipeline, where=data["where"]),
            samples=data["samples"],
            limit=data["limit"] or 0,
        )
        plan = plan_regression(wanted)
    except RewindError as exc:
        form.add_error(None, str(exc))
        return None
    return _admit_and_queue(request, plan, "this regression replay")


def _make_batch(request: HttpRequest, run: Run, node: Node, form: BatchForm) -> Batch | None:
    data = form.cleaned_data
    try:
        wanted = BatchRequest(
            selection=Selection(pipeline=run.pipeline, where=data["where"]),
            node=node.name,
            field=data["field"],
            values=(data["value"],),
            samples=data["samples"],
        )
        plan = plan_batch(wanted)
    except RewindError as exc:
        form.add_error(None, str(exc))
        return None
    return _admit_and_queue(request, plan, "this batch")


def _admit_and_queue(request: HttpRequest, plan: Plan, noun: str) -> Batch:
    """Write the planned batch within the user's daily budget (``BudgetExceeded``: nothing
    written) and queue its runs once they commit: a regression replay's as one task, executed
    by an interpreter started for it (``run_sets.fresh``: never this server's old code)."""
    requests = [*plan.forks, *plan.sample_forks]
    project = partial(projected_cost, *requests, what=f"{noun} of {len(requests)} runs")
    with admitted(request.user, project) as admission:  # BudgetExceeded: nothing written
        batch = make_batch(plan, created_by=request.user)
        rows = list(batch.sources.order_by("position").values_list("fork_id", "samples"))
        # In the projection's order: the forks, then the samples.
        ids = [f for f, _ in rows if f is not None] + [pk for _, ks in rows for pk in ks]
        runs = Run.objects.in_bulk(ids)
        made = [runs[pk] for pk in ids]
        admission.record(*made)
        # On commit: a regression batch as one task, any other batch a task per run.
        execute([run.pk for run in made], Execution(enqueue=True), batch=batch)
    return batch
