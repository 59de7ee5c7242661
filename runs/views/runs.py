"""The runs list, a run's page and its live updates, its artifact; replay and resume."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.contrib.auth.views import redirect_to_login
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    StreamingHttpResponse,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling

from runs.engine.artifacts import artifact_file, artifact_text
from runs.engine.leases import resume_run
from runs.engine.replays import create_replay
from runs.models import Run
from runs.presenters import (
    CACHE_SOURCE_HELP,
    render_markdown,
    summarise,
)
from runs.views.common import _get_run, _start

SSE_POLL_SECONDS = 0.5
SSE_MAX_SECONDS = 600  # a stream ends after this; the browser reconnects (EventSource does)


def _run_context(run: Run) -> dict:
    nodes = list(run.nodes.order_by("sequence_id"))
    summary = summarise(run, nodes)
    text = artifact_text(run) if run.is_finished else None
    return {
        "run": run,
        "summary": summary,
        "cache_help": CACHE_SOURCE_HELP,
        "artifact_html": render_markdown(text) if text is not None else None,
    }


@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    return render(request, "runs/run_detail.html", _run_context(_get_run(run_id)))


@require_GET
def run_status(request: HttpRequest, run_id: int) -> HttpResponse:
    """The live region, for the polling fallback; 286 stops polling once the run ended."""
    run = _get_run(run_id)
    response = render(request, "runs/run_detail.html#run-live", _run_context(run))
    if run.is_finished:
        response.status_code = HttpResponseStopPolling.status_code
    return response


def _live_fragment(
    request: HttpRequest, run_id: int, last: tuple | None
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
    # With the request, so the forms in the fragment carry the CSRF token.
    html = render_to_string("runs/run_detail.html#run-live", _run_context(run), request=request)
    return html, signature, run.is_finished


@require_GET
async def run_events(request: HttpRequest, run_id: int) -> HttpResponse:
    """Server-sent events: the live region each time it changes, then ``done``.

    An async generator holds no thread while it waits, so many watchers cost little.
    """
    user = await request.auser()
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    await sync_to_async(_get_run)(run_id)  # 404 before the stream starts

    async def stream() -> AsyncIterator[str]:
        last, started = None, time.monotonic()
        while time.monotonic() - started < SSE_MAX_SECONDS:
            html, last, finished = await sync_to_async(_live_fragment)(request, run_id, last)
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
