"""What-if grids: one fork per value of one field, read as a matrix of output hashes.

A row per value (and the parent on top), a column per step, each cell coloured by the step's
output hash — equal hashes, equal colours — so which values change which steps reads at a
glance; chosen leaves of the final output sit side by side. A cell opens the diff of its
fork against the parent.
"""

from __future__ import annotations

import colorsys
import json
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseStopPolling

from runs.engine.diff import align, flatten
from runs.engine.domains import Choice, Number
from runs.engine.errors import PipelineError, RewindError
from runs.engine.forks import make_fork, resolve_fork
from runs.engine.hashing import canonical_json
from runs.engine.noise import step_keys
from runs.engine.overrides import current_fields
from runs.engine.pipeline import get_pipeline
from runs.forms import field_text
from runs.models import Grid, GridRow, Node, Run
from runs.tasks import enqueue_run
from runs.views.common import _get_node, _get_run, _go

GRIDS_PER_PAGE = 25
DEFAULT_LEAVES = 4  # leaves of the final output shown when none are chosen
SHORT_LEAF = 160  # a default leaf is one whose values are short enough to read side by side
FINISHED = (Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.INTERRUPTED)


# --------------------------------------------------------------------------- colours


def hash_colour(sha: str) -> str:
    """A light colour for an output hash, the same for the same hash everywhere (grid cells,
    histogram bars): hue, saturation and lightness come from the hash's leading bytes, light
    enough that dark text stays readable on it."""
    if not sha or len(sha) < 10:
        return "#d0d5dd"
    digits = int(sha[:10], 16)
    hue = (digits >> 16) % 360 / 360
    saturation = 0.55 + (digits >> 8 & 0xFF) / 255 * 0.3
    lightness = 0.72 + (digits & 0xFF) / 255 * 0.12
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


# --------------------------------------------------------------------------- forms


