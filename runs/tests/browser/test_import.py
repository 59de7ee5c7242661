"""Importing Burr's history from the dashboard (issue 18, item 7), in a real Chromium at
desktop and phone width: a bad path is an inline error, a good one lists the runs it made;
a run imported is labelled on its page and in the runs list, says its calls were not recorded,
and its step says what to register instead of offering a fork."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import burr
import pytest
from playwright.sync_api import expect

from runs.tests.helpers.browser_pages import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"


@pytest.mark.parametrize("width", [1440, 390])
def test_import_a_tracker_directory_and_open_a_run(
    page, rewind_server, tmp_path, width, screenshot_dir
):
    # Its own project per width: an import is keyed by project and app id, not by path.
    project = f"counter_{width}"
    root = tmp_path / "burr"
    for app in ("count-to-1", "count-to-10"):
        shutil.copytree(DEMO / "demo_counter" / app, root / project / app)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/runs/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Import").click()
    expect(page.get_by_role("heading", name="Import Burr history")).to_be_visible()

    path = page.get_by_label("Tracker directory")
    path.fill(str(tmp_path / "nowhere"))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_role("alert")).to_contain_text("no such directory", timeout=UI_TIMEOUT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    page.get_by_label("Tracker directory").fill(str(root))
    page.get_by_role("button", name="Import").click()
    report = page.locator(".import-report")
    expect(report.get_by_role("heading", name="Imported")).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(report.locator("ul.imported-runs li")).to_have_count(2)
    expect(report).to_contain_text(f"{project}/count-to-10")
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sideways
    page.screenshot(path=str(screenshot_dir / f"import-report-{width}.png"), full_page=True)

    # Again: nothing new.
    page.get_by_role("button", name="Import").click()
    expect(report).to_contain_text("2 already imported, nothing new.", timeout=UI_TIMEOUT_MS)
    expect(report.locator("ul.imported-runs")).to_have_count(0)

    page.goto("/runs/?origin=imported")
    expect(page.locator("table.runs .badge.imported").first).to_be_visible()
    row = page.locator("table.runs tr", has_text=f"from {project}/count-to-10")
    row.get_by_role("link", name=re.compile(r"^run \d+$")).click()
    expect(page.locator("p.imported-from")).to_contain_text(f"Imported from {project}/count-to-10")
    expect(page.get_by_text("calls not recorded", exact=False)).to_be_visible()
    expect(page.get_by_text(f"register its app as '{project}'", exact=False)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(screenshot_dir / f"import-run-{width}.png"))

    page.locator("li.step").first.get_by_role("link").click()
    inspector = page.locator("#inspector")
    expect(inspector).to_contain_text("not forkable here", timeout=UI_TIMEOUT_MS)
    expect(inspector.get_by_role("link", name="Fork from here")).to_have_count(0)


def test_a_step_shows_its_spans(page, rewind_server, tmp_path, screenshot_dir):
    root = tmp_path / "burr"
    shutil.copytree(
        DEMO / "demo_chatbot_with_traces" / "chat-1-giraffe", root / "traced_chatbot" / "chat-1"
    )
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto("/import/")
    page.get_by_label("Tracker directory").fill(str(root))
    page.get_by_role("button", name="Import").click()
    link = page.locator(".import-report ul.imported-runs a").first
    expect(link).to_be_visible(timeout=UI_TIMEOUT_MS)
    link.click()
    page.locator("li.step").first.get_by_role("link").click()
    spans = page.locator("#inspector details.spans")
    expect(spans).to_contain_text("process_prompt", timeout=UI_TIMEOUT_MS)
    expect(spans).to_contain_text("Please draw a giraffe.")
    page.screenshot(path=str(screenshot_dir / "import-step-spans-1440.png"))
