"""Outcomes in a real browser: a finished run's Outcomes section (the demo's declared
``best_group``), adding one from the page (htmx swaps the section in place), a refused one
showing its error inline, removing it; the runs list's outcome chips. Screenshots at 1440 and
390 px."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from runs.tests.helpers.browser_pages import (
    RUN_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    assert_same_document,
    finished_run,
    mark_page,
    no_sideways_scroll,
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


def test_a_check_that_cannot_be_evaluated_marks_its_outcome_error_never_the_page(
    page, rewind_server, screenshot_dir
):
    """Issue 34, item 1: a recursive JSON schema (``{"$ref": "#"}``) stored before checks were
    validated when declared — the row is written straight into the server's database — marks
    that outcome ``error`` on the run page and in the runs list; both pages load, and the
    Remove button takes it away."""
    run = finished_run(page)
    with sqlite3.connect(rewind_server.database) as db:
        db.execute(
            "INSERT INTO runs_outcome (pipeline, name, path, check_kind, check_argument, "
            "created_at) VALUES ('research', 'looping', 'analyse.best_group', 'json_schema', "
            "?, ?)",
            (json.dumps({"$ref": "#"}), datetime.now(UTC).isoformat()),
        )
    try:
        page.goto(f"/runs/{run}/")
        row = page.locator('#run-outcomes tr[data-outcome="looping"]')
        expect(row.locator(".badge.outcome-error")).to_have_text("error", timeout=UI_TIMEOUT_MS)
        declared = page.locator('#run-outcomes tr[data-outcome="best_group"]')
        expect(declared.locator(".badge.outcome-pass")).to_have_text("pass")
        no_sideways_scroll(page)
        shoot(page, screenshot_dir, "run-outcome-error")

        page.goto("/runs/")
        chip = page.locator(f'tr:has(a[href="/runs/{run}/"]) td.outcomes .outcome-error')
        expect(chip).to_contain_text("looping", timeout=UI_TIMEOUT_MS)
        shoot(page, screenshot_dir, "runs-list-outcome-error")
        assert page.request.get(f"/api/runs/{run}").status == 200

        page.goto(f"/runs/{run}/")
        page.get_by_role("button", name="remove the outcome looping of research").click()
        expect(page.locator('#run-outcomes tr[data-outcome="looping"]')).to_have_count(
            0, timeout=UI_TIMEOUT_MS
        )
    finally:
        with sqlite3.connect(rewind_server.database) as db:
            db.execute("DELETE FROM runs_outcome WHERE name = 'looping'")
