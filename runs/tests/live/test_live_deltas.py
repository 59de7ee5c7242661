"""Live updates as deltas (issue 10, item 4).

A page knows where it stands (its last step, the status it shows); an update — the event
stream's or the polling fallback's — carries only what changed since: the header, the graph,
the axis and the rows of the steps after that, each appended out of band after the row before
it. These tests check what an update carries (exactly the new steps, and a size that does not
grow with the run), what it costs (the same queries at 10 and 500 steps; the "last change"
marker one query that changes only when something the page shows changes), the polling
fallback (204 while nothing changed, 286 at the end), the event stream resuming from
``Last-Event-ID``, and, on PostgreSQL, the triggers of migration 0007 and a stream woken by
them. No timings: ``rewind_bench`` measures those (runs/bench/pages.py).
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from importlib import import_module
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.db import connection, connections
from django.test import AsyncClient
from django.utils import timezone

from runs.live import changes
from runs.live.changes import Cursor
from runs.models import Node, Run
from runs.pages.timeline import nice_ceiling
from runs.pipelines.research import ORDER
from runs.tests.helpers.event_stream import blocks

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
STOP_POLLING = 286
STEP_ID = re.compile(r'<li class="step [^"]*" id="step-(\d+)"')
POSTGRESQL = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="LISTEN/NOTIFY is PostgreSQL's; on SQLite the stream polls the marker (tested here)",
)


def steps(run: Run, count: int, start: int = 0, end_ms: float | None = None, **fields: Any):
    """Steps ``start`` .. ``start + count - 1`` of ``run``, written as the engine writes them
    (each when it ends). Step 0 takes 1 s and each step after it 1 ms, so a run of 10 or of
    500 steps ends between 1 and 1.5 s: the axis of its timeline (1.5 s) stays where it is
    while steps arrive. ``end_ms`` places a single step's end elsewhere."""
    origin = run.started_at or timezone.now()
    values: dict[str, Any] = {
        "kind": Node.Kind.LLM,
        "status": Node.Status.COMPLETED,
        "cache_source": Node.CacheSource.LIVE,
        **fields,
    }
    made = Node.objects.bulk_create(
        Node(
            run=run,
            sequence_id=seq,
            name=ORDER[seq % len(ORDER)],
            output_sha256=f"{seq:064x}",
            latency_ms=1000.0 if seq == 0 else 1.0,
            total_tokens=seq,
            src_run=run,
            src_sequence_id=seq,
            **values,
        )
        for seq in range(start, start + count)
    )
    # created_at is auto_now_add: place each step where it ended.
    for node in made:
        end = end_ms if end_ms is not None else 1000 + node.sequence_id
        node.created_at = origin + timedelta(milliseconds=end)
    Node.objects.bulk_update(made, ["created_at"])


def running(run_row, count: int, **fields: Any) -> Run:
    run = run_row(status=Run.Status.RUNNING, started_at=timezone.now(), **fields)
    steps(run, count)
    return run


def status_url(run: Run, after: int, status: str = "running", **extra: Any) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"after": after, "status": status, **extra}.items())
    return f"/runs/{run.pk}/status/?{query}"


def update(client, run: Run, after: int, status: str = "running", **extra: Any) -> str:
    response = client.get(status_url(run, after, status, **extra), headers=HTMX)
    assert response.status_code in (200, STOP_POLLING), response.status_code
    return response.content.decode()


def step_ids(text: str) -> list[int]:
    return [int(seq) for seq in STEP_ID.findall(text)]


# --- what an update carries ------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, run_row):
    run = running(run_row, 1)

    response = client.get(status_url(run, 0), headers=HTMX)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_an_update_after_step_k_carries_only_the_steps_after_k(signed_in, run_row):
    run = running(run_row, 10)

    text = update(signed_in, run, after=6)

    assert "<html" not in text
    assert step_ids(text) == [7, 8, 9]
    # each row goes after the row before it, only while that one is the last
    assert '<div hx-swap-oob="afterend:#step-6:last-child"><li class="step' in text
    assert '<div hx-swap-oob="afterend:#step-8:last-child"><li class="step' in text
    # and the regions around them are swapped by id: the same partials the page renders
    for region in ("run-head", "run-graph", "timeline-axis", "timeline-unvisited", "run-poll"):
        assert re.search(rf'id="{region}"[^>]*hx-swap-oob="true"', text), region
    assert 'id="run-status">running</span>' in text and "10 steps" in text
    assert 'id="run-timeline"' not in text  # the timeline itself is not sent again
    # the poller asks next from where this update leaves the page
    assert f'hx-get="/runs/{run.pk}/status/?after=9&amp;status=running"' in text


