"""Bisect in a real Chromium (issue 17, item 3): the compare page of a demo run and its fork
with another region offers a bisect of ``best_group``; pressing it queues the bisect on the
server's worker and the page it lands on polls until it names ``analyse``. Screenshots of both
at 1440 and 390 px, and neither scrolls sideways."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from runs.tests.browser.conftest import _manage
from runs.tests.helpers.browser_pages import no_sideways_scroll

pytestmark = pytest.mark.browser

RESULT_TIMEOUT_MS = 120_000
WIDTHS = ((1440, 900), (390, 844))


def shoot(page, screenshot_dir, name: str) -> None:
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        no_sideways_scroll(page)
        page.screenshot(path=screenshot_dir / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_the_compare_page_bisects_the_demo_and_names_analyse(page, rewind_server, screenshot_dir):
    run = json.loads(_manage(rewind_server.env, "rewind_run", "--json"))["run"]
    fork = json.loads(
        _manage(
            rewind_server.env,
            "rewind_fork",
            str(run),
            "--node",
            "analyse",
            "--set",
            "args.region=east",
            "--json",
        )  # fmt: skip
    )["run"]

    page.goto(f"/compare/{run}/{fork}/")
    offer = page.locator("section.bisect-offer")
    expect(offer).to_contain_text("best_group")
    shoot(page, screenshot_dir, "compare-bisect-offer")

    offer.get_by_role("button", name=f"Bisect: run {run} is right").click()
    answer = page.locator("section.bisect-answer")
    expect(answer).to_contain_text("Step analyse", timeout=RESULT_TIMEOUT_MS)
    expect(answer).to_contain_text("decides best_group")
    expect(page.locator("table.bisect-leaves")).to_contain_text("best_group")
    expect(page.locator("ol.bisect-probes li")).to_have_count(1)
    shoot(page, screenshot_dir, "bisect-result")
