"""Outcomes added and removed on the dashboard, from a run's page (for the run's pipeline).

htmx swaps the Outcomes section (``run_detail.html#run-outcomes``); without JavaScript a POST
redirects to the run page, and a refused one renders the page with the form's errors (400).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from runs.engine.analysis.outcomes.dashboard import add_outcome, remove_outcome
from runs.engine.errors import OutcomeError
from runs.forms import OutcomeForm
from runs.pages.outcomes import outcome_panel
from runs.views.common import get_run, navigate
from runs.views.runs import run_context, run_steps


def _answer(request: HttpRequest, run, form: OutcomeForm | None, status: int) -> HttpResponse:
    if status < 400 and not request.htmx:
        return navigate(request, reverse("run-detail", args=[run.pk]) + "#outcomes")
    panel = outcome_panel(run, form)
    if request.htmx:
        return render(
            request,
            "runs/run_detail.html#run-outcomes",
            {"outcomes": panel, "run": run},
            status=status,
        )
    context = {**run_context(run, run_steps(run)), "outcomes": panel}
    return render(request, "runs/run_detail.html", context, status=status)


@require_POST
def outcome_add(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_run(run_id)
    form = OutcomeForm(request.POST)
    if form.is_valid():
        try:
            add_outcome(run.pipeline, form.cleaned_data["outcome"], request.user)
        except OutcomeError as exc:
            form.add_error("name" if "already has" in str(exc) else "path", str(exc))
        else:
            return _answer(request, run, None, 200)
    return _answer(request, run, form, 400)


@require_POST
def outcome_remove(request: HttpRequest, run_id: int, outcome_id: int) -> HttpResponse:
    run = get_run(run_id)
    if not remove_outcome(run.pipeline, outcome_id):
        raise Http404(f"{run.pipeline} has no dashboard outcome {outcome_id}")
    return _answer(request, run, None, 200)
