"""The runs list (a lineage tree, filters, pages) and the new-run form."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
)
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from runs.engine.errors import RewindError
from runs.engine.pipeline import pipeline_names
from runs.forms import NewRunForm, RunFilterForm
from runs.models import Run
from runs.tasks import enqueue_run
from runs.views.common import _go, _partial

RUNS_PER_PAGE = 25


def _lineage(roots: list[Run]) -> list[tuple[Run, int]]:
    """Roots with their forks beneath them, depth-first: one query for every descendant."""
    by_parent: dict[int, list[Run]] = {}
    descendants = Run.objects.filter(root_id__in=[r.pk for r in roots]).exclude(
        pk__in=[r.pk for r in roots]
    )
    for run in descendants.order_by("created_at", "id"):
        by_parent.setdefault(run.parent_id, []).append(run)
    rows: list[tuple[Run, int]] = []

    def walk(run: Run, depth: int) -> None:
        rows.append((run, depth))
        for child in by_parent.get(run.pk, []):
            walk(child, depth + 1)

    for root in roots:
        walk(root, 0)
    return rows


@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    filters = RunFilterForm(request.GET)
    if not filters.is_valid():
        return HttpResponseBadRequest("bad filter: " + filters.errors.as_text())
    context = _run_list_context(filters, NewRunForm())
    return _partial(request, "runs/run_list.html", "run-table", context)


def _run_list_context(filters: RunFilterForm, new_run_form: NewRunForm) -> dict:
    pipeline, status = filters.cleaned_data["pipeline"], filters.cleaned_data["status"]
    runs = Run.objects.order_by("-created_at", "-id")
    if pipeline:
        runs = runs.filter(pipeline=pipeline)
    # Unfiltered: a lineage tree of roots. With a status filter the matches are listed flat,
    # each naming its parent, since a tree of partial lineages would mislead.
    flat = bool(status)
    runs = runs.filter(status=status) if flat else runs.filter(parent__isnull=True)
    page = Paginator(runs, RUNS_PER_PAGE).get_page(filters.cleaned_data["page"])
    rows = [(r, 0) for r in page.object_list] if flat else _lineage(list(page.object_list))
    return {
        "page": page,
        "rows": rows,
        "filters": filters,
        "pipelines": pipeline_names(),
        "statuses": Run.Status.choices,
        "new_run_form": new_run_form,
        "query": _filter_query(pipeline, status),
    }


def _filter_query(pipeline: str, status: str) -> str:
    """The active filters as a query string, for the pagination links."""
    return urlencode({k: v for k, v in (("pipeline", pipeline), ("status", status)) if v})


@require_POST
def run_create(request: HttpRequest) -> HttpResponse:
    form = NewRunForm(request.POST)
    if form.is_valid():
        try:
            run = form.create()
        except RewindError:
            pass
        else:
            enqueue_run(run)
            return _go(request, reverse("run-detail", args=[run.pk]))
    if request.htmx:
        context = {"new_run_form": form}
        return render(request, "runs/run_list.html#new-run", context, status=400)
    # Without JavaScript: the whole page again, with the errors next to the fields.
    filters = RunFilterForm({})
    filters.is_valid()
    return render(request, "runs/run_list.html", _run_list_context(filters, form), status=400)
