"""Counterfactual bisect on the dashboard: the compare page offers it for an outcome two runs
disagree on; ``/compare/<good>/<bad>/bisect/`` starts it (POST) and shows it (GET).

The bisect runs in a worker (``runs.tasks.bisect_task``): each fork takes seconds, and a
request must not hold a web worker for minutes. Nothing is stored for it: the page replays the
search over the forks that exist (``bisect.replay``, no fork made), so it shows the probes as
they finish and the result once the last one has; the task's row only says why it stopped
(a fork refused by the budget, or failed)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.tasks import TaskResultStatus
from django.tasks.exceptions import TaskResultDoesNotExist
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseStopPolling

from runs.engine.analysis.bisect import differing, plan_bisect, replay
from runs.engine.errors import BisectError
from runs.forms import BisectForm
from runs.models import Run
from runs.tasks import bisect_task
from runs.views.common import get_run, navigate

TEMPLATE = "runs/bisect.html"


@require_http_methods(["GET", "POST"])
def bisect_page(request: HttpRequest, run_a: int, run_b: int) -> HttpResponse:
    """Run A is GOOD (the outcome wanted), run B is BAD."""
    form = BisectForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    good_run, bad_run = get_run(run_a), get_run(run_b)
    name = form.cleaned_data["outcome"]
    if request.method == "POST":
        try:
            if not name:
                raise BisectError("choose the outcome to bisect")
            plan_bisect(good_run, bad_run, name)  # every refusal before anything is queued
        except BisectError as exc:
            context = page_context(good_run, bad_run, "", None)
            return render(request, TEMPLATE, {**context, "error": str(exc)}, status=400)
        started = bisect_task.enqueue(good_run.pk, bad_run.pk, name, request.user.pk)
        query = urlencode({"outcome": name, "task": started.id})
        return navigate(request, f"{reverse('compare-bisect', args=[run_a, run_b])}?{query}")
    context = page_context(good_run, bad_run, name, form.cleaned_data["task"])
    if request.htmx:
        response = render(request, f"{TEMPLATE}#bisect-result", context)
        if not context["running"]:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, TEMPLATE, context, status=400 if context["bad_outcome"] else 200)


def page_context(good: Run, bad: Run, name: str, task: Any) -> dict[str, Any]:
    """What the page shows: the outcomes the runs disagree on and, for ``name``, the bisect
    as far as its forks go; ``running`` while its task may still make more."""
    context: dict[str, Any] = {
        "good": good,
        "bad": bad,
        "outcome": name,
        "choices": differing(good, bad),
        "result": None,
        "error": "",
        "bad_outcome": False,
        "running": False,
        "query": urlencode({"outcome": name, **({"task": task} if task else {})}),
    }
    if not name:
        return context
    try:
        result = replay(good, bad, name)
    except BisectError as exc:
        context.update(error=str(exc), bad_outcome=True)
        return context
    context["result"] = result
    context["data"] = result.as_json()
    if result.step is not None or task is None:
        return context  # done, or never started here: the button starts it
    status, stopped = task_status(str(task))
    if stopped:
        context["error"] = stopped
    context["running"] = status in (TaskResultStatus.READY, TaskResultStatus.RUNNING)
    return context


def task_status(task_id: str) -> tuple[str | None, str]:
    """The bisect task's status, and why it stopped without a result ("" if it did not)."""
    try:
        found = bisect_task.get_result(task_id)
    except (TaskResultDoesNotExist, NotImplementedError):
        return None, ""  # not this queue's (the immediate backend keeps no results)
    if found.status == TaskResultStatus.FAILED:
        return found.status, "the worker's bisect failed; start it again"
    if found.status == TaskResultStatus.SUCCESSFUL:
        value = found.return_value or {}
        return found.status, value.get("error", "") if isinstance(value, dict) else ""
    return found.status, ""
