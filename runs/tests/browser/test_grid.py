"""The what-if grid and the stability page in a real Chromium: try several values of a step,
watch the forks fill the matrix, open a cell's diff; sample the run, watch the histograms
arrive, and read the noise verdicts on the compare page. At phone width the page itself never
scrolls sideways: a wide matrix scrolls inside its own box. Any CSP violation fails the test
(``conftest.page``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import REPO

pytestmark = pytest.mark.browser

STEPS = 8  # the research pipeline
ANALYSE = 2
RUN_TIMEOUT_MS = 60_000
GRID_URL = re.compile(r"/grids/(\d+)/$")


def warm_run(rewind_server) -> int:
    """A finished run of the demo at temperature 0.8, made in the server's database by the
    command line (it executes in its own process)."""
    result = subprocess.run(
        [sys.executable, "manage.py", "rewind_run", "--temperature", "0.8", "--json"],
        cwd=REPO,
        env=rewind_server.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)
    assert run["status"] == "completed", run
    return run["run"]


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    ), "the page scrolls sideways"


def test_try_several_values_then_sample_and_read_the_verdicts(page, rewind_server, screenshot_dir):
    run = warm_run(rewind_server)

    # --- a grid over args.region at analyse -----------------------------------------------
    page.goto(f"/runs/{run}/nodes/{ANALYSE}/grid/?field=args.region")
    page.get_by_label("Values of args.region, one per line").fill("all\neast\nwest")
    page.get_by_role("button", name="Fork once per value").click()
    expect(page).to_have_url(GRID_URL)
    matrix = page.locator("table.matrix")
    expect(matrix.locator("tbody tr")).to_have_count(4)  # the parent and three values
    expect(matrix.locator("td.cell.pending")).to_have_count(0, timeout=RUN_TIMEOUT_MS)
    expect(page.locator(".badge.status-running")).to_have_count(0, timeout=RUN_TIMEOUT_MS)
    expect(matrix.locator("td.cell")).to_have_count(4 * STEPS)

    parent, same, east, west = (matrix.locator("tbody tr").nth(i) for i in range(4))

    def letters(row) -> list[str]:
        return [row.locator("td.cell .label").nth(i).inner_text().strip() for i in range(STEPS)]

    def fill(row, i: int) -> str | None:
        rect = row.locator("td.cell").nth(i).locator("rect")
        return rect.get_attribute("fill") if rect.count() else None

    # The readable grid (issue 17): "=" for the parent's output, neutral and uncoloured; a
    # letter per other output of a step, on its own colour, framed.
    assert letters(parent) == ["="] * STEPS and letters(same) == ["="] * STEPS
    assert [fill(same, i) for i in range(STEPS)] == [None] * STEPS
    assert letters(east)[:ANALYSE] == ["="] * ANALYSE  # inherited steps
    assert letters(east)[ANALYSE] == "A" and letters(west)[ANALYSE] == "B"
    assert (
        fill(east, ANALYSE) and fill(west, ANALYSE) and fill(east, ANALYSE) != fill(west, ANALYSE)
    )
    changed = east.locator("td.cell.changed").first
    expect(changed).to_be_visible()
    frame = changed.evaluate("el => getComputedStyle(el, '::after').borderTopWidth")
    assert frame == "3px", frame  # the "differs from the parent" frame is not a hairline
    expect(page.locator("table.leaves-side tbody tr")).to_have_count(4)
    page.set_viewport_size({"width": 1440, "height": 900})
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / "grid.png", full_page=True)

    # a phone: the matrix scrolls inside its box, the page does not; the letters stay legible
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    no_sideways_scroll(page)
    box = page.locator(".scroll-x").first
    assert box.evaluate("el => el.scrollWidth > el.clientWidth"), "the matrix should scroll"
    cell = matrix.locator("tbody tr").nth(2).locator("td.cell").nth(ANALYSE)
    cell.scroll_into_view_if_needed()
    assert cell.locator(".label").inner_text().strip() == "A"
    width = cell.evaluate("el => el.getBoundingClientRect().width")
    assert width >= 30, width  # a cell a finger can hit, its letter inside it
    page.screenshot(path=screenshot_dir / "grid-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # a changed cell opens the fork's diff against the parent
    east.locator("td.cell.changed a").first.click()
    expect(page).to_have_url(re.compile(rf"/compare/{run}/\d+/$"))
    fork_url = page.url

    # --- sample the run -----------------------------------------------------------------------
    page.goto(f"/runs/{run}/stability/")
    expect(page.get_by_text("No samples yet")).to_be_visible()
    page.get_by_label("samples").fill("3")
    page.get_by_role("button", name="Sample k times").click()
    expect(page).to_have_url(re.compile(rf"/runs/{run}/stability/\?k=3&node=\d+$"))
    expect(page.get_by_label("samples")).to_have_value("3")  # the form as it was sent
    # the live region updates itself until every sample has finished
    expect(page.locator(".badge", has_text="sampling")).to_have_count(0, timeout=RUN_TIMEOUT_MS)
    expect(page.locator("svg.histogram")).to_have_count(STEPS)
    expect(page.get_by_role("heading", name="3 samples")).to_be_visible()
    critique = page.locator("table.stability tr", has=page.get_by_role("link", name="critique"))
    assert critique.locator("rect.bar").count() > 1, "an llm step at 0.8 should jitter"
    analyse = page.locator("table.stability tr", has=page.get_by_role("link", name="analyse"))
    expect(analyse.locator("rect.bar")).to_have_count(1)
    page.screenshot(path=screenshot_dir / "stability.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / "stability-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # --- the fork's diff now tells its change from the jitter -----------------------------------
    page.goto(fork_url)
    verdicts = page.locator("section.noise-verdicts")
    expect(verdicts).to_be_visible()
    analyse_row = verdicts.locator("tr", has_text="analyse")
    expect(analyse_row.locator(".badge.noise-beyond-noise")).to_be_visible()
    critique_row = verdicts.locator("tr", has_text="critique")
    # The llm step's texts are judged one way or the other, by the draws: a verdict is shown.
    expect(
        critique_row.locator(
            ".badge.noise-within-noise, .badge.noise-beyond-noise, .badge.noise-uncertain"
        ).first
    ).to_be_visible()
    page.screenshot(path=screenshot_dir / "compare-verdicts.png", full_page=True)

    # --- the grid is listed ----------------------------------------------------------------------
    page.goto("/grids/")
    expect(page.locator("table.grids tbody tr").first).to_contain_text("args.region")


def test_a_crossed_grid_has_a_row_per_pair_of_values(page, rewind_server, screenshot_dir):
    run = warm_run(rewind_server)

    page.goto(f"/runs/{run}/nodes/{ANALYSE}/grid/?field=args.region")
    page.get_by_label("Values of args.region, one per line").fill("east\nwest")
    page.get_by_label("Second field", exact=True).select_option("args.min_contacts")
    page.get_by_label("Values of the second field, one per line").fill("2\n3")
    page.get_by_role("button", name="Fork once per value").click()
    expect(page).to_have_url(GRID_URL)
    expect(page.get_by_role("heading", level=1)).to_contain_text("args.region × args.min_contacts")
    matrix = page.locator("table.matrix")
    rows = matrix.locator("tbody tr")
    expect(rows).to_have_count(1 + 2 * 3)  # the parent; per value, its fork and two pairs
    expect(matrix.locator("td.cell.pending")).to_have_count(0, timeout=RUN_TIMEOUT_MS)
    expect(page.locator(".badge.status-running")).to_have_count(0, timeout=RUN_TIMEOUT_MS)

    labels = [rows.nth(i).locator("th").inner_text() for i in range(7)]
    assert "east" in labels[2] and "× 2" in labels[2] and "as the parent" in labels[1]
    assert "west" in labels[6] and "× 3" in labels[6]
    column = [rows.nth(i).locator("td.cell").nth(ANALYSE).inner_text().strip() for i in range(7)]
    assert column[0] == "=" and len(set(column[1:])) == 6, column  # six outputs, six letters

    page.set_viewport_size({"width": 1440, "height": 900})
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / "grid-crossed.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    no_sideways_scroll(page)
    label = rows.nth(2).locator("th")
    assert label.evaluate("el => el.getBoundingClientRect().right") <= 390
    page.screenshot(path=screenshot_dir / "grid-crossed-phone.png", full_page=True)

    # the form at phone width
    page.goto(f"/runs/{run}/nodes/{ANALYSE}/grid/?field=args.region&cross=args.min_contacts")
    no_sideways_scroll(page)
    expect(page.get_by_label("Second field", exact=True)).to_have_value("args.min_contacts")
    page.screenshot(path=screenshot_dir / "grid-crossed-form-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
