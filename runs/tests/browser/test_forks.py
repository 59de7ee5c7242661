"""Forks in a real Chromium at desk (1440 px) and phone (390 px) width (issue 16, items 7
and 8): submitting the same fork twice opens the first one and says so; the runs list shows
a long prompt's changed words and the compare page the prompt word-diffed against the old one.

Screenshots go to ``test-artifacts/screenshots/forks-*.png``.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import _manage

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 30_000
RUN_TIMEOUT_MS = 90_000
CRITIQUE = 3  # the research pipeline's critique step: an llm node with a long prompt
VIEWPORTS = {"1440": {"width": 1440, "height": 900}, "390": {"width": 390, "height": 844}}


def new_run(rewind_server) -> int:
    """A completed research run of its own: each test forks a source no other test forked."""
    return json.loads(_manage(rewind_server.env, "rewind_run", "--json"))["run"]


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


def submit_edited_prompt(page: Page, run: int) -> None:
    page.goto(f"/runs/{run}/nodes/{CRITIQUE}/fork/")
    prompt = page.get_by_label("prompt", exact=True)
    text = prompt.input_value()
    assert "List the weaknesses" in text
    prompt.fill(text.replace("List the weaknesses", "List the strengths"))
    page.get_by_role("button", name="Fork with this change").click()


@pytest.mark.parametrize("width", VIEWPORTS)
def test_the_same_fork_twice_opens_the_first_and_shows_what_changed(
    page, rewind_server, screenshot_dir, width
):
    page.set_viewport_size(VIEWPORTS[width])
    run = new_run(rewind_server)

    submit_edited_prompt(page, run)
    expect(page).to_have_url(re.compile(r"/runs/(\d+)/$"), timeout=UI_TIMEOUT_MS)
    fork = int(re.search(r"/runs/(\d+)/$", page.url)[1])
    assert fork != run
    expect(page.locator("ul.messages")).to_have_count(0)

    # the same change again (a second tab, the back button, a double submit)
    submit_edited_prompt(page, run)
    expect(page).to_have_url(rewind_server.url(f"/runs/{fork}/"), timeout=UI_TIMEOUT_MS)
    message = page.locator("ul.messages")
    expect(message).to_contain_text(f"You already made this fork: run {fork}")
    expect(page.locator("#run-status")).to_have_text("completed", timeout=RUN_TIMEOUT_MS)
    expect(page.locator("p.meta .words ins")).to_have_text("strengths")  # the header
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / f"forks-already-made-{width}.png")

    # one fork in the list, shown by the words that changed, not the prompt's first line
    page.goto("/runs/")
    row = page.locator("table.runs tbody tr").filter(
        has=page.get_by_label(f"select run {fork} to compare")
    )
    expect(row).to_have_count(1)
    expect(row.locator(".words del")).to_have_text("weaknesses")
    expect(row.locator(".words ins")).to_have_text("strengths")
    expect(row.locator("td.change")).not_to_contain_text("Question:")
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / f"forks-list-{width}.png", full_page=True)
    # a search finds one fork of this run with that change: the second submit made none
    page.goto("/runs/?q=strengths")
    expect(page.locator("table.runs tbody tr").filter(has_text=f"(fork of {run})")).to_have_count(1)

    # the compare page: the override itself, word-diffed against the old prompt
    page.goto(f"/compare/{run}/{fork}/")
    change = page.locator("section.override-diff")
    expect(change).to_contain_text("The change to prompt")
    expect(change.locator(".inline-diff del")).to_have_text("weaknesses")
    expect(change.locator(".inline-diff ins")).to_have_text("strengths")
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / f"forks-compare-{width}.png", full_page=True)
    page.screenshot(path=screenshot_dir / f"forks-compare-top-{width}.png")  # the viewport


@pytest.mark.parametrize("width", VIEWPORTS)
def test_a_live_fork_is_a_new_run_every_time(page, rewind_server, screenshot_dir, width):
    page.set_viewport_size(VIEWPORTS[width])
    run = new_run(rewind_server)
    made = []
    for _ in range(2):
        page.goto(f"/runs/{run}/nodes/2/fork/")
        page.get_by_label("args.cost_scale").fill("3")
        page.get_by_label(re.compile("live: skip the cache")).check()
        if not made:
            no_sideways_scroll(page)
            page.locator("form.fork").screenshot(path=screenshot_dir / f"forks-editor-{width}.png")
        page.get_by_role("button", name="Fork with this change").click()
        expect(page).to_have_url(re.compile(r"/runs/(\d+)/$"), timeout=UI_TIMEOUT_MS)
        made.append(int(re.search(r"/runs/(\d+)/$", page.url)[1]))
        expect(page.locator("ul.messages")).to_have_count(0)

    assert len(set(made)) == 2 and run not in made
