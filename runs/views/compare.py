"""Comparing any two runs, and the picker that chooses them."""

from __future__ import annotations

from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    QueryDict,
)
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from runs.budgets import judge_for
from runs.engine.analysis.bisect import differing
from runs.engine.analysis.diff import diff_runs
from runs.engine.execution.artifacts import artifact_text
from runs.forms import CompareForm, ComparePickForm, RunSearchForm
from runs.models import Node, Run
from runs.pages.change import describe_change, relation
from runs.pages.compare import side_by_side, step_rows, unified_diff
from runs.pages.picker import compare_choices, find_choices, run_id
from runs.views.common import get_run, render_partial


@require_GET
def compare_pick(request: HttpRequest) -> HttpResponse:
    """``/compare/?a=1&b=2`` (the compare page's picker) or ``?run=1&run=2`` (the runs list's
    checkboxes) → the canonical ``/compare/1/2/``. Nothing chosen: the picker on its own; a
    wrong choice (one run, three runs) says so, with the picker, as a 400."""
    form = ComparePickForm(request.GET)
    if form.is_valid():
        return redirect("compare", form.cleaned_data["a"], form.cleaned_data["b"])
    return _picker(request, form, status=400 if request.GET else 200)


def _picker(request: HttpRequest, form: ComparePickForm, status: int) -> HttpResponse:
    """The picker with ``form``'s errors; what was chosen is kept."""
    form.is_valid()
    # Keep what was chosen: one ticked run is A, so only B is left to choose.
    ticked = [*form.data.getlist("run"), "", ""]
    selected_a = run_id(form.data.get("a") or ticked[0])
    selected_b = run_id(form.data.get("b") or ticked[1])
    chosen = Run.objects.filter(pk__in=[pk for pk in (selected_a, selected_b) if pk])
    lineage, recent = compare_choices(*chosen)
    context = {
        "pick_form": form,
        "lineage_choices": lineage,
        "recent_choices": recent,
        "selected_a": selected_a,
        "selected_b": selected_b,
    }
    return render(request, "runs/compare.html", context, status=status)


@require_GET
def compare_runs(request: HttpRequest) -> HttpResponse:
    """The picker's search as a person types (``?a=``, ``?b=`` or ``?q=``): the options of its
    list, at most ``FOUND_RUNS`` runs found by id or text through the search index."""
    form = RunSearchForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    context = {"lineage_choices": find_choices(form.query()), "recent_choices": []}
    return render(request, "runs/compare.html#run-choices", context)


@require_GET
def compare(request: HttpRequest, run_a: int, run_b: int) -> HttpResponse:
    form = CompareForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    if run_a == run_b:  # the picker says why, with A chosen and B left to choose
        get_run(run_a)  # an unknown run is still a 404
        return _picker(request, ComparePickForm(QueryDict(f"a={run_a}&b={run_b}")), status=400)
    a, b = get_run(run_a), get_run(run_b)
    # A judge, when one is configured, decides the uncertain texts within the user's budget.
    judge = judge_for(request.user)
    result = diff_runs(a, b, referee=judge)
    only_different = form.cleaned_data["only"] == "different"
    nodes_a = list(a.nodes.order_by("sequence_id"))
    nodes_b = list(b.nodes.order_by("sequence_id"))
    steps, totals = step_rows(result, nodes_a, nodes_b)
    text_a, text_b = artifact_text(a), artifact_text(b)
    context = {
        "a": a,
        "b": b,
        "selected_a": a.pk,
        "selected_b": b.pk,
        # A child is described against its parent's step it forked: the override's old value.
        "change_a": describe_change(a, _step(nodes_b, a) if a.parent_id == b.pk else None),
        "change_b": describe_change(b, _step(nodes_a, b) if b.parent_id == a.pk else None),
        "relation": relation(a, b),
        "result": result,
        "judge": judge,
        "steps": [s for s in steps if not (only_different and s.same)],
        "totals": totals,
        "any_field_changed": any(s.leaves for s in steps),
        "only_different": only_different,
        "identical": result.identical,
        "node_count": len(result.nodes),
        "has_artifacts": text_a is not None or text_b is not None,
        "artifact_blocks": side_by_side(text_a or "", text_b or ""),  # masked
        "artifact_diff": unified_diff(result, a, b, text_a, text_b),  # masked
    }
    if not request.htmx:
        # The outcomes the runs disagree on, offered to bisect (steps already loaded).
        context["choices"] = differing(a, b, nodes_a, nodes_b)
        context["lineage_choices"], context["recent_choices"] = compare_choices(a, b)
    return render_partial(request, "runs/compare.html", "diff", context)


def _step(parent_nodes: list[Node], child: Run) -> Node | None:
    """The parent's step that ``child`` forked, among the parent's steps already loaded."""
    return next((n for n in parent_nodes if n.sequence_id == child.fork_sequence_id), None)