def test_the_first_step_of_a_run_goes_into_the_empty_list(signed_in, run_row):
    run = run_row(status=Run.Status.QUEUED)
    page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert '<ol id="timeline-steps" ' in page and re.search(r'id="timeline-steps"[^>]*></ol>', page)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, started_at=timezone.now())
    steps(Run.objects.get(pk=run.pk), 2)

    text = update(signed_in, run, after=-1, status="queued")

    assert step_ids(text) == [0, 1]
    assert '<div hx-swap-oob="beforeend:#timeline-steps:empty"><li class="step' in text
    assert '<div hx-swap-oob="afterend:#step-0:last-child">' in text


@pytest.mark.parametrize("new", [1, 3])
def test_an_update_does_not_grow_with_the_length_of_the_run(signed_in, run_row, new):
    shorter, longer = running(run_row, 100), running(run_row, 500)

    small = update(signed_in, shorter, after=99 - new)
    large = update(signed_in, longer, after=499 - new)

    assert step_ids(small) == list(range(100 - new, 100))
    assert step_ids(large) == list(range(500 - new, 500))
    # The same regions and as many rows: only numbers differ (×13 → ×63 visits, tokens,
    # ids). The graph's labels grow with a run's first steps (a visit count appears at the
    # second visit; a box's title lists up to 12 visits), then stay as they are.
    assert abs(len(large) - len(small)) < 150, (len(small), len(large))
    page = signed_in.get(f"/runs/{longer.pk}/").content.decode()
    assert len(large) * 20 < len(page)


def test_the_update_keeps_the_step_the_inspector_shows_highlighted(signed_in, run_row):
    run = running(run_row, 8)

    text = update(signed_in, run, after=6, step=2)

    assert text.count('class="ring"') == 1  # the graph box of step 2's node
    assert "&amp;step=2" in text  # the next poll asks for it again
    assert step_ids(text) == [7] and 'aria-current="step"' in text.split('id="step-7"')[0]


def test_an_update_sends_the_whole_timeline_when_the_axis_moves(signed_in, run_row):
    # 10 steps end by 1.009 s (axis: 1.5 s); step 10 ends at 1.6 s, past it (axis: 2 s).
    run = running(run_row, 10)
    steps(run, 1, start=10, end_ms=1600)

    moved = update(signed_in, run, after=9)
    steps(run, 1, start=11, end_ms=1700)
    same = update(signed_in, run, after=10)

    assert nice_ceiling(1009) == 1500 and nice_ceiling(1600) == 2000
    assert re.search(r'id="run-timeline"[^>]*hx-swap-oob="true"', moved)
    assert step_ids(moved) == list(range(11))  # every bar, redrawn to the new axis
    assert 'hx-swap-oob="afterend:' not in moved
    assert "<span>2.00 s</span>" in moved
    assert step_ids(same) == [11]  # after step 10 the axis stays at 2 s: only the new row
    assert "<span>2.00 s</span>" in same


def test_inherited_steps_need_no_new_axis(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING, started_at=timezone.now())
    steps(run, 3, cache_source=Node.CacheSource.INHERITED)
    steps(run, 1, start=3)

    text = update(signed_in, run, after=2)

    assert step_ids(text) == [3]


def test_the_end_of_a_run_brings_its_artifact_and_ends_the_stream(signed_in, run_row):
    run = running(run_row, 5)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.COMPLETED, finished_at=run.started_at + timedelta(milliseconds=1500)
    )

    response = signed_in.get(status_url(run, 4), headers=HTMX)

    assert response.status_code == STOP_POLLING
    text = response.content.decode()
    assert 'id="run-status">completed</span>' in text
    assert re.search(r'id="run-artifact"[^>]*hx-swap-oob="true"', text)
    assert "This run produced no artifact." in text
    assert '<div id="run-stream" class="run-stream" hx-swap-oob="true">' in text
    assert "sse-connect" not in text and 'id="run-poll"' not in text
    assert step_ids(text) == []  # its axis (the run's exact span) is the one it had: 1.5 s


# --- the polling fallback ----------------------------------------------------------------------


def test_a_poll_while_nothing_changed_is_204_and_reads_no_step(
    signed_in, run_row, django_assert_num_queries
):
    run = running(run_row, 3)

    # 1. the session  2. the user  3. the run with its last step (the marker)
    with django_assert_num_queries(3):
        response = signed_in.get(status_url(run, 2), headers=HTMX)

    assert response.status_code == 204 and response.content == b""


