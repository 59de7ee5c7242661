"""The dashboard in a real browser: start a run, watch it stream, fork, replay, compare.

Every wait is bounded; a run of the demo pipeline on the offline simulator takes about a
second, so the 60 s bounds are only there to turn a hang into a failure.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

STEPS = 8  # plan → research → analyse → critique → revise → compose → verify → publish
RUN_TIMEOUT_MS = 60_000
UI_TIMEOUT_MS = 30_000
RUN_URL = re.compile(r"/runs/(\d+)/$")

XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">'


# --- helpers ---------------------------------------------------------------------------------


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


# --- tests -----------------------------------------------------------------------------------


def test_a_new_run_streams_its_steps_to_completion(page, rewind_server, screenshot_dir):
    page.goto("/runs/")
    page.locator("#new-run").get_by_role("button", name="Start run").click()
    run = land_on_new_run(page)
    mark_page(page)

    wait_until_completed(page)
    artifact = page.locator("section.artifact")
    expect(artifact.locator(":scope > h2")).to_have_text("Artifact", timeout=UI_TIMEOUT_MS)
    expect(artifact.locator("table").first).to_be_visible()
    expect(page.get_by_role("button", name="Replay unchanged")).to_be_enabled()
    assert_same_document(page)
    assert run_id_of(page) == run

    page.screenshot(path=screenshot_dir / "run-detail.png", full_page=True)


def test_fork_analyse_with_a_changed_argument_and_compare(page, rewind_server, screenshot_dir):
    parent = rewind_server.create_run()
    page.goto(f"/runs/{parent}/")
    wait_until_completed(page)
    mark_page(page)

    editor = open_fork_editor(page, "analyse")
    assert_same_document(page)  # inspector and editor came by htmx, not a page load
    editor.locator('[name="args.cost_scale"]').fill("3")
    editor.get_by_role("button", name="Fork with this change").click()

    fork = land_on_new_run(page, other_than=parent)
    assert fork != parent
    meta = page.locator("p.meta")
    expect(meta).to_contain_text(f"Fork of run {parent} at analyse")
    expect(meta).to_contain_text("args.cost_scale")
    wait_until_completed(page)
    page.screenshot(path=screenshot_dir / "fork-detail.png", full_page=True)

    page.get_by_role("link", name="compare with parent").click()
    expect(page).to_have_url(re.compile(rf"/compare/{parent}/{fork}/$"), timeout=UI_TIMEOUT_MS)
    verdict = page.locator("p.verdict")
    expect(verdict).to_contain_text("First divergence: analyse", timeout=UI_TIMEOUT_MS)
    expect(
        verdict.locator("code").filter(has_text=re.compile(r"cost_scale|total_cost")).first
    ).to_be_visible()
    page.screenshot(path=screenshot_dir / "compare-fork.png", full_page=True)


def test_an_unchanged_replay_is_identical(page, rewind_server, screenshot_dir):
    parent = rewind_server.create_run()
    page.goto(f"/runs/{parent}/")
    wait_until_completed(page)
    page.get_by_role("button", name="Replay unchanged").click()

    replay = land_on_new_run(page, other_than=parent)
    expect(page.locator("p.meta")).to_contain_text("unchanged replay")
    wait_until_completed(page)

    page.goto(f"/compare/{parent}/{replay}/")
    expect(page.locator("p.verdict")).to_have_text(
        f"identical: {STEPS}/{STEPS} nodes, trajectory hash equal, 0 tokens",
        timeout=UI_TIMEOUT_MS,
    )
    page.screenshot(path=screenshot_dir / "compare-replay.png", full_page=True)


def assert_nothing_ran(page: Page) -> None:
    assert page.evaluate("typeof window.__pwned") == "undefined", "injected script ran"
    expect(page.locator("script", has_text="__pwned")).to_have_count(0)
    expect(page.locator('img[src="x"]')).to_have_count(0)


def test_a_prompt_override_with_markup_is_shown_as_text(page, rewind_server, screenshot_dir):
    parent = rewind_server.create_run()
    page.goto(f"/runs/{parent}/")
    wait_until_completed(page)

    editor = open_fork_editor(page, "plan")
    editor.locator('textarea[name="prompt"]').fill(XSS)
    editor.get_by_role("button", name="Fork with this change").click()

    fork = land_on_new_run(page, other_than=parent)
    wait_until_completed(page)
    expect(page.locator("p.meta code").filter(has_text=XSS)).to_have_text(XSS)
    expect(page.get_by_text("<script>window.__pwned").first).to_be_visible()
    assert_nothing_ran(page)

    step_card(page, "plan").get_by_role("link").click()
    inspector = page.locator("#inspector")
    expect(inspector.locator("h2")).to_contain_text("plan", timeout=UI_TIMEOUT_MS)
    user_message = inspector.locator(".message").filter(
        has=page.locator("span.role", has_text="user")
    )
    expect(user_message.locator("pre")).to_have_text(XSS)
    assert_nothing_ran(page)
    page.screenshot(path=screenshot_dir / "xss-inspector.png", full_page=True)

    page.goto(f"/compare/{parent}/{fork}/")
    expect(page.locator("p.verdict")).to_contain_text("First divergence: plan")
    expect(page.get_by_text("<script>window.__pwned").first).to_be_visible()
    assert_nothing_ran(page)


def test_an_invalid_argument_is_an_inline_error(page, rewind_server):
    parent = rewind_server.create_run()
    page.goto(f"/runs/{parent}/")
    wait_until_completed(page)
    mark_page(page)

    editor = open_fork_editor(page, "analyse")
    field = editor.locator('[name="args.cost_scale"]')
    # The input is type=number, so Chromium itself would refuse to hold "abc"; make it a text
    # input to send what a browser without number inputs (or a hand-made request) would.
    field.evaluate("el => el.setAttribute('type', 'text')")
    field.fill("abc")
    url = page.url
    editor.get_by_role("button", name="Fork with this change").click()

    invalid = page.locator("#inspector div.field.invalid").filter(
        has=page.locator('[name="args.cost_scale"]')
    )
    expect(invalid.locator(".error")).to_contain_text("abc", timeout=UI_TIMEOUT_MS)
    expect(invalid.locator(".error")).to_contain_text("args.cost_scale")
    expect(page.locator("#inspector div.field.invalid")).to_have_count(1)
    assert page.url == url
    assert_same_document(page)
