"""The runs list (a lineage tree, filters, search, pages, two runs to compare) and the
new-run form, built from the chosen pipeline's declared inputs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    DecimalField,
    Exists,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Length
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
)
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from runs.budgets import admitted
from runs.engine.analysis.outcomes.values import OutcomeValue
from runs.engine.analysis.projection import NewRun, projected_cost
from runs.engine.apps.registry import pipeline_names
from runs.forms import ORIGIN_CHOICES, NewRunForm, PageForm, PipelinePickForm, RunFilterForm
from runs.models import Node, Run
from runs.models.lineage import LineageCounts, Placed, lineage_counts, place_lineages
from runs.models.packed import PackedText
from runs.models.search import search_runs
from runs.pages.change import LIST_VALUE_CHARS, Change, describe_change
from runs.pages.outcomes import list_outcomes
from runs.tasks import enqueue_run
from runs.views.common import create_or_refuse, get_run, navigate, render_partial

RUNS_PER_PAGE = 25
LINEAGE_PER_PAGE = 50


@dataclass(frozen=True)
class RunRow:
    """A row of the runs list: the run, its depth in the lineage tree, what it changed, and
    what it cost (the steps it executed; inherited ones were paid by an ancestor)."""

    run: Run
    depth: int
    change: Change
    tokens: int
    cost: Decimal | None  # None: a step it executed has an unknown cost
    seconds: float | None  # None: not started
    outcomes: tuple[OutcomeValue, ...] = ()  # none until the run has finished
    names_parent: bool = False  # a row away from its parent: says "fork of N"
    more: LineageCounts | None = None  # after it: the rest of a lineage shown in part

    @property
    def tokens_text(self) -> str:
        return f"{self.tokens:,}"

    @property
    def duration(self) -> str:
        if self.seconds is None:
            return "—"
        if self.seconds < 1:
            return f"{self.seconds * 1000:.0f} ms"
        if self.seconds < 60:
            return f"{self.seconds:.1f} s"
        minutes, seconds = divmod(round(self.seconds), 60)
        return f"{minutes} min {seconds:02d} s"


# Which stored value of a step holds an override's field (``current_fields``): a field named
# here exactly, or starting with a name ending in ".".
VALUE_OF_FIELD = {
    "prompt": ("prompt",),
    "inputs": ("args.", "state.", "input."),
    "output": ("output", "writes."),
}
# A stored override at most this long cannot hold a value longer than ``LIST_VALUE_CHARS``
# (its keys alone take 33 characters), so the list reads no source value for it.
SHORT_OVERRIDE_CHARS = LIST_VALUE_CHARS + 20


def _field_is(names: tuple[str, ...]) -> Q:
    query = Q()
    for name in names:
        query |= (
            Q(override__field__startswith=name) if name.endswith(".") else Q(override__field=name)
        )
    return query


def _source_value_json() -> Case:
    """For a fork whose value may be too long for a cell, the stored value (the blob's JSON)
    of its source step that holds the overridden field — a subquery of the same SELECT."""
    source = Node.objects.filter(
        run=OuterRef("parent_id"), sequence_id=OuterRef("fork_sequence_id")
    ).order_by()
    long = Q(override_chars__gt=SHORT_OVERRIDE_CHARS)
    return Case(
        *(
            When(long & _field_is(names), then=Subquery(source.values(f"{value}_blob__body")[:1]))
            for value, names in VALUE_OF_FIELD.items()
        ),
        default=Value(None),
        output_field=PackedText(),  # the blob's text, uncompressed as it is read
    )


def _source_step(run: Run) -> Node | None:
    """The source step of a fork listed, holding only the value its override's field is read
    from (``current_fields``), or None when the list did not read it."""
    body = getattr(run, "source_value_json", None)
    field = (run.override or {}).get("field", "")
    if body is None:
        return None
    for value, names in VALUE_OF_FIELD.items():
        if any(field.startswith(n) if n.endswith(".") else field == n for n in names):
            step = Node(name=run.fork_node, sequence_id=run.fork_sequence_id)
            setattr(step, value, json.loads(body))
            return step
    return None


def _with_totals(runs: QuerySet[Run]) -> QuerySet[Run]:
    """Tokens and cost of the steps each run executed, and a long override's source value,
    as subqueries of the same SELECT: the list costs no query per row, and none more than
    without them."""
    executed = Node.objects.filter(run=OuterRef("pk")).exclude(
        cache_source=Node.CacheSource.INHERITED
    )
    per_run = executed.order_by().values("run")
    runs = runs.annotate(override_chars=Length(Cast("override", TextField())))
    return runs.select_related("parent").annotate(
        source_value_json=_source_value_json(),
        step_tokens=Coalesce(
            Subquery(
                per_run.annotate(s=Sum("total_tokens")).values("s"), output_field=IntegerField()
            ),
            0,
        ),
        step_cost=Subquery(
            per_run.annotate(s=Sum("cost_usd")).values("s"),
            output_field=DecimalField(max_digits=14, decimal_places=6),
        ),
        cost_unknown=Exists(executed.filter(cost_usd__isnull=True)),
    )


def _row(place: Placed, now: datetime, outcomes: list[OutcomeValue]) -> RunRow:
    run = place.run
    seconds = None
    if run.started_at is not None:
        seconds = ((run.finished_at or now) - run.started_at).total_seconds()
    cost = None if run.cost_unknown else Decimal(run.step_cost or 0)
    change = describe_change(run, _source_step(run))
    names_parent = place.names_parent or (run.parent_id is not None and not place.depth)
    return RunRow(
        run,
        place.depth,
        change,
        run.step_tokens,
        cost,
        seconds,
        tuple(outcomes),
        names_parent=names_parent,
        more=place.more,
    )


def page_of_runs(runs: QuerySet[Run], number: object, per_page: int = RUNS_PER_PAGE) -> Page:
    """A page of ``runs`` in two steps: the page's ids first (read from an index, however deep
    the page), then those runs with what the rows show — the totals' subqueries and the parent
    join run for the page's rows only, never for the rows an OFFSET skips."""
    page = Paginator(runs.values_list("pk", flat=True), per_page).get_page(number)
    ids = list(page.object_list)
    rows = _with_totals(Run.objects.filter(pk__in=ids).order_by())
    loaded = {run.pk: run for run in rows} if ids else {}
    page.object_list = [loaded[pk] for pk in ids if pk in loaded]
    return page