def test_a_poll_of_an_ended_run_the_page_already_shows_stops_polling(signed_in, run_row):
    run = running(run_row, 3)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.FAILED)

    response = signed_in.get(status_url(run, 2, "failed"), headers=HTMX)

    assert response.status_code == STOP_POLLING and response.content == b""


def test_a_status_change_alone_is_news(signed_in, run_row):
    run = running(run_row, 0)

    text = update(signed_in, run, after=-1, status="queued")

    assert 'id="run-status">running</span>' in text and step_ids(text) == []


@pytest.mark.parametrize(
    "query", ["after=-2", "after=x", "status=done", "after=1.5", "step=-1"], ids=str
)
def test_a_bad_query_is_a_400(signed_in, run_row, query):
    run = running(run_row, 1)

    response = signed_in.get(f"/runs/{run.pk}/status/?{query}", headers=HTMX)

    assert response.status_code == 400


@pytest.mark.parametrize("count", [10, 500])
def test_an_update_costs_the_same_queries_at_any_length(
    signed_in, run_row, django_assert_num_queries, count
):
    run = running(run_row, count)

    # 1. the session  2. the user  3. the run (its parent joined) and its last step
    # 4. its steps, at once (no step was served from the cache: no cache-usage query)
    with django_assert_num_queries(4):
        text = update(signed_in, run, after=count - 2)

    assert step_ids(text) == [count - 1]


@pytest.mark.parametrize("count", [10, 500])
def test_the_page_of_a_running_run_costs_the_same_queries_at_any_length(
    signed_in, run_row, django_assert_num_queries, count
):
    run = running(run_row, count)

    # 1. the session  2. the user  3. the run (its parent joined)  4. its steps
    # 5. the dashboard's outcomes (listed; their values come once the run has finished)
    with django_assert_num_queries(5):
        text = signed_in.get(f"/runs/{run.pk}/").content.decode()

    assert step_ids(text) == list(range(count))
    assert f'sse-connect="/runs/{run.pk}/events/?after={count - 1}&amp;status=running"' in text


# --- the "last change" marker ------------------------------------------------------------------


def test_the_marker_is_one_query(run_row, django_assert_num_queries):
    run = running(run_row, 3)

    with django_assert_num_queries(1):
        assert changes.marker(run.pk) == Cursor(2, "running")
    assert changes.marker(run.pk + 1000) is None


def test_the_marker_does_not_change_when_nothing_changed(run_row):
    run = running(run_row, 3)
    before = changes.marker(run.pk)

    Run.objects.beat(run.pk)  # the heartbeat thread: the page shows no heartbeat

    assert changes.marker(run.pk) == before == Cursor(2, "running")


def test_the_marker_moves_with_a_step_and_with_the_status(run_row):
    run = running(run_row, 3)
    first = changes.marker(run.pk)
    steps(run, 1, start=3)
    second = changes.marker(run.pk)
    Run.objects.finish(run.pk, Run.Status.COMPLETED)
    third = changes.marker(run.pk)

    assert [first, second, third] == [
        Cursor(2, "running"),
        Cursor(3, "running"),
        Cursor(3, "completed"),
    ]
    assert third.finished and not second.finished


def test_the_marker_of_a_run_with_no_step_is_minus_one(run_row):
    run = run_row(status=Run.Status.QUEUED)

    assert changes.marker(run.pk) == Cursor(-1, "queued")


@pytest.mark.parametrize(
    ("token", "cursor"),
    [("4:running", Cursor(4, "running")), ("-1:", Cursor(-1, "")), ("7", Cursor(7, ""))],
)
def test_a_cursor_round_trips_through_the_event_id(token, cursor):
    assert Cursor.parse(token) == cursor
    assert Cursor.parse(cursor.token) == cursor


@pytest.mark.parametrize("token", ["", "x:running", "-2:running", "3:sleeping"])
def test_a_bad_event_id_is_ignored(token):
    assert Cursor.parse(token) is None


# --- the event stream --------------------------------------------------------------------------


def stream_of(path: str, user: Any, headers: dict[str, str] | None = None) -> str:
    async def go() -> str:
        client = AsyncClient()
        await client.aforce_login(user)
        response = await client.get(path, headers=headers or {})
        assert response.streaming
        return b"".join([c async for c in response.streaming_content]).decode()

    return async_to_sync(go)()


@pytest.mark.django_db(transaction=True)
def test_a_stream_sends_only_the_steps_after_the_page(run_row, dev_user):
    run = running(run_row, 6)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)

    sent = blocks(stream_of(f"/runs/{run.pk}/events/?after=3&status=running", dev_user))

    assert [event["event"] for event in sent] == ["status", "done"]
    assert step_ids(sent[0]["data"]) == [4, 5]
    assert sent[0]["id"] == "5:completed"


