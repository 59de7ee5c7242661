"""``/runs/<run>/events/``: server-sent events from an async view. The live region is sent as
an ``event: status`` each time it changes, then ``event: done`` once the run has finished, and
the stream ends. Async views touch the database from another context, so these tests use a
transactional database and an ``AsyncClient``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, override_settings

from runs.live import changes
from runs.models import Run
from runs.tests.helpers.event_stream import blocks
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
    monkeypatch.setattr(changes, "POLL_SECONDS", 0.01)
    real = changes.marker
    calls = []

    def marker(run_id: int) -> Any:
        # The worker moves the run on between looks: one look unchanged, then a step, then done.
        calls.append(run_id)
        if len(calls) == 3:
            node_row(run, 1, "research", kind="tool")
        if len(calls) == 4:
            Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)
        return real(run_id)

    monkeypatch.setattr(changes, "marker", marker)

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
    monkeypatch.setattr(changes, "POLL_SECONDS", 0.01)
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


# --- how many streams may be open (runs.live.slots) ---------------------------------------------------


async def open_stream(client: AsyncClient, path: str) -> tuple[Any, asyncio.Task | None]:
    """GET a stream and read its first chunk; returns the response and a task that keeps
    reading it (cancelled = the client went away), or None when the stream was refused."""
    response = await client.get(path)
    if not response.streaming:
        return response, None
    chunks = response.streaming_content
    assert await anext(chunks) == b": listening\n\n"

    async def read_on() -> None:
        async for _ in chunks:
            pass

    return response, asyncio.create_task(read_on())


async def hang_up(task: asyncio.Task) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def signed_in(user: Any) -> AsyncClient:
    client = AsyncClient()
    await client.aforce_login(user)
    return client


@override_settings(REWIND_STREAMS_PER_USER=2, REWIND_STREAMS_TOTAL=10)
def test_a_user_over_the_stream_cap_is_refused_and_the_page_keeps_polling(
    run_row, dev_user, monkeypatch
):
    monkeypatch.setattr(changes, "POLL_SECONDS", 0.01)
    run = run_row(status=Run.Status.RUNNING)

    async def go() -> None:
        client = await signed_in(dev_user)
        streams = [await open_stream(client, url(run)) for _ in range(2)]
        refused, task = await open_stream(client, url(run))
        polled = await client.get(f"/runs/{run.pk}/status/?after=-1&status=")
        for _, reading in streams:
            await hang_up(reading)

        assert [response.status_code for response, _ in streams] == [200, 200]
        # not 200 and not an event stream: an EventSource fails without reconnecting itself
        assert task is None and refused.status_code == 429
        assert refused["Content-Type"].startswith("text/plain")
        assert "polls for updates instead" in refused.content.decode()
        # the polling fallback is not capped
        assert polled.status_code == 200 and 'id="run-status">running</span>' in polled.text

    async_to_sync(go)()


@override_settings(REWIND_STREAMS_PER_USER=2, REWIND_STREAMS_TOTAL=10)
def test_a_stream_whose_client_went_away_gives_its_slot_back(run_row, dev_user, monkeypatch):
    monkeypatch.setattr(changes, "POLL_SECONDS", 0.01)
    run = run_row(status=Run.Status.RUNNING)

    async def go() -> None:
        client = await signed_in(dev_user)
        (_, first), (_, second) = [await open_stream(client, url(run)) for _ in range(2)]
        full, _ = await open_stream(client, url(run))
        await hang_up(first)
        again, third = await open_stream(client, url(run))
        await hang_up(second)
        await hang_up(third)

        assert full.status_code == 429
        assert again.status_code == 200

    async_to_sync(go)()


@override_settings(REWIND_STREAMS_PER_USER=1, REWIND_STREAMS_TOTAL=10)
def test_a_stream_that_ended_gives_its_slot_back(run_row, node_row, dev_user):
    run = run_row(status=Run.Status.COMPLETED)
    node_row(run, 0, "plan")

    codes = [fetch(url(run), dev_user)[0].status_code for _ in range(3)]

    assert codes == [200, 200, 200]  # one slot, taken and given back each time


@override_settings(REWIND_STREAMS_PER_USER=2, REWIND_STREAMS_TOTAL=3)
def test_the_cap_in_all_holds_across_users(run_row, dev_user, staff_user, monkeypatch):
    monkeypatch.setattr(changes, "POLL_SECONDS", 0.01)
    run = run_row(status=Run.Status.RUNNING)

    async def go() -> None:
        dev, lead = await signed_in(dev_user), await signed_in(staff_user)
        (_, first), (_, second) = [await open_stream(dev, url(run)) for _ in range(2)]
        _, third = await open_stream(lead, url(run))
        refused, _ = await open_stream(lead, url(run))  # the lead has one of two, all 3 are taken
        await hang_up(first)
        admitted, fourth = await open_stream(lead, url(run))
        for task in (second, third, fourth):
            await hang_up(task)

        assert refused.status_code == 429
        assert admitted.status_code == 200

    async_to_sync(go)()
