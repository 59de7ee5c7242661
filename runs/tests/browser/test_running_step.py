"""A running Burr app that branches, in a real Chromium (issue 16, item 11): while the branch it
chose executes, the page names that step ("running: answer_question"), marks it in the graph
and the timeline, and calls the branches it did not take "not run yet" — none is "waiting" or
"pending". When the step finishes the page moves on live, and once the run completed the
branches are "not taken". At 1440 px and at 390 px (nothing scrolls sideways).

A server of its own (``gated`` registered, with a worker): its ``answer_question`` holds until
the test creates the gate file (``runs/tests/helpers/gated_apps.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import (
    REPO,
    STARTUP_SECONDS,
    RewindServer,
    _free_port,
    _healthy,
    _manage,
    _stop,
    flush_reports,
    sign_in,
    watched_context,
)

pytestmark = pytest.mark.browser

DESK = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
UI_TIMEOUT_MS = 60_000
NOT_TAKEN = ("generate_image", "generate_code", "prompt_for_more")


@pytest.fixture(scope="module")
def gated(rewind_server, tmp_path_factory) -> Iterator[tuple[RewindServer, Path]]:
    """A dashboard with a worker and the gated app registered; the gate directory."""
    tmp = tmp_path_factory.mktemp("gated")
    gate = tmp / "gate"
    gate.mkdir()
    database = tmp / "db.sqlite3"
    env = {
        **rewind_server.env,
        "DATABASE_URL": f"sqlite:///{database}",
        "REWIND_ARTIFACT_DIR": str(tmp / "artifacts"),
        "REWIND_PIPELINES": "gated=runs.tests.helpers.gated_apps.application",
        "REWIND_TEST_GATE_DIR": str(gate),
    }
    _manage(env, "migrate", "--no-input", "-v", "0")
    _manage(env, "createsuperuser", "--noinput")
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = tmp / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "rewind_serve", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(base_url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the gated server did not start:\n" + log.read_text(), pytrace=False)
            time.sleep(0.2)
        server = RewindServer(
            base_url=base_url, env=env, log=log, database=database, pid=process.pid
        )
        yield server, gate
    finally:
        (gate / "open").touch()  # a run still held lets go, so the worker stops cleanly
        _stop(process)


@pytest.fixture
def gated_page(browser, gated) -> Iterator[Page]:
    server, _ = gated
    with watched_context(browser, server) as (context, watched):
        page = context.new_page()
        sign_in(page, server)
        yield page
        flush_reports(page)
        assert not watched.errors and not watched.csp_violations, watched


def no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url


def graph_node(page: Page, name: str):
    return page.locator(f'#run-graph .gnode[data-node="{name}"]')


def test_a_running_branch_is_named_and_the_others_are_not_waiting(
    gated, gated_page, screenshot_dir
):
    server, gate = gated
    page = gated_page
    queued = json.loads(
        _manage(server.env, "rewind_run", "--pipeline", "gated", "--enqueue", "--json")
    )
    run = queued["run"]

    page.set_viewport_size(DESK)
    page.goto(f"/runs/{run}/")
    status = page.locator("#run-head .status-line")
    expect(status).to_contain_text("running: answer_question", timeout=UI_TIMEOUT_MS)
    expect(page.locator("#run-status")).to_have_text("running")
    expect(status).not_to_contain_text("waiting")
    for name in NOT_TAKEN:
        expect(status).not_to_contain_text(name)
        expect(graph_node(page, name)).to_have_class("gnode state-not-run-yet")
    expect(graph_node(page, "answer_question")).to_have_class("gnode state-running")
    expect(graph_node(page, "answer_question")).to_contain_text("running")
    expect(page.locator("#run-graph .gnode.state-pending")).to_have_count(0)
    unvisited = page.locator("#timeline-unvisited li")
    expect(unvisited).to_have_count(1)
    expect(unvisited).to_contain_text("answer_question")
    expect(unvisited).to_contain_text("running")
    expect(page.locator("#run-graph .legend")).to_contain_text("running now")
    expect(page.locator("#run-graph .legend")).to_contain_text("not run yet")
    page.screenshot(path=screenshot_dir / "running-branch-1440.png", full_page=True)

    page.set_viewport_size(PHONE)
    expect(status).to_contain_text("running: answer_question")
    no_horizontal_scroll(page)
    page.screenshot(path=screenshot_dir / "running-branch-390.png", full_page=True)
    page.set_viewport_size(DESK)

    page.evaluate("window.__marker = 1")
    (gate / "open").touch()

    # The page moves on by itself: completed, the branches not taken say so, nothing runs.
    expect(page.locator("#run-status")).to_have_text("completed", timeout=UI_TIMEOUT_MS)
    expect(status).not_to_contain_text("running:")
    for name in NOT_TAKEN:
        expect(graph_node(page, name)).to_have_class("gnode state-not-taken")
    expect(page.locator("#run-graph .gnode.state-running")).to_have_count(0)
    expect(page.locator("#timeline-unvisited li")).to_have_count(0)
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    page.screenshot(path=screenshot_dir / "running-branch-done-1440.png", full_page=True)