@pytest.mark.django_db(transaction=True)
def test_a_reconnecting_browser_resumes_from_its_last_event(run_row, dev_user):
    run = running(run_row, 6)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)

    # The URL is the page's (after step 1); the browser got events up to step 4 since.
    sent = blocks(
        stream_of(
            f"/runs/{run.pk}/events/?after=1&status=running",
            dev_user,
            headers={"Last-Event-ID": "4:running"},
        )
    )

    assert step_ids(sent[0]["data"]) == [5]


@pytest.mark.django_db(transaction=True)
def test_a_stream_of_a_page_that_is_up_to_date_sends_nothing_until_a_change(
    run_row, dev_user, monkeypatch
):
    from runs.views import runs as views

    run = running(run_row, 3)
    monkeypatch.setattr(changes, "POLL_SECONDS", 0.01)
    monkeypatch.setattr(views, "SSE_MAX_SECONDS", 0.2)

    stream = stream_of(f"/runs/{run.pk}/events/?after=2&status=running", dev_user)

    assert stream.startswith(": listening\n\n")
    assert blocks(stream) == []


# --- PostgreSQL: the database notifies ---------------------------------------------------------


def _listener():
    import psycopg

    params = changes.listen_params()
    assert params is not None
    listener = psycopg.connect(**params, autocommit=True)
    listener.execute(f"LISTEN {changes.CHANNEL}")
    return listener


def _notified(listener) -> list[str]:
    """The payloads of the notifications that arrived (after a round trip)."""
    listener.execute("SELECT 1")
    return [n.payload for n in listener.notifies(timeout=0.5)]


@POSTGRESQL
@pytest.mark.django_db(transaction=True)
def test_a_step_and_a_status_change_notify_and_a_heartbeat_does_not(run_row):
    run = running(run_row, 0)
    listener = _listener()
    try:
        steps(run, 1)  # committed at once (autocommit), like the engine's step transaction
        assert _notified(listener) == [str(run.pk)]
        Run.objects.beat(run.pk)  # the page shows no heartbeat
        assert _notified(listener) == []
        Run.objects.finish(run.pk, Run.Status.COMPLETED)
        assert _notified(listener) == [str(run.pk)]
    finally:
        listener.close()


@POSTGRESQL
def test_the_triggers_are_installed_by_the_migration():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname, tgrelid::regclass::text FROM pg_trigger "
            "WHERE tgname LIKE 'rewind_live_%%' ORDER BY tgname"
        )
        assert cursor.fetchall() == [
            ("rewind_live_node", "runs_node"),
            ("rewind_live_run", "runs_run"),
        ]


def test_the_migration_does_nothing_on_sqlite():
    migration = import_module("runs.migrations.0007_live_notify")
    operation = migration.Migration.operations[0]

    class FakeEditor:
        class connection:  # noqa: N801 — what schema_editor.connection answers
            vendor = "sqlite"

        def execute(self, sql: str) -> None:
            raise AssertionError(f"executed on SQLite: {sql}")

    operation.code(None, FakeEditor())
    operation.reverse_code(None, FakeEditor())


@POSTGRESQL
@pytest.mark.django_db(transaction=True)
def test_a_stream_on_postgresql_is_woken_by_a_notification(run_row, monkeypatch):
    run = running(run_row, 0)
    monkeypatch.setattr(changes, "NOTIFY_SAFETY_SECONDS", 3600)

    def commit_a_step() -> None:
        try:
            steps(run, 1)
        finally:
            connections.close_all()  # this thread's connection: the test database is dropped

    async def go() -> str:
        async with changes.waiter(run.pk) as waiting:
            assert isinstance(waiting, changes.Listener)
            wait = asyncio.create_task(waiting.wait(3600))
            await asyncio.sleep(0)
            assert not wait.done()
            await asyncio.to_thread(commit_a_step)  # another connection commits a step
            # woken by the step's notification (a guard, not a timing: it never elapses
            # unless the notification is lost)
            await asyncio.wait_for(wait, 60)
            return "woken"

    assert async_to_sync(go)() == "woken"


@POSTGRESQL
@pytest.mark.django_db(transaction=True)
def test_without_the_triggers_a_stream_on_postgresql_polls_the_marker(run_row, monkeypatch):
    monkeypatch.setattr(changes, "TRIGGERS", "SELECT 0")  # as if migration 0007 were not applied

    async def go() -> type:
        async with changes.waiter(1) as waiting:
            return type(waiting)

    assert async_to_sync(go)() is changes.Poller
