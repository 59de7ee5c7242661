"""What-if grids: one fork per value of one field (or per pair of values of two fields, a
crossed grid), read as a matrix of outputs.

A row per value (and the parent on top), a column per step, each cell lettered by what the
step gave — ``=`` the parent's output, A, B, C… each other distinct output of the column, on
a palette that cannot collide (``runs.pages.grids``) — so which values change which steps reads
at a glance; chosen leaves of the final output sit side by side. A cell opens the diff of its
fork against the parent.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseStopPolling

from runs.budgets import admitted
from runs.engine.analysis.projection import projected_cost
from runs.engine.apps.domains import Choice, Number
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import PipelineError, RewindError
from runs.engine.forking.overrides import current_fields
from runs.engine.run_sets.execution import Execution, execute
from runs.engine.run_sets.grids import GridError, make_grid, resolve_grid
from runs.forms import GridForm, GridListForm, GridViewForm, field_text
from runs.models import Grid, Node, Run
from runs.pages.grids import build_matrix, leaf_paths, load_grid
from runs.views.common import create_or_refuse, get_node, get_run, navigate

GRIDS_PER_PAGE = 25
FINISHED = tuple(Run.FINISHED)


# --------------------------------------------------------------------------- forms


def _default_field(spec: Any, names: list[str]) -> str:
    """The field a grid most likely varies: a declared choice, then a bounded number, then
    any other argument, then the first field."""
    domains = getattr(spec, "domains", {})
    for kind in (Choice, Number):
        for name in names:
            if isinstance(domains.get(name.removeprefix("args.")), kind):
                return name
    return next((n for n in names if n.startswith("args.")), names[0] if names else "")


def suggested_values(spec: Any, name: str, current: Any) -> list[str]:
    """Values worth trying for ``name``: every choice of a choice, a few integers or
    multiples of a bounded number, else the current value to edit."""
    domain = getattr(spec, "domains", {}).get(name.removeprefix("args.")) if name else None
    if isinstance(domain, Choice):
        return list(domain.widget()["choices"])
    if isinstance(domain, Number) and isinstance(current, int | float):
        low = domain.minimum if domain.minimum is not None else current
        high = domain.maximum if domain.maximum is not None else current * 4
        if domain.type is int and high - low <= 10:
            return [str(n) for n in range(int(low), int(high) + 1)]
        picks = [current / 2, current, current * 2, current * 3] if current else [1, 2, 3]
        ok = [
            p
            for p in picks
            if (p > low or (p == low and not domain.exclusive_minimum)) and p <= high
        ]
        return [field_text(domain.type(p)) for p in dict.fromkeys(ok)]
    return [field_text(current)]


# --------------------------------------------------------------------------- making a grid


def _spec(run: Run, node: Node) -> Any:
    try:
        return get_pipeline(run.pipeline).node(node.name)
    except PipelineError as exc:
        raise Http404(str(exc)) from None


@require_http_methods(["GET", "POST"])
def grid_new(request: HttpRequest, run_id: int, sequence_id: int) -> HttpResponse:
    """ "Try several values" of one field of a step: validate every value, then fork once per
    value in one transaction (a bad value writes nothing), queue the forks, open the grid."""
    run = get_run(run_id)
    node = get_node(run, sequence_id)
    spec = _spec(run, node)
    current = current_fields(spec, node)
    names = list(current)
    chosen = request.GET.get("field") if request.GET.get("field") in current else None
    chosen = chosen or _default_field(spec, names)
    crossing = request.GET.get("cross") if request.GET.get("cross") in current else ""
    initial = {
        "field": chosen,
        "values": "\n".join(suggested_values(spec, chosen, current.get(chosen))),
        "cross_field": crossing,
        "cross_values": "\n".join(suggested_values(spec, crossing, current.get(crossing)))
        if crossing
        else "",
    }
    form = GridForm(names, request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        grid, status = create_or_refuse(form, lambda: _make_grid(request, run, node, form))
        if grid is not None:
            execute(list(grid.rows.values_list("run_id", flat=True)), Execution(enqueue=True))
            return navigate(request, reverse("grid-detail", args=[grid.pk]))
        chosen = form.data.get("field", chosen)
    context = {
        "run": run,
        "node": node,
        "form": form,
        "fields": names,
        "chosen": chosen,
        "crossing": form.data.get("cross_field", crossing) if form.is_bound else crossing,
        "unfinished": not run.is_finished,
    }
    return render(request, "runs/grid_new.html", context, status=status)


def _make_grid(request: HttpRequest, run: Run, node: Node, form: GridForm) -> Grid | None:
    """Resolve every value of both fields first (each error is put on the form); only then
    write. A crossed grid projects, and records, one fork per row: each value's fork and
    each of its crossed cells."""
    if not run.is_finished:
        form.add_error(None, f"run {run.pk} is still {run.status}; try values once it has finished")
        return None
    data = form.cleaned_data
    try:
        plan = resolve_grid(
            run,
            str(node.sequence_id),
            data["field"],
            data["values"],
            data["cross_field"],
            data["cross_values"],
        )
    except GridError as exc:
        for where, value, reason in exc.problems:
            form.add_error(where, f"{value!r}: {reason}")
        return None
    except RewindError as exc:
        form.add_error(None, str(exc))
        return None
    requests = plan.requests
    project = partial(projected_cost, *requests, what=f"this grid of {len(requests)} forks")
    with admitted(request.user, project) as admission:  # BudgetExceeded: nothing written
        grid, runs = make_grid(plan, created_by=request.user)
        admission.record(*runs)
        return grid


def _get_grid(grid_id: int) -> Grid:
    try:
        return Grid.objects.select_related("source", "created_by").get(pk=grid_id)
    except Grid.DoesNotExist:
        raise Http404(f"no grid {grid_id}") from None


@require_GET
def grid_detail(request: HttpRequest, grid_id: int) -> HttpResponse:
    """The matrix. While a fork is unfinished it polls itself (htmx) or refreshes (no JS);
    the poll stops with 286 once every row has finished."""
    grid = _get_grid(grid_id)
    rows, nodes_by_run = load_grid(grid)
    view = GridViewForm(leaf_paths(nodes_by_run), request.GET)
    if not view.is_valid():
        return HttpResponseBadRequest("bad parameter: " + view.errors.as_text())
    matrix = build_matrix(grid, rows, nodes_by_run, view.cleaned_data["leaf"])
    context = {"grid": grid, "matrix": matrix, "query": request.GET.urlencode()}
    if request.htmx:
        response = render(request, "runs/grid_detail.html#grid-live", context)
        if matrix["finished"]:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "runs/grid_detail.html", context)


@require_GET
def grid_list(request: HttpRequest) -> HttpResponse:
    form = GridListForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    grids = (
        Grid.objects.select_related("source", "created_by")
        .annotate(
            row_count=Count("rows"),
            finished=Count("rows", filter=Q(rows__run__status__in=FINISHED)),
        )
        .order_by("-created_at", "-id")
    )
    page = Paginator(grids, GRIDS_PER_PAGE).get_page(form.cleaned_data["page"] or 1)
    return render(request, "runs/grid_list.html", {"page": page})