class GridForm(forms.Form):
    """The field to vary (one the step consumes) and its values, one per line."""

    field = forms.ChoiceField()
    values = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        strip=False,
        help_text=f"one value per line, at most {Grid.MAX_VALUES}; typed like the field "
        "(the same as in the fork editor)",
    )

    def __init__(self, fields: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["field"].choices = [(name, name) for name in fields]

    def clean_values(self) -> list[str]:
        lines = [line.rstrip("\r") for line in self.cleaned_data["values"].split("\n")]
        values = [line for line in lines if line.strip()]
        if not values:
            raise forms.ValidationError("give at least one value")
        if len(values) > Grid.MAX_VALUES:
            raise forms.ValidationError(f"at most {Grid.MAX_VALUES} values, got {len(values)}")
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise forms.ValidationError(f"each value once: {', '.join(map(repr, repeated))}")
        return values


class GridViewForm(forms.Form):
    """The grid page's query: the leaves of the final output to show side by side."""

    leaf = forms.MultipleChoiceField(required=False)

    def __init__(self, leaves: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["leaf"].choices = [(path, path) for path in leaves]


class GridListForm(forms.Form):
    page = forms.IntegerField(required=False, min_value=1, max_value=1_000_000)


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
    run = _get_run(run_id)
    node = _get_node(run, sequence_id)
    spec = _spec(run, node)
    current = current_fields(spec, node)
    names = list(current)
    chosen = request.GET.get("field") if request.GET.get("field") in current else None
    chosen = chosen or _default_field(spec, names)
    initial = {
        "field": chosen,
        "values": "\n".join(suggested_values(spec, chosen, current.get(chosen))),
    }
    form = GridForm(names, request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        status = 400  # unless the grid is made below
        if form.is_valid():
            grid = _make_grid(request, run, node, form)
            if grid is not None:
                for row in grid.rows.select_related("run"):
                    enqueue_run(row.run)
                return _go(request, reverse("grid-detail", args=[grid.pk]))
        chosen = form.data.get("field", chosen)
    context = {
        "run": run,
        "node": node,
        "form": form,
        "fields": names,
        "chosen": chosen,
        "unfinished": not run.is_finished,
    }
    return render(request, "runs/grid_new.html", context, status=status)


def _make_grid(request: HttpRequest, run: Run, node: Node, form: GridForm) -> Grid | None:
    """Resolve every value first (each error is put on the form); only then write."""
    name, values = form.cleaned_data["field"], form.cleaned_data["values"]
    if not run.is_finished:
        form.add_error(None, f"run {run.pk} is still {run.status}; try values once it has finished")
        return None
    requests = []
    for value in values:
        try:
            requests.append(resolve_fork(run, str(node.sequence_id), name, value))
        except RewindError as exc:
            form.add_error("values", f"{value!r}: {exc}")
    if form.errors:
        return None
    with transaction.atomic():
        forks = [make_fork(r) for r in requests]
        return Grid.objects.record(run, node, name, values, forks, created_by=request.user)


# --------------------------------------------------------------------------- the matrix


@dataclass
class Cell:
    node: Node | None
    colour: str = ""
    state: str = "missing"  # source | same | changed | failed | missing | pending
    href: str = ""

    @property
    def short(self) -> str:
        return self.node.output_sha256[:6] if self.node and self.node.output_sha256 else ""


@dataclass
class MatrixRow:
    label: str  # the value as typed; the parent's: the value it had
    run: Run
    cells: list[Cell]
    leaves: list[dict[str, Any]] = field(default_factory=list)
    changed: int = 0  # steps whose hash differs from the parent's
    tokens: int = 0
    is_parent: bool = False


def _columns(runs_nodes: list[list[Node]]) -> list[tuple[str, int]]:
    """Every step any row reached, aligned by name and occurrence (``diff.align``), in the
    parent's order with the others where they appear."""
    names: list[str] = []
    for nodes in runs_nodes:
        row = [n.name for n in nodes]
        names = [names[i] if i is not None else row[j] for i, j in align(names, row)]
    return step_keys(names)


def final_output(nodes: list[Node]) -> dict[str, Any]:
    """What a run ended with: each step's output under its name, a later run of a step
    replacing an earlier one (a declared node writes the state key of its own name)."""
    return {n.name: n.output for n in nodes if n.status == Node.Status.COMPLETED}


def _leaf_text(value: Any) -> str:
    if value is _MISSING:
        return "—"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_MISSING = object()


def _default_leaves(paths: list[str], flats: list[dict[str, Any]]) -> list[str]:
    """The leaves that differ between rows, short ones, nearest the end of the run first;
    else the last few."""
    differing = [
        p
        for p in reversed(paths)
        if len({canonical_json(f.get(p)) for f in flats}) > 1
        and all(len(_leaf_text(f.get(p, ""))) <= SHORT_LEAF for f in flats)
    ]
    picked = set(differing[:DEFAULT_LEAVES] or paths[-DEFAULT_LEAVES:])
    return [p for p in paths if p in picked]


def _parent_value(grid: Grid, nodes: list[Node]) -> str:
    """The value the grid's field had in the parent, as the fork editor shows it."""
    node = next((n for n in nodes if n.sequence_id == grid.sequence_id), None)
    if node is None:
        return ""
    try:
        spec = get_pipeline(grid.source.pipeline).node(node.name)
    except PipelineError:
        return ""
    value = current_fields(spec, node).get(grid.field)
    return "" if value is None else field_text(value)


def build_matrix(
    grid: Grid, rows: list[GridRow], nodes_by_run: dict[int, list[Node]], leaves: list[str] | None
) -> dict[str, Any]:
    """The rows (parent first), the aligned step columns and the final-output leaves."""
    parent = grid.source
    entries = [(_parent_value(grid, nodes_by_run.get(parent.pk, [])), parent, True)] + [
        (grid.values[r.position] if r.position < len(grid.values) else "?", r.run, False)
        for r in rows
    ]
    all_nodes = [nodes_by_run.get(run.pk, []) for _, run, _ in entries]
    columns = _columns(all_nodes)
    parent_by_key = dict(zip(step_keys([n.name for n in all_nodes[0]]), all_nodes[0], strict=True))
    flats = [flatten(final_output(nodes)) for nodes in all_nodes]
    paths = list(dict.fromkeys(p for flat in flats for p in flat))
    finished = [flat for flat, (_, run, _) in zip(flats, entries, strict=True) if run.is_finished]
    shown = leaves or _default_leaves(paths, finished)

    matrix: list[MatrixRow] = []
    for (label, run, is_parent), nodes, flat in zip(entries, all_nodes, flats, strict=True):
        by_key = dict(zip(step_keys([n.name for n in nodes]), nodes, strict=True))
        compare = reverse("compare", args=[parent.pk, run.pk])
        cells = []
        for key in columns:
            node = by_key.get(key)
            cell = Cell(node)
            if node is None:
                cell.state = "missing" if run.is_finished else "pending"
            elif node.status != Node.Status.COMPLETED or not node.output_sha256:
                cell.state = "failed"
            else:
                cell.colour = hash_colour(node.output_sha256)
                base = parent_by_key.get(key)
                if is_parent:
                    cell.state = "source"
                else:
                    same = base is not None and base.output_sha256 == node.output_sha256
                    cell.state = "same" if same else "changed"
            if node is not None:
                cell.href = (
                    reverse("node-detail", args=[run.pk, node.sequence_id])
                    if is_parent
                    else compare
                )
            cells.append(cell)
        row = MatrixRow(label=label, run=run, cells=cells, is_parent=is_parent)
        row.changed = sum(1 for c in cells if c.state in {"changed", "failed"})
        row.tokens = sum(n.total_tokens for n in nodes if n.cache_source != "inherited")
        row.leaves = [
            {
                "text": _leaf_text(flat.get(path, _MISSING)),
                "changed": not is_parent
                and canonical_json(flat.get(path)) != canonical_json(flats[0].get(path)),
            }
            for path in shown
        ]
        matrix.append(row)
    return {
        "columns": [
            {"name": name, "occurrence": occurrence + 1, "repeated": occurrence > 0}
            for name, occurrence in columns
        ],
        "rows": matrix,
        "leaves": shown,
        "all_leaves": paths,
        "finished": all(run.is_finished for _, run, _ in entries),
    }


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
    rows = list(grid.rows.select_related("run").order_by("position"))
    run_ids = [grid.source_id, *(r.run_id for r in rows)]
    nodes_by_run: dict[int, list[Node]] = {}
    for node in Node.objects.filter(run_id__in=run_ids).order_by("run_id", "sequence_id"):
        nodes_by_run.setdefault(node.run_id, []).append(node)
    all_paths = list(
        dict.fromkeys(p for nodes in nodes_by_run.values() for p in flatten(final_output(nodes)))
    )
    view = GridViewForm(all_paths, request.GET)
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
