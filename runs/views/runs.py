"""A run's page and its live updates, its artifact; replay, resume and cancel.

Live updates are deltas. A page knows where it stands — the last step it shows and the run
status it shows (``changes.Cursor``, in its stream's and its poller's URLs as ``after`` and
``status``) — and an update carries only what changed since: the run's header, its graph
(its size is the pipeline's, not the run's), the axis, the steps to come, and the rows of the
steps after ``after``, each appended out of band (``pages.timeline.timeline_delta_html``). Every
region is a partial of ``run_detail.html`` that the page renders too. The event stream sends
an update when the run's marker moves (PostgreSQL: woken by a notification; SQLite: the
marker read every 0.1 s); the polling fallback asks every 3 s and gets 204 while nothing
moved, 286 once the run has ended.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
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
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling

from runs.engine.execution.artifacts import artifact_file, artifact_text
from runs.engine.execution.leases import RunFinished, cancel_run, resume_run
from runs.engine.forking.replays import replay_request
from runs.forms import LiveForm
from runs.live import changes, slots
from runs.live.changes import Cursor
from runs.models import Node, Run
from runs.pages.change import LIST_VALUE_CHARS, Change, describe_change
from runs.pages.graph import RUNNING, run_graph
from runs.pages.imports import sub_applications
from runs.pages.masking import masked
from runs.pages.outcomes import outcome_panel
from runs.pages.progress import progress
from runs.pages.runs import (
    CACHE_SOURCE_HELP,
    STEP_COLUMNS,
    Step,
    render_markdown,
    summarise,
    unregistered,
)
from runs.pages.timeline import Timeline, timeline, timeline_delta_html, timeline_rows_html
from runs.views.common import get_run, navigate, start_fork, start_run

SSE_MAX_SECONDS = 600  # a stream ends after this; the browser reconnects (EventSource does)
SSE_KEEPALIVE_SECONDS = 15  # a comment line while nothing happens, so proxies keep it open


@dataclass(frozen=True)
class LiveQuery:
    step: int | None
    cursor: Cursor


def _live_query(request: HttpRequest) -> LiveQuery | HttpResponse:
    form = LiveForm(request.GET)
    if not form.is_valid():
        errors = "; ".join(f"{name}: {' '.join(e)}" for name, e in form.errors.items())
        return HttpResponseBadRequest(errors)
    data = form.cleaned_data
    after = -1 if data["after"] is None else data["after"]
    cursor = Cursor(after, data["status"] or "")
    # A browser that reconnects on its own names the last event it got: that is newer.
    resumed = Cursor.parse(request.headers.get("Last-Event-ID", ""))
    return LiveQuery(data["step"], resumed or cursor)


def run_steps(run: Run) -> list[Step]:
    """A run's steps in order, with the columns the page reads (1 query, no model instances:
    see ``pages.runs.Step``)."""
    rows = run.nodes.order_by("sequence_id").values_list(*STEP_COLUMNS)
    return [Step._make(row) for row in rows]


def _selected(nodes: list[Step], sequence_id: int | None) -> Step | None:
    return next((n for n in nodes if n.sequence_id == sequence_id), None)


def live_urls(run: Run, cursor: Cursor, selected: Node | Step | None) -> dict[str, str]:
    """The stream's and the poller's URLs for a page that stands at ``cursor``."""
    query = {"after": cursor.after, "status": cursor.status}
    if selected is not None:
        query["step"] = selected.sequence_id
    suffix = "?" + urlencode(query)
    events, status = (reverse(name, args=[run.pk]) for name in ("run-events", "run-status"))
    return {"events": events + suffix, "status": status + suffix}


def graph_context(run: Run, nodes: list[Step], selected: Step | None = None) -> dict:
    """What the graph and the timeline show: the run's steps over its pipeline's graph (the
    path it took, ``selected`` highlighted) and where each step sat in time; the URLs of the
    live updates. No queries, but for the state a running branching run's last step left
    when a condition on the way out of it decides what runs now (``runs.pages.progress``)."""
    now = progress(run, nodes)
    graph = run_graph(run, nodes, selected, now)
    # Steps that never ran are listed while they are to come or once the run stopped short
    # of them; a branch a completed run did not take is only greyed in the graph. While a
    # branching or looping run goes on, only the step it is executing is listed: which
    # branch comes next is decided at run time, so none is "waiting".
    if not now.linear:
        unvisited, state = ((now.running,), RUNNING) if now.running else ((), "")
    elif graph.unvisited_state != "not taken":
        unvisited, state = graph.unvisited, graph.unvisited_state
    else:
        unvisited, state = (), graph.unvisited_state
    line = timeline(run, nodes, unvisited, state)
    return {
        "run": run,
        "progress": now,
        "graph": graph,
        "timeline": line,
        # Rendered only if the template writes them (an update writes new rows instead).
        "timeline_rows": partial(timeline_rows_html, line.steps, run.pk, selected),
        "selected": selected,
        "cache_help": CACHE_SOURCE_HELP,
        "live": live_urls(run, Cursor(line.last_sequence_id, run.status), selected),
    }


def run_context(run: Run, nodes: list[Step], selected: Step | None = None) -> dict:
    """What the run page and its live updates show: the summary, the graph, the timeline and
    the artifact. One query at most (the cache usage behind "tokens avoided"), whatever the
    number of steps."""
    text = artifact_text(run) if run.is_finished else None
    context = graph_context(run, nodes, selected)
    return {
        **context,
        "change": describe_change(run),
        "unregistered": unregistered(run),
        "summary": summarise(run, nodes, context["progress"]),
        # Masked before it is rendered: a key's block spans lines, which markdown would break.
        "artifact_html": render_markdown(masked(text)) if text is not None else None,
        # Called by the template, only where it shows the Outcomes section: a live update
        # while the run goes on computes nothing for it.
        "outcomes": partial(outcome_panel, run),
        # Called by the page's header only (never by a live update): an imported run's
        # sub-applications, one query; none for a run made here.
        "sub_applications": partial(sub_applications, run),
    }


def _rescaled(cursor: Cursor, line: Timeline) -> bool:
    """True if the bars a page at ``cursor`` shows were drawn to another axis than ``line``'s:
    the update then sends the whole timeline (an axis only moves when the run outgrows it —
    a few times per tenfold; see ``pages.timeline.NICE_STEPS``)."""
    was = line.scale_at(cursor.after, cursor.finished)
    return was is not None and was != line.scale_ms


def live_update(
    request: HttpRequest, run: Run, nodes: list[Step], cursor: Cursor, step: int | None
) -> str:
    """The update for a page at ``cursor``: the partials that changed, out of band."""
    context = run_context(run, nodes, _selected(nodes, step))
    line = context["timeline"]
    rescale = _rescaled(cursor, line)
    context["rescale"] = rescale
    if not rescale:
        context["new_rows"] = timeline_delta_html(
            line.steps, cursor.after, run.pk, context["selected"]
        )
    # With the request, so the forms in the header carry the CSRF token.
    return render_to_string("runs/run_detail.html#live-update", context, request=request)


def _get_live_run(run_id: int) -> Run:
    """The run (its parent joined) and its marker's last step, in one query."""
    try:
        return (
            Run.objects.select_related("parent")
            .annotate(last_step=changes.last_step())
            .get(pk=run_id)
        )
    except Run.DoesNotExist:
        raise Http404(f"no run {run_id}") from None


