"""The inspector shows the state after a step and what the step changed in it (issue 16, "also
noticed": Burr's UI does), readable at desktop and phone width."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from runs.tests.helpers.browser_pages import UI_TIMEOUT_MS, finished_run, step_card

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1440, 390])
def test_the_inspector_shows_the_state_after_a_step_and_its_delta(page, width, screenshot_dir):
    page.set_viewport_size({"width": width, "height": 900})
    finished_run(page)
    step_card(page, "analyse").get_by_role("link").click()
    inspector = page.locator("#inspector")
    expect(inspector.locator("h2")).to_contain_text("analyse", timeout=UI_TIMEOUT_MS)

    changes = inspector.locator("ul.state-changes li")
    expect(inspector.get_by_text("What changed since step 1 (research)")).to_be_visible()
    expect(changes.first).to_contain_text("analyse")
    expect(changes.first).to_contain_text("added")
    inspector.get_by_text("Whole state").click()
    expect(inspector.locator("details[open] pre.json").last).to_contain_text('"research"')
    # Nothing scrolls sideways at phone width: the page is no wider than the window.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    changes.first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / f"inspector-state-{width}.png"))