def rows_of(places: list[Placed]) -> list[RunRow]:
    """The rows of ``places``, with their outcomes (a bounded number of queries)."""
    now = timezone.now()
    outcomes = list_outcomes([place.run for place in places])
    return [_row(place, now, outcomes.get(place.run.pk, [])) for place in places]


@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    filters = RunFilterForm(request.GET)
    if not filters.is_valid():
        return HttpResponseBadRequest("bad filter: " + filters.errors.as_text())
    context = _run_list_context(filters, NewRunForm())
    return render_partial(request, "runs/run_list.html", "run-table", context)


def _run_list_context(filters: RunFilterForm, new_run_form: NewRunForm) -> dict:
    data = filters.cleaned_data
    pipeline, status, query = data["pipeline"], data["status"], data["q"].strip()
    origin = data["origin"]
    runs = Run.objects.order_by("-created_at", "-id")
    if pipeline:
        runs = runs.filter(pipeline=pipeline)
    # Imported from Burr's history or made here. In the tree, an imported root keeps the forks
    # made here of it beneath it (an import is never a fork of a run made here).
    if origin:
        runs = runs.filter(imported_from__isnull=origin == "here")
    # Unfiltered: a lineage tree of roots. With a status filter or a search the matches are
    # listed flat, each naming its parent, since a tree of partial lineages would mislead.
    flat = bool(status or query)
    if status:
        runs = runs.filter(status=status)
    if query:
        runs = search_runs(runs, query)
    if not flat:
        runs = runs.filter(parent__isnull=True)
    page = page_of_runs(runs, data["page"])
    if flat:
        places = [Placed(run, 0) for run in page.object_list]
    else:
        places = place_lineages(list(page.object_list), _with_totals)
    return {
        "page": page,
        "rows": rows_of(places),
        "filters": filters,
        "query": query,
        "flat": flat,
        "pipelines": pipeline_names(),
        "statuses": Run.Status.choices,
        "origins": ORIGIN_CHOICES[1:],
        "new_run_form": new_run_form,
        "page_query": _filter_query(pipeline, status, query, origin),
    }


@require_GET
def run_lineage(request: HttpRequest, run_id: int) -> HttpResponse:
    """Every run of a run's lineage, newest first, a page at a time (the runs list shows a big
    lineage's newest few and links here)."""
    form = PageForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    run = get_run(run_id)
    root = run if (run.root_id or run.pk) == run.pk else get_run(run.root_id)
    runs = Run.objects.filter(root_id=root.pk).order_by("-created_at", "-id")
    page = page_of_runs(runs, form.cleaned_data["page"], LINEAGE_PER_PAGE)
    places = [Placed(r, 0, names_parent=r.parent_id is not None) for r in page.object_list]
    context = {
        "root": root,
        "counts": lineage_counts([root.pk])[root.pk],
        "page": page,
        "rows": rows_of(places),
        "page_query": "",
    }
    return render(request, "runs/run_lineage.html", context)


def _filter_query(pipeline: str, status: str, query: str, origin: str = "") -> str:
    """The active filters as a query string, for the pagination links."""
    pairs = (("pipeline", pipeline), ("status", status), ("q", query), ("origin", origin))
    return urlencode({k: v for k, v in pairs if v})


@require_http_methods(["GET", "POST"])
def run_create(request: HttpRequest) -> HttpResponse:
    """GET: the new-run form for ``?pipeline=`` (htmx swaps it in when the pipeline select
    changes; without JavaScript the whole runs page comes back with it). POST: start the run."""
    if request.method == "GET":
        pick = PipelinePickForm(request.GET)
        if not pick.is_valid():
            return HttpResponseBadRequest("bad parameter: " + pick.errors.as_text())
        return _new_run_page(request, NewRunForm(pipeline=pick.chosen()), status=200)
    form = NewRunForm(request.POST)
    run, status = create_or_refuse(form, lambda: _make_run(request, form))
    if run is not None:
        enqueue_run(run)
        return navigate(request, reverse("run-detail", args=[run.pk]))
    return _new_run_page(request, form, status=status)


def _make_run(request: HttpRequest, form: NewRunForm) -> Run:
    """The queued run, admitted within the user's budget; an engine refusal is on the form."""
    with admitted(request.user, lambda: projected_cost(NewRun(form.pipeline_name))) as admission:
        run = form.create()
        admission.record(run)
    return run


def _new_run_page(request: HttpRequest, form: NewRunForm, status: int) -> HttpResponse:
    if request.htmx:
        context = {"new_run_form": form, "pipelines": pipeline_names()}
        return render(request, "runs/run_list.html#new-run", context, status=status)
    # Without JavaScript: the whole page, the form (with any errors) next to the run table.
    filters = RunFilterForm({})
    filters.is_valid()
    return render(request, "runs/run_list.html", _run_list_context(filters, form), status=status)