def _update_since(request: HttpRequest, run_id: int, cursor: Cursor, step: int | None):
    """``(html, cursor)``: the update for a page at ``cursor`` and where it then stands, or
    ``("", cursor)`` when nothing changed. The new cursor is what was rendered: a step
    written between the run's query and the steps' is in this update, so not in the next."""
    run = _get_live_run(run_id)
    if Cursor(-1 if run.last_step is None else run.last_step, run.status) == cursor:
        return "", cursor
    nodes = run_steps(run)
    now = Cursor(nodes[-1].sequence_id if nodes else -1, run.status)
    return live_update(request, run, nodes, cursor, step), now


@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_run(run_id)
    context = {**run_context(run, run_steps(run)), "change": header_change(run)}
    return render(request, "runs/run_detail.html", context)


def header_change(run: Run) -> Change:
    """What the page's header says the run changed: a fork's value too long to show whole is
    shown by its first changed words against its source step, read here (one query, only
    for such a fork; the header is not part of the live updates)."""
    change = describe_change(run)
    if change.is_fork and len(change.value_text) > LIST_VALUE_CHARS and run.parent_id:
        source = run.parent.nodes.filter(sequence_id=run.fork_sequence_id).first()
        if source is not None:
            change = describe_change(run, source)
    return change


@require_GET
def run_status(request: HttpRequest, run_id: int) -> HttpResponse:
    """The polling fallback: the update since ``after``/``status``; 204 while nothing
    changed; 286 (htmx: stop polling) once the run has ended."""
    query = _live_query(request)
    if isinstance(query, HttpResponse):
        return query
    html, cursor = _update_since(request, run_id, query.cursor, query.step)
    status = HttpResponseStopPolling.status_code if cursor.finished else 200
    if not html:
        return HttpResponse(status=status if cursor.finished else 204)
    return HttpResponse(html, status=status)


