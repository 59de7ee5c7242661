"""Live updates as deltas, in a real Chromium against the real server (``rewind_serve``).

The test plays the engine: it writes a running run and then its steps one at a time, each in
a process of its own (``manage.py shell``) on the server's database, and watches the open page
take each step in place — the row appended to the timeline, the header and the graph redrawn
— in the same document, in order, never twice, with no Content-Security-Policy violation (the
``page`` fixture). An update delivered twice (the stream and the poller both brought it)
changes nothing; a step appended live opens in the inspector like any other; the end of the
run brings the artifact section and ends the stream. Screenshots at 1440 px and 390 px while
the run is live and after.
"""

from __future__ import annotations

import http.client

import pytest
from playwright.sync_api import Page, expect

from runs.pipelines.research import ORDER
from runs.tests.browser.conftest import RewindServer, _manage

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 30_000

NEW_RUN = """
from django.utils import timezone
from runs.models import Run
run = Run.objects.create(
    pipeline="research", status="running", started_at=timezone.now(),
    provider={"model": "rewind-sim-1", "temperature": 0.0, "simulator": True},
    inputs={"region": "all"},
)
Run.objects.filter(pk=run.pk).update(root=run)
print(run.pk)
"""

STEP = """
from django.db import transaction
from runs.models import Edge, Node, Run
run = Run.objects.get(pk={run})
with transaction.atomic():  # a step as the engine commits one: its row and its edge
    Node.objects.create(
        run=run, sequence_id={seq}, name="{name}", kind="llm", status="completed",
        cache_source="live", output_sha256="{seq:064x}", latency_ms=40.0 * ({seq} + 1),
        total_tokens=100 * ({seq} + 1), model_requested="rewind-sim-1",
        model_answered="rewind-sim-1", src_run=run, src_sequence_id={seq},
    )
    if {seq}:
        Edge.objects.create(run=run, sequence_id={seq}, from_node="{before}", to_node="{name}")
"""

FINISH = """
from runs.models import Run
Run.objects.finish({run}, "completed")
"""


def shell(server: RewindServer, code: str) -> str:
    return _manage(server.env, "shell", "--no-imports", "-c", code).strip()


def add_step(server: RewindServer, run: int, seq: int) -> None:
    name, before = ORDER[seq % len(ORDER)], ORDER[(seq - 1) % len(ORDER)]
    shell(server, STEP.format(run=run, seq=seq, name=name, before=before))


