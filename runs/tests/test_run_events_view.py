"""``/runs/<run>/events/``: server-sent events from an async view. The live region is sent as
an ``event: status`` each time it changes, then ``event: done`` once the run has finished, and
the stream ends. Async views touch the database from another context, so these tests use a
transactional database and an ``AsyncClient``."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from runs.models import Run
from runs.views import runs as views

pytestmark = pytest.mark.django_db(transaction=True)


def url(run: Run | int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/events/"


def fetch(path: str, user: Any = None) -> tuple[Any, str]:
    """GET ``path`` through the ASGI handler; returns the response and the whole stream."""

    async def go() -> tuple[Any, str]:
        client = AsyncClient()
        if user is not None:
            await client.aforce_login(user)
        response = await client.get(path)
        if not response.streaming:
            return response, response.content.decode()
        chunks = [chunk async for chunk in response.streaming_content]
        return response, b"".join(
            c if isinstance(c, bytes) else c.encode() for c in chunks
        ).decode()

    return async_to_sync(go)()


def events(stream: str) -> list[tuple[str, str]]:
    """``[(event, data)]``: the stream parsed the way an EventSource reads it."""
    parsed = []
    for block in stream.split("\n\n"):
        if not block.strip():
            continue
        lines = block.split("\n")
        assert lines[0].startswith("event: "), block
        assert all(line.startswith("data: ") for line in lines[1:]), block
        data = "\n".join(line.removeprefix("data: ") for line in lines[1:])
        parsed.append((lines[0].removeprefix("event: "), data))
    return parsed


def test_anonymous_user_is_sent_to_login(run_row):
    run = run_row()

    response, _ = fetch(url(run))

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{run.pk}/events/"


def test_unknown_run_is_404_before_any_stream(run_row, dev_user):
    run = run_row()

    response, _ = fetch(url(run.pk + 1000), dev_user)

    assert response.status_code == 404
    assert not response.streaming


def test_a_finished_run_sends_its_status_once_then_done(run_row, node_row, dev_user):
    run = run_row(status=Run.Status.COMPLETED)
    node_row(run, 0, "plan", total_tokens=258)

    response, stream = fetch(url(run), dev_user)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    sent = events(stream)
    assert [name for name, _ in sent] == ["status", "done"]
    status = sent[0][1]
    assert "<html" not in status
    assert 'id="run-status">completed</span>' in status
    assert '<span class="name">plan</span>' in status and "258 tok" in status
    assert stream.endswith("event: done\ndata: done\n\n")


def test_an_unfinished_run_streams_each_change_then_done(run_row, node_row, dev_user, monkeypatch):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0, "plan")
    monkeypatch.setattr(views, "SSE_POLL_SECONDS", 0.01)
    real = views._live_fragment
    calls = []

    def live_fragment(*args: Any) -> Any:
        # The worker moves the run on between polls: one poll unchanged, then a step, then done.
        calls.append(args)
        if len(calls) == 3:
            node_row(run, 1, "research", kind="tool")
        if len(calls) == 4:
            Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)
        return real(*args)

    monkeypatch.setattr(views, "_live_fragment", live_fragment)

    response, stream = fetch(url(run), dev_user)

    sent = events(stream)
    # the unchanged second poll sends nothing
    assert [name for name, _ in sent] == ["status", "status", "status", "done"]
    assert 'id="run-status">running</span>' in sent[0][1]
    assert 'id="step-1"' not in sent[0][1] and 'id="step-1"' in sent[1][1]
    assert 'id="run-status">completed</span>' in sent[2][1]


def test_a_stream_ends_after_its_time_limit_without_done(run_row, dev_user, monkeypatch):
    run = run_row(status=Run.Status.RUNNING)
    monkeypatch.setattr(views, "SSE_POLL_SECONDS", 0.01)
    monkeypatch.setattr(views, "SSE_MAX_SECONDS", 0.1)

    response, stream = fetch(url(run), dev_user)

    assert response.status_code == 200
    assert [name for name, _ in events(stream)] == ["status"]  # the browser reconnects


def test_post_is_not_allowed(run_row, dev_user):
    run = run_row()

    async def go() -> int:
        client = AsyncClient()
        await client.aforce_login(dev_user)
        return (await client.post(url(run))).status_code

    assert async_to_sync(go)() == 405