_LINES = re.compile(r"\r\n|\r|\n")  # what ends a line in an event stream (and nothing else)


def _event(name: str, data: str, event_id: str = "") -> str:
    lines = "".join(f"data: {line}\n" for line in _LINES.split(data))
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {name}\n{lines}\n"


def _too_many_streams() -> HttpResponse:
    """A refused stream. Any status but 200 fails an EventSource for good (no reconnection of
    its own); the htmx SSE extension then tries again after 0.5 s, 1 s, 2 s … up to 64 s, and
    meanwhile the page's poller (``run-poll``, every 3 s) keeps it current."""
    response = HttpResponse(
        "Too many live-update streams are open; this page polls for updates instead.\n",
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = "30"
    return response


@require_GET
async def run_events(request: HttpRequest, run_id: int) -> HttpResponse:
    """Server-sent events: an update (``status``) each time the run changes, then ``done``.

    An async generator holds no thread while it waits, so many watchers cost little. It
    waits on ``changes.waiter``: a notification on PostgreSQL, the marker every 0.1 s on
    SQLite; the marker is read (one query) before anything is rendered.
    """
    user = await request.auser()
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    query = _live_query(request)
    if isinstance(query, HttpResponse):
        return query
    await sync_to_async(get_run)(run_id)  # 404 before the stream starts
    slot = await slots.claim(user.pk)
    if slot is None:  # over the cap: the page's poller carries the updates
        return _too_many_streams()

    async def stream() -> AsyncIterator[str]:
        cursor = query.cursor
        try:
            async with changes.waiter(run_id, session=slot.connection) as waiting:
                yield ": listening\n\n"  # a comment: the stream is open and waiting
                started = quiet = time.monotonic()
                while (left := SSE_MAX_SECONDS - (time.monotonic() - started)) > 0:
                    current = await sync_to_async(changes.marker)(run_id)
                    if current is None:  # the run was deleted
                        return
                    if current != cursor:
                        html, cursor = await sync_to_async(_update_since)(
                            request, run_id, cursor, query.step
                        )
                        if html:
                            yield _event("status", html, cursor.token)
                            quiet = time.monotonic()
                    if cursor.finished:
                        yield _event("done", "done")
                        return
                    if time.monotonic() - quiet > SSE_KEEPALIVE_SECONDS:
                        yield ": keepalive\n\n"
                        quiet = time.monotonic()
                    await waiting.wait(left)
        finally:  # also when the client went away (the task is cancelled); a stream that never
            # started gives its slot back when it is collected (files and connection close)
            await slot.release()

    response = StreamingHttpResponse(stream(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@require_GET
def run_artifact(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_run(run_id)
    path = artifact_file(run)
    if path is None:
        raise Http404(f"run {run.pk} has no artifact")
    # What looks like a secret is masked here as on the page; the file keeps it exactly (the
    # sha256 the page shows is the file's).
    data = path.read_bytes()
    try:
        data = masked(data.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        pass  # not text: served as it is
    return FileResponse(
        io.BytesIO(data),
        as_attachment=True,
        filename=f"rewind-run-{run.pk}.md",
        content_type="text/markdown",
    )


@require_POST
def run_resume(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_run(run_id)
    return start_run(request, lambda: resume_run(run))


@require_POST
def run_replay(request: HttpRequest, run_id: int) -> HttpResponse:
    """Replay unchanged; a replay of this run still on its way is opened instead (a double
    submit), a finished one is not (asking again checks again)."""
    run = get_run(run_id)
    reason = unregistered(run)
    if reason:  # the replay would be queued and fail in the worker: say what to register
        return HttpResponseBadRequest(reason)
    return start_fork(request, lambda: replay_request(run), "this replay")


@require_POST
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    """Cancel a queued or running run (any signed-in user may: every user sees every run),
    then show its page; 409 when it has already finished."""
    run = get_run(run_id)
    try:
        cancel_run(run, by=request.user.get_username())
    except RunFinished as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    return navigate(request, reverse("run-detail", args=[run.pk]))
