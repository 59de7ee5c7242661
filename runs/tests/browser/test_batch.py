"""A batch counterfactual in a real Chromium: start one from a step over the runs of the
pipeline, watch its progress bar while the queue works, then read the summary (flip rate and
its interval) and the sources, and open a source's diff. At 1440 px and at phone width (390 px)
the page never scrolls sideways. Any CSP violation fails the test (``conftest.page``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import REPO

pytestmark = pytest.mark.browser

ANALYSE = 2
RUN_TIMEOUT_MS = 90_000
BATCH_URL = re.compile(r"/batches/(\d+)/$")


def recorded(rewind_server, question: str, region: str) -> int:
    result = subprocess.run(
        [sys.executable, "manage.py", "rewind_run", "--input", f"question={question}",
         "--input", f"region={region}", "--json"],
        cwd=REPO, env=rewind_server.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["run"]


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    ), "the page scrolls sideways"


def test_a_batch_shows_its_progress_then_its_results(page, rewind_server, screenshot_dir):
    question = f"Which outreach policy is cheapest? (batch page {uuid.uuid4().hex[:8]})"
    runs = [recorded(rewind_server, question, r) for r in ("west", "east", "north")]

    page.goto(f"/runs/{runs[0]}/nodes/{ANALYSE}/batch/?field=args.region")
    page.get_by_label("New value of args.region").fill("east")
    page.get_by_label("Only runs whose inputs match").fill(f"input.question={question}")
    with rewind_server.worker_paused():
        page.get_by_role("button", name="Fork every matching run").click()
        expect(page).to_have_url(BATCH_URL)
        # Progress first: nothing has run yet.
        expect(page.locator(".progress-line .badge.status-running")).to_be_visible()
        expect(page.locator("#batch-progress")).to_have_attribute("value", "0")
        expect(page.locator("#batch-progress")).to_have_attribute("max", "3")
        suite = page.get_by_role("link", name="Download regression suite")
        expect(suite).to_have_count(0)  # offered once every run has finished
        page.screenshot(path=screenshot_dir / "batch-running.png", full_page=True)

    # Then the results, by htmx polling, without a reload.
    expect(page.locator(".progress-line .badge.status-completed")).to_be_visible(
        timeout=RUN_TIMEOUT_MS
    )
    expect(page.locator("#batch-progress")).to_have_attribute("value", "3")
    summary = page.locator("table.summary tbody tr")
    expect(summary).to_have_count(1)
    expect(summary.first).to_contain_text("best_group")
    expect(summary.first).to_contain_text("2 / 3")  # west and north flip to east's B
    expect(summary.first).to_contain_text("0.208 – 0.939")
    sources = page.locator("table.sources tbody tr")
    expect(sources).to_have_count(3)
    west = page.locator(f'table.sources tr[data-run="{runs[0]}"]')
    expect(west.locator(".badge.flip")).to_have_text("flipped")
    expect(page.locator(f'table.sources tr[data-run="{runs[1]}"] .badge.flip')).to_have_count(0)
    # The regression suite, offered once finished: rewind_export --batch's files as a zip.
    batch = BATCH_URL.search(page.url).group(1)
    with page.expect_download() as download:
        suite.click()
    assert download.value.suggested_filename == f"rewind-batch-{batch}.zip"

    page.set_viewport_size({"width": 1440, "height": 900})
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / "batch.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / "batch-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    west.get_by_role("link", name="diff").click()
    expect(page).to_have_url(re.compile(rf"/compare/{runs[0]}/\d+/$"))

    page.goto("/batches/")
    expect(page.locator("table.batches")).to_contain_text("args.region")
