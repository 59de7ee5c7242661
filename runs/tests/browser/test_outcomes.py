"""Outcomes in a real browser: a finished run's Outcomes section (the demo's declared
``best_group``), adding one from the page (htmx swaps the section in place), a refused one
showing its error inline, removing it; the runs list's outcome chips. Screenshots at 1440 and
390 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from runs.tests.helpers.browser_pages import (
    RUN_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    assert_same_document,
    finished_run,
    mark_page,
)

pytestmark = pytest.mark.browser

WIDTHS = ((1440, 900), (390, 844))


def shoot(page, screenshot_dir, name: str) -> None:
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=screenshot_dir / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_outcomes_are_shown_added_refused_and_removed_on_the_run_page(
    page, rewind_server, screenshot_dir
):
    run = finished_run(page)
    section = page.locator("#run-outcomes")
    declared = section.locator('tr[data-outcome="best_group"]')
    expect(declared.locator(".badge.outcome-pass")).to_have_text("pass", timeout=RUN_TIMEOUT_MS)
    expect(declared).to_contain_text("declared by the pipeline")
    mark_page(page)

    page.get_by_text("Add an outcome to research").click()
    form = page.locator("form.outcome-form")
    form.get_by_label("Name").fill("pattern")
    form.get_by_label("Path").fill("analyse.best_group")
    form.get_by_label("Check").select_option("regex")
    form.get_by_label("Argument").fill("(")
    form.get_by_role("button", name="Add outcome").click()
    expect(page.locator("form.outcome-form .error")).to_contain_text(
        "does not compile", timeout=UI_TIMEOUT_MS
    )
    shoot(page, screenshot_dir, "outcome-refused")

    form = page.locator("form.outcome-form")
    form.get_by_label("Argument").fill("^[AB]$")
    form.get_by_role("button", name="Add outcome").click()
    added = page.locator('#run-outcomes tr[data-outcome="pattern"]')
    expect(added).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(added.locator(".badge")).to_have_count(1)
    assert_same_document(page)  # swapped in place
    shoot(page, screenshot_dir, "run-outcomes")

    page.goto("/runs/")
    chips = page.locator(f'tr:has(a[href="/runs/{run}/"]) td.outcomes .outcome')
    expect(chips).to_have_count(2)
    expect(chips.first).to_contain_text("best_group")
    shoot(page, screenshot_dir, "runs-list-outcomes")

    page.goto(f"/runs/{run}/")
    page.get_by_role("button", name="remove the outcome pattern of research").click()
    expect(page.locator('#run-outcomes tr[data-outcome="pattern"]')).to_have_count(
        0, timeout=UI_TIMEOUT_MS
    )
    expect(page.locator('#run-outcomes tr[data-outcome="best_group"]')).to_have_count(1)
