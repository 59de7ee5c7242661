"""What every view module shares: lookups that 404, partial rendering, redirects."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django import forms
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


def get_run(run_id: int) -> Run:
    try:
        return Run.objects.select_related("parent").get(pk=run_id)
    except Run.DoesNotExist:
        raise Http404(f"no run {run_id}") from None


def get_batch(batch_id: int) -> Batch:
    try:
        return Batch.objects.select_related("created_by").get(pk=batch_id)
    except Batch.DoesNotExist:
        raise Http404(f"no batch {batch_id}") from None


def get_node(run: Run, sequence_id: int) -> Node:
    try:
        return run.nodes.select_related("src_run").get(sequence_id=sequence_id)
    except Node.DoesNotExist:
        raise Http404(f"run {run.pk} has no step {sequence_id}") from None


def render_partial(
    request: HttpRequest, template: str, partial: str, context: dict
) -> HttpResponse:
    """The whole page, or only ``partial`` when htmx asks for it."""
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, context)


def navigate(request: HttpRequest, url: str) -> HttpResponse:
    """Navigate after a POST: htmx gets a client redirect, a plain form a 303."""
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# A TypeVar, not PEP 695's syntax: the layout's checks (../shared/tools/rooms.py) parse this
# code with the tools' Python, 3.11.
Made = TypeVar("Made")


def create_or_refuse(  # noqa: UP047
    form: forms.Form, make: Callable[[], Made | None]
) -> tuple[Made | None, int]:
    """The one rule of every form that makes something (a run, samples, a grid, a batch):
    a valid form's ``make()`` gives what it made, and the view goes there; otherwise
    ``(None, status)`` for the form shown again with its reasons — 400 (invalid, or refused:
    ``make`` returned None having put the reason on the form, or raised a ``RewindError``),
    429 over the daily budget. Nothing is written when it is refused."""
    if not form.is_valid():
        return None, 400
    try:
        made = make()
    except BudgetExceeded as exc:
        form.add_error(None, str(exc))
        return None, BUDGET_STATUS
    except RewindError as exc:
        form.add_error(None, str(exc))
        return None, 400
    return made, 200 if made is not None else 400


def start_run(request: HttpRequest, make: Callable[[], Run]) -> HttpResponse:
    """Queue a run again with ``make``, enqueue it and go to its page; a refusal is a 400."""
    try:
        run = make()
    except RewindError as exc:
        return HttpResponseBadRequest(str(exc))
    enqueue_run(run)
    return navigate(request, reverse("run-detail", args=[run.pk]))


def start_fork(request: HttpRequest, resolve: Callable[[], Fork], what: str) -> HttpResponse:
    """Open the fork ``resolve`` asks for and show its page (a new one enqueued); a refusal is
    a 400, one over the budget a 429 (text)."""
    try:
        opened = open_within_budget(request.user, resolve(), what)
    except BudgetExceeded as exc:
        return HttpResponse(str(exc), status=BUDGET_STATUS, content_type="text/plain")
    except RewindError as exc:
        return HttpResponseBadRequest(str(exc))
    return go_to_opened(request, opened)


def go_to_opened(request: HttpRequest, opened: Opened) -> HttpResponse:
    """Go to the run a fork request opened (``open_fork``): a new one is enqueued; one made
    before is shown with a message saying so (django messages: the next page shows it, with
    or without JavaScript)."""
    if opened.reused:
        messages.info(request, already_made(opened.run))
    else:
        enqueue_run(opened.run)
    return navigate(request, reverse("run-detail", args=[opened.run.pk]))


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
