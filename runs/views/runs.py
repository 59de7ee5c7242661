"""A run's page and its live updates, its artifact; replay and resume."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django import forms
from django.contrib.auth.views import redirect_to_login
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    StreamingHttpResponse,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling

from runs.diffview import describe_change
from runs.engine.artifacts import artifact_file, artifact_text
from runs.engine.leases import resume_run
from runs.engine.replays import create_replay
from runs.graph import run_graph
from runs.models import Node, Run
from runs.presenters import (
    CACHE_SOURCE_HELP,
    render_markdown,
    summarise,
    timeline,
)
from runs.views.common import _get_run, _start

SSE_POLL_SECONDS = 0.5
SSE_MAX_SECONDS = 600  # a stream ends after this; the browser reconnects (EventSource does)

# The columns of a step only the inspector reads. The run page, its live region, the graph
# and the timeline skip them: a run of 500 steps would otherwise load every prompt and output
# to draw boxes and bars.
INSPECTOR_ONLY = ("inputs", "output", "prompt", "raw_output", "calls", "cache_entries", "error")


class LiveForm(forms.Form):
    """The live region's query: the step the inspector beside it shows (highlighted)."""

    step = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1)


def run_steps(run: Run) -> list[Node]:
    """A run's steps in order, without the columns only the inspector reads (1 query)."""
    return list(run.nodes.order_by("sequence_id").defer(*INSPECTOR_ONLY))


def _selected(nodes: list[Node], sequence_id: int | None) -> Node | None:
    return next((n for n in nodes if n.sequence_id == sequence_id), None)


def graph_context(run: Run, nodes: list[Node], selected: Node | None = None) -> dict:
    """What the graph and the timeline show: the run's steps over its pipeline's graph (the
    path it took, ``selected`` highlighted) and where each step sat in time. No queries."""
    graph = run_graph(run, nodes, selected)
    # Steps that never ran are listed while they are to come or once the run stopped short
    # of them; a branch a completed run did not take is only greyed in the graph.
    unvisited = graph.unvisited if graph.unvisited_state != "not taken" else ()
    return {
        "run": run,
        "graph": graph,
        "timeline": timeline(run, nodes, unvisited, graph.unvisited_state),
        "selected": selected,
        "cache_help": CACHE_SOURCE_HELP,
    }


def run_context(run: Run, nodes: list[Node], selected: Node | None = None) -> dict:
    """What the run page and its live region show: the summary, the graph, the timeline and
    the artifact. One query at most (the cache usage behind "tokens avoided"), whatever the
    number of steps."""
    text = artifact_text(run) if run.is_finished else None
    return {
        **graph_context(run, nodes, selected),
        "change": describe_change(run),
        "summary": summarise(run, nodes),
        "artifact_html": render_markdown(text) if text is not None else None,
    }


def _live_step(request: HttpRequest) -> int | None | HttpResponse:
    form = LiveForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("step: " + "; ".join(form.errors.get("step", [])))
    return form.cleaned_data["step"]


@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _get_run(run_id)
    return render(request, "runs/run_detail.html", run_context(run, run_steps(run)))


@require_GET
def run_status(request: HttpRequest, run_id: int) -> HttpResponse:
    """The live region, for the polling fallback; 286 stops polling once the run ended."""
    step = _live_step(request)
    if isinstance(step, HttpResponse):
        return step
    run = _get_run(run_id)
    nodes = run_steps(run)
    context = run_context(run, nodes, _selected(nodes, step))
    response = render(request, "runs/run_detail.html#run-live", context)
    if run.is_finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


def _live_fragment(
    request: HttpRequest, run_id: int, last: tuple | None, step: int | None = None
) -> tuple[str, tuple, bool]:
    """The live region if the run changed since ``last`` (else ""), its new signature, and
    whether the run has finished. The signature, not the HTML, decides: the HTML carries a
    freshly masked CSRF token each time."""
    run = _get_run(run_id)
    # A cheap look first: while nothing changed, nothing is summarised, read or rendered.
    steps = tuple(run.nodes.order_by("sequence_id").values_list("pk", "status"))
    signature = (run.status, run.error, steps)
    if signature == last:
        return "", signature, run.is_finished
    nodes = run_steps(run)
    context = run_context(run, nodes, _selected(nodes, step))
    # With the request, so the forms in the fragment carry the CSRF token.
    html = render_to_string("runs/run_detail.html#run-live", context, request=request)
    return html, signature, run.is_finished


@require_GET
async def run_events(request: HttpRequest, run_id: int) -> HttpResponse:
    """Server-sent events: the live region each time it changes, then ``done``.

    An async generator holds no thread while it waits, so many watchers cost little.
    """
    user = await request.auser()
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    step = _live_step(request)
    if isinstance(step, HttpResponse):
        return step
    await sync_to_async(_get_run)(run_id)  # 404 before the stream starts

    async def stream() -> AsyncIterator[str]:
        last, started = None, time.monotonic()
        while time.monotonic() - started < SSE_MAX_SECONDS:
            html, last, finished = await sync_to_async(_live_fragment)(request, run_id, last, step)
            if html:
                data = "\n".join(f"data: {line}" for line in html.splitlines())
                yield f"event: status\n{data}\n\n"
            if finished:
                yield "event: done\ndata: done\n\n"
                return
            await asyncio.sleep(SSE_POLL_SECONDS)

    response = StreamingHttpResponse(stream(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@require_GET
def run_artifact(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _get_run(run_id)
    path = artifact_file(run)
    if path is None:
        raise Http404(f"run {run.pk} has no artifact")
    return FileResponse(
        path.open("rb"),
        as_attachment=True,
        filename=f"rewind-run-{run.pk}.md",
        content_type="text/markdown",
    )


@require_POST
def run_resume(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _get_run(run_id)
    return _start(request, lambda: resume_run(run))


@require_POST
def run_replay(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _get_run(run_id)
    return _start(request, lambda: create_replay(run))