def row_ids(page: Page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#timeline-steps > li')].map(li => li.id)")


def test_a_running_runs_page_takes_each_step_in_place(page, rewind_server, screenshot_dir):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    run = int(shell(rewind_server, NEW_RUN))
    add_step(rewind_server, run, 0)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"/runs/{run}/")
    page.evaluate("window.__marker = 1")
    rows = page.locator("#timeline-steps > li")
    expect(rows).to_have_count(1)
    expect(page.locator("#run-status")).to_have_text("running")

    for seq in range(1, 4):
        add_step(rewind_server, run, seq)
        expect(page.locator(f"#step-{seq}")).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(rows).to_have_count(seq + 1)
        assert row_ids(page) == [f"step-{n}" for n in range(seq + 1)]
        expect(page.locator("#run-head .status-line")).to_contain_text(f"{seq + 1} steps")
        expect(page.locator("#run-head .status-line")).to_contain_text(
            "waiting: " + ", ".join(ORDER[seq + 1 :])
        )
        expect(page.locator(f'#run-graph .gnode[data-node="{ORDER[seq]}"]')).to_have_class(
            "gnode state-visited src-live kind-llm"
        )
    expect(page.locator("#run-graph path.edge.taken")).to_have_count(3)
    assert any(f"/runs/{run}/events/" in url for url in requested), "no event stream"
    page.screenshot(path=screenshot_dir / "run-live-deltas.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=screenshot_dir / "run-live-deltas-phone.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1440, "height": 900})

    # An update that arrives twice, or late, changes nothing: each row goes after the row
    # before it only while that one is the last.
    stale = page.evaluate(
        f"fetch('/runs/{run}/status/?after=1&status=running', {{headers: {{'HX-Request': 'true'}}}})"
        ".then(r => r.text())"
    )
    assert 'id="step-2"' in stale and 'id="step-3"' in stale
    for _ in range(2):
        page.evaluate("html => htmx.swap('#run-poll', html, {swapStyle: 'none'})", stale)
    assert row_ids(page) == [f"step-{n}" for n in range(4)]

    # A row that came live opens in the inspector like any other.
    page.locator("#step-2").get_by_role("link").click()
    expect(page.locator("#inspector h2")).to_contain_text(ORDER[2], timeout=UI_TIMEOUT_MS)
    expect(page.locator("#step-2")).to_have_attribute("aria-current", "step")
    # ... and the stream, now asking for that step, keeps bringing the next ones.
    add_step(rewind_server, run, 4)
    expect(page.locator("#step-4")).to_be_visible(timeout=UI_TIMEOUT_MS)
    assert row_ids(page) == [f"step-{n}" for n in range(5)]
    expect(page.locator("#step-2")).to_have_attribute("aria-current", "step")

    shell(rewind_server, FINISH.format(run=run))
    expect(page.locator("#run-status")).to_have_text("completed", timeout=UI_TIMEOUT_MS)
    expect(page.locator("section.artifact")).to_contain_text("This run produced no artifact.")
    expect(page.get_by_role("button", name="Replay unchanged")).to_be_enabled()
    expect(page.locator("#run-stream > *")).to_have_count(0)  # no stream, no poller
    assert row_ids(page) == [f"step-{n}" for n in range(5)]
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    page.screenshot(path=screenshot_dir / "run-live-deltas-finished.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=screenshot_dir / "run-live-deltas-finished-phone.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def hold_streams(page: Page, server: RewindServer, path: str, count: int) -> list:
    """``count`` event streams of ``path`` opened with the page's session, as other tabs and
    devices of the same user would hold them (outside this browser: over HTTP/1.1 a browser
    keeps six connections to a host, and the page must still load)."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    host, port = server.base_url.removeprefix("http://").split(":")
    held = []
    for _ in range(count):
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.request("GET", path, headers={"Cookie": cookies})
        response = connection.getresponse()
        assert response.status == 200, response.status
        assert response.readline() == b": listening\n"
        held.append(connection)
    return held


def test_a_page_over_the_stream_cap_is_refused_the_stream_and_polls(page, rewind_server):
    """The user holds the four streams a user may open (REWIND_STREAMS_PER_USER's default),
    from other tabs and devices; the page's own stream is answered 429, and its poller still
    brings the steps and the end of the run."""
    run = int(shell(rewind_server, NEW_RUN))
    add_step(rewind_server, run, 0)
    held = hold_streams(page, rewind_server, f"/runs/{run}/events/", 4)
    try:
        with page.expect_response(lambda r: "/events/" in r.url) as refused:
            page.goto(f"/runs/{run}/")
        assert refused.value.status == 429

        add_step(rewind_server, run, 1)
        expect(page.locator("#timeline-steps > li")).to_have_count(2, timeout=UI_TIMEOUT_MS)
        shell(rewind_server, FINISH.format(run=run))
        expect(page.locator("#run-status")).to_have_text("completed", timeout=UI_TIMEOUT_MS)
    finally:
        for connection in held:
            connection.close()


def test_six_tabs_of_a_running_run_leave_the_browser_a_connection_to_load_a_page(
    page, rewind_server
):
    """Over HTTP/1.1 a browser keeps six connections to a host, and an open stream holds one:
    with six tabs streaming, a seventh page would never load. Four streams a user, so the
    fifth and sixth tabs poll, and the browser can still open a page."""
    run = int(shell(rewind_server, NEW_RUN))
    add_step(rewind_server, run, 0)
    statuses = []
    tabs = []
    for _ in range(6):
        tab = page.context.new_page()
        with tab.expect_response(lambda r: "/events/" in r.url) as stream:
            tab.goto(f"/runs/{run}/")
        statuses.append(stream.value.status)
        tabs.append(tab)
    try:
        page.goto("/runs/")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        assert statuses == [200] * 4 + [429] * 2
    finally:
        for tab in tabs:
            tab.close()
        shell(rewind_server, FINISH.format(run=run))
