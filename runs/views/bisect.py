"""Counterfactual bisect on the dashboard: the compare page offers it for an outcome two runs
disagree on; ``/compare/<good>/<bad>/bisect/`` starts it (POST) and shows it (GET).

The bisect runs in a worker (``runs.tasks.bisect_task``): each fork takes seconds, and a
request must not hold a web worker for minutes. Nothing is stored for it: the page replays the
search over the forks that exist (``runs/pages/bisect.py``: ``bisect.replay``, no fork made), so
it shows the probes as they finish and the verified answer once the last one has; the task's
row only says why it stopped (a fork refused by the budget, or failed). A ``budget`` in the
query (the page's field to check every step, or every pair, a budget left untried) is the
bisect's fork budget, for the task and the replay alike; a bad one posted is the page again
with the field's error (a 400)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseStopPolling

from runs.engine.analysis.bisect import plan_bisect
from runs.engine.errors import BisectError
from runs.forms import BisectForm
from runs.pages.bisect import page_context, query
from runs.tasks import bisect_task
from runs.views.common import get_run, navigate

TEMPLATE = "runs/bisect.html"


@require_http_methods(["GET", "POST"])
def bisect_page(request: HttpRequest, run_a: int, run_b: int) -> HttpResponse:
    """Run A is GOOD (the outcome wanted), run B is BAD."""
    form = BisectForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        if request.method == "POST" and "budget" in form.errors and len(form.errors) == 1:
            # The page's budget field: the page again, saying what a budget is.
            good_run, bad_run = get_run(run_a), get_run(run_b)
            context = page_context(good_run, bad_run, form.cleaned_data["outcome"], None)
            (message,) = form.errors["budget"]
            return render(request, TEMPLATE, {**context, "form_error": message}, status=400)
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    good_run, bad_run = get_run(run_a), get_run(run_b)
    name, budget = form.cleaned_data["outcome"], form.cleaned_data["budget"]
    if request.method == "POST":
        try:
            if not name:
                raise BisectError("choose the outcome to bisect")
            plan_bisect(good_run, bad_run, name)  # every refusal before anything is queued
        except BisectError as exc:
            context = page_context(good_run, bad_run, "", None)
            return render(request, TEMPLATE, {**context, "error": str(exc)}, status=400)
        started = bisect_task.enqueue(good_run.pk, bad_run.pk, name, request.user.pk, budget)
        url = reverse("compare-bisect", args=[run_a, run_b])
        return navigate(request, f"{url}?{query(name, budget, started.id)}")
    context = page_context(good_run, bad_run, name, form.cleaned_data["task"], budget)
    if request.htmx:
        response = render(request, f"{TEMPLATE}#bisect-result", context)
        if not context["running"]:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, TEMPLATE, context, status=400 if context["bad_outcome"] else 200)
