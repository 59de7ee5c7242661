"""What every view module shares: lookups that 404, partial rendering, redirects."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from runs.budgets import BUDGET_STATUS, BudgetExceeded, open_within_budget
from runs.engine.errors import RewindError
from runs.engine.forking.forks import Fork, Opened
from runs.models import Batch, Node, Run
from runs.tasks import enqueue_run


def _get_run(run_id: int) -> Run:
    try:
        return Run.objects.select_related("parent").get(pk=run_id)
    except Run.DoesNotExist:
        raise Http404(f"no run {run_id}") from None


def _get_batch(batch_id: int) -> Batch:
    try:
        return Batch.objects.select_related("created_by").get(pk=batch_id)
    except Batch.DoesNotExist:
        raise Http404(f"no batch {batch_id}") from None


def _get_node(run: Run, sequence_id: int) -> Node:
    try:
        return run.nodes.select_related("src_run").get(sequence_id=sequence_id)
    except Node.DoesNotExist:
        raise Http404(f"run {run.pk} has no step {sequence_id}") from None


def _partial(request: HttpRequest, template: str, partial: str, context: dict) -> HttpResponse:
    """The whole page, or only ``partial`` when htmx asks for it."""
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, context)


def _go(request: HttpRequest, url: str) -> HttpResponse:
    """Navigate after a POST: htmx gets a client redirect, a plain form a 303."""
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _start(request: HttpRequest, make: Callable[[], Run]) -> HttpResponse:
    """Queue a run again with ``make``, enqueue it and go to its page; a refusal is a 400."""
    try:
        run = make()
    except RewindError as exc:
        return HttpResponseBadRequest(str(exc))
    enqueue_run(run)
    return _go(request, reverse("run-detail", args=[run.pk]))


def _start_fork(request: HttpRequest, resolve: Callable[[], Fork], what: str) -> HttpResponse:
    """Open the fork ``resolve`` asks for and show its page (a new one enqueued); a refusal is
    a 400, one over the budget a 429 (text)."""
    try:
        opened = open_within_budget(request.user, resolve(), what)
    except BudgetExceeded as exc:
        return HttpResponse(str(exc), status=BUDGET_STATUS, content_type="text/plain")
    except RewindError as exc:
        return HttpResponseBadRequest(str(exc))
    return _opened(request, opened)


def _opened(request: HttpRequest, opened: Opened) -> HttpResponse:
    """Go to the run a fork request opened (``open_fork``): a new one is enqueued; one made
    before is shown with a message saying so (django messages: the next page shows it, with
    or without JavaScript)."""
    if opened.reused:
        messages.info(request, already_made(opened.run))
    else:
        enqueue_run(opened.run)
    return _go(request, reverse("run-detail", args=[opened.run.pk]))


def already_made(run: Run) -> str:
    """What a person is told when the fork or replay they asked for already existed."""
    state = {Run.Status.QUEUED: "queued", Run.Status.RUNNING: "still running"}.get(
        run.status, "completed"
    )
    if run.override is None or run.replays_parent:
        return (
            f"You already asked for this replay: run {run.pk} ({state}). "
            "Once it has finished, Replay unchanged checks again."
        )
    return (
        f"You already made this fork: run {run.pk} ({state}). "
        "An identical fork opens it; tick “live” in the fork editor to run it again without "
        "the cache."
    )
