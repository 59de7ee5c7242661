"""``/runs/<run>/events/``: server-sent events from an async view. The live region is sent as
an ``event: status`` each time it changes, then ``event: done`` once the run has finished, and
the stream ends. Async views touch the database from another context, so these tests use a
transactional database and an ``AsyncClient``."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from runs import live
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


def blocks(stream: str) -> list[dict[str, str]]:
    """The stream's events the way an EventSource reads them: ``{"id", "event", "data"}``
    each; comment lines (``: ...``) are skipped, as a browser skips them."""
    parsed = []
    for block in stream.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        event: dict[str, str] = {}
        data = []
        for line in lines:
            name, _, value = line.partition(": ")
            assert name in {"id", "event", "data"}, block
            if name == "data":
                data.append(value)
            else:
                event[name] = value
        event["data"] = "\n".join(data)
        parsed.append(event)
    return parsed


def events(stream: str) -> list[tuple[str, str]]:
    """``[(event, data)]``: the stream parsed the way an EventSource reads it."""
    return [(event["event"], event["data"]) for event in blocks(stream)]


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
    monkeypatch.setattr(live, "POLL_SECONDS", 0.01)
    real = live.marker
    calls = []

    def marker(run_id: int) -> Any:
        # The worker moves the run on between looks: one look unchanged, then a step, then done.
        calls.append(run_id)
        if len(calls) == 3:
            node_row(run, 1, "research", kind="tool")
        if len(calls) == 4:
            Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)
        return real(run_id)

    monkeypatch.setattr(live, "marker", marker)

    response, stream = fetch(url(run), dev_user)

    sent = blocks(stream)
    # the unchanged second look sends nothing
    assert [event["event"] for event in sent] == ["status", "status", "status", "done"]
    assert 'id="run-status">running</span>' in sent[0]["data"]
    assert 'id="step-1"' not in sent[0]["data"] and 'id="step-1"' in sent[1]["data"]
    assert 'id="run-status">completed</span>' in sent[2]["data"]
    # each update says where it leaves the page: a browser reconnecting sends it back
    assert [event["id"] for event in sent[:3]] == ["0:running", "1:running", "1:completed"]


def test_a_stream_ends_after_its_time_limit_without_done(run_row, dev_user, monkeypatch):
    run = run_row(status=Run.Status.RUNNING)
    monkeypatch.setattr(live, "POLL_SECONDS", 0.01)
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
