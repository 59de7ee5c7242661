"""A server that does not know a run's app says so (issue 16, item 10), read in a real Chromium
at desktop and phone width: the run page names the app and what to set, Replay is off, and the
inspector offers no "Fork from here" (it led to a 404)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from runs.tests.browser.conftest import _manage
from runs.tests.helpers.browser_pages import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser

# A run recorded by another server (its app is registered there, not here).
RECORD = """
from runs.models import Node, Run
run = Run.objects.create(pipeline="elsewhere_app", status=Run.Status.COMPLETED)
Node.objects.create(run=run, sequence_id=0, name="ask", kind=Node.Kind.CODE,
    status=Node.Status.COMPLETED, cache_source=Node.CacheSource.LIVE, src_run=run,
    src_sequence_id=0, output={"answer": 42})
print(run.pk)
"""


@pytest.fixture(scope="module")
def stranger(rewind_server) -> int:
    return int(_manage(rewind_server.env, "shell", "-c", RECORD).split()[-1])


@pytest.mark.parametrize("width", [1440, 390])
def test_the_run_page_of_an_unknown_app_says_what_to_set(page, stranger, width, screenshot_dir):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/runs/{stranger}/")

    notice = page.get_by_text("This server does not know the app 'elsewhere_app'")
    expect(notice).to_be_visible()
    expect(
        page.get_by_text('REWIND_PIPELINES="elsewhere_app=your.module.app_factory"')
    ).to_be_visible()
    expect(page.get_by_role("button", name="Replay unchanged")).to_be_disabled()
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sideways
    page.screenshot(path=str(screenshot_dir / f"unregistered-app-{width}.png"))

    page.locator("li.step").first.get_by_role("link").click()
    inspector = page.locator("#inspector")
    expect(inspector.locator("h2")).to_contain_text("ask", timeout=UI_TIMEOUT_MS)
    expect(inspector.get_by_role("link", name="Fork from here")).to_have_count(0)
