"""Driving the dashboard in a real browser (Playwright pages of ``browser/``): start a run and
wait for it to complete (``start_run``, ``finished_run``), find a step card, open the fork
editor, tell a page swapped in place from one reloaded (``mark_page``,
``assert_same_document``), check nothing scrolls sideways. The browser tests of ``browser/``
share them; the timeouts bound every wait.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

STEPS = 8  # plan → research → analyse → critique → revise → compose → verify → publish
RUN_TIMEOUT_MS = 60_000
UI_TIMEOUT_MS = 30_000
RUN_URL = re.compile(r"/runs/(\d+)/$")


def run_id_of(page: Page) -> int:
    match = RUN_URL.search(page.url)
    assert match, f"not on a run page: {page.url}"
    return int(match.group(1))


def land_on_new_run(page: Page, other_than: int | None = None) -> int:
    """Wait until the browser is on a run page (of a run other than ``other_than``)."""
    if other_than is None:
        expect(page).to_have_url(RUN_URL, timeout=UI_TIMEOUT_MS)
    else:
        expect(page).not_to_have_url(re.compile(rf"/runs/{other_than}/$"), timeout=UI_TIMEOUT_MS)
        expect(page).to_have_url(RUN_URL, timeout=UI_TIMEOUT_MS)
    page.wait_for_load_state("load")
    return run_id_of(page)


def mark_page(page: Page) -> None:
    """A value that only survives while this document lives: a reload or navigation drops it."""
    page.evaluate("window.__marker = 1")


def assert_same_document(page: Page) -> None:
    assert page.evaluate("window.__marker") == 1, "the page was reloaded or navigated away"


def wait_until_completed(page: Page) -> None:
    expect(page.locator("li.step[data-status=completed]")).to_have_count(
        STEPS, timeout=RUN_TIMEOUT_MS
    )
    expect(page.locator("#run-status")).to_have_text("completed", timeout=RUN_TIMEOUT_MS)


def step_card(page: Page, name: str) -> Locator:
    return page.locator("li.step").filter(
        has=page.locator("span.name", has_text=re.compile(rf"^{re.escape(name)}$"))
    )


def open_fork_editor(page: Page, node: str) -> Locator:
    """Click the node's step card (inspector via htmx), then "Fork from here"; the editor."""
    step_card(page, node).get_by_role("link").click()
    inspector = page.locator("#inspector")
    expect(inspector.locator("h2")).to_contain_text(node, timeout=UI_TIMEOUT_MS)
    inspector.get_by_role("link", name="Fork from here").click()
    editor = inspector.locator("form.fork")
    expect(editor).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(inspector.locator("h2")).to_contain_text(f"at {node}")
    return editor


def start_run(page: Page) -> int:
    """Start a run of the default pipeline from the "New run" form; its id, once landed."""
    page.goto("/runs/")
    page.locator("#new-run").get_by_role("button", name="Start run").click()
    return land_on_new_run(page)


def finished_run(page: Page) -> int:
    """A completed run, its page freshly loaded (as a user opening a finished run sees it)."""
    run = start_run(page)
    wait_until_completed(page)
    page.goto(f"/runs/{run}/")
    wait_until_completed(page)
    return run


def no_sideways_scroll(page: Page) -> None:
    wide = page.evaluate(
        """() => {
          const root = document.documentElement;
          if (root.scrollWidth <= root.clientWidth) return null;
          return [...document.body.querySelectorAll('*')]
            .filter(e => e.getBoundingClientRect().right > root.clientWidth + 1)
            .slice(0, 5).map(e => `${e.tagName}.${e.className}`);
        }"""
    )
    assert wide is None, f"{page.url} scrolls sideways: {wide}"
