"""The dashboard in a real browser: start a run, watch it stream, fork, replay, compare.

Every wait is bounded; a run of the demo pipeline on the offline simulator takes about a
second, so the 60 s bounds are only there to turn a hang into a failure.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from runs.tests.helpers.browser_pages import (
    STEPS,
    UI_TIMEOUT_MS,
    assert_same_document,
    finished_run,
    land_on_new_run,
    mark_page,
    open_fork_editor,
    run_id_of,
    start_run,
    step_card,
    wait_until_completed,
)

pytestmark = pytest.mark.browser

XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">'


# --- tests -----------------------------------------------------------------------------------


def test_a_new_run_streams_its_steps_to_completion(page, rewind_server, screenshot_dir):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    # The worker waits until the page has arrived, so the page shows the run queued and
    # everything after is the live region updating in place, never a page rendered complete.
    with rewind_server.worker_paused():
        run = start_run(page)
        mark_page(page)
        expect(page.locator("#run-status")).to_have_text("queued")
        expect(page.locator("li.step[data-status=completed]")).to_have_count(0)
        expect(page.get_by_role("button", name="Replay unchanged")).to_be_disabled()

    wait_until_completed(page)
    artifact = page.locator("section.artifact")
    expect(artifact.locator(":scope > h2")).to_have_text("Artifact", timeout=UI_TIMEOUT_MS)
    expect(artifact.locator("table").first).to_be_visible()
    # The replay button arrives with the live region: offered once the run has finished.
    expect(page.get_by_role("button", name="Replay unchanged")).to_be_enabled()
    assert_same_document(page)
    assert run_id_of(page) == run
    stream = rewind_server.url(f"/runs/{run}/events/")
    assert any(url.startswith(stream) for url in requested), "no event stream was opened"

    page.screenshot(path=screenshot_dir / "run-detail.png", full_page=True)


def test_fork_analyse_with_a_changed_argument_and_compare(page, rewind_server, screenshot_dir):
    parent = finished_run(page)
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
    # Replay from the page the run streamed to completion on (no reload): the button and its
    # CSRF token came with the live region.
    parent = start_run(page)
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
    parent = finished_run(page)

    editor = open_fork_editor(page, "plan")
    editor.locator('textarea[name="prompt"]').fill(XSS)
    editor.get_by_role("button", name="Fork with this change").click()

    fork = land_on_new_run(page, other_than=parent)
    wait_until_completed(page)
    # a prompt longer than 40 characters is shown by what changed: the new words, as text
    expect(page.locator("p.meta .words ins").first).to_contain_text("<script>window.__pwned")
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


# base.html configures htmx to swap 4xx answers: invalid forms come back with their errors.
def test_an_invalid_argument_is_an_inline_error(page, rewind_server):
    parent = finished_run(page)
    mark_page(page)

    editor = open_fork_editor(page, "analyse")
    field = editor.locator('[name="args.cost_scale"]')
    # The input is type=number, so Chromium itself would refuse to hold "abc"; make it a text
    # input to send what a browser without number inputs (or a hand-made request) would.
    field.evaluate("el => el.setAttribute('type', 'text')")
    field.fill("abc")
    url = page.url
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/fork/"), timeout=UI_TIMEOUT_MS
    ) as posted:
        editor.get_by_role("button", name="Fork with this change").click()
    # The server refuses the value and answers the editor with the error next to the field ...
    assert posted.value.status == 400
    assert "expected float" in posted.value.text()

    # ... and the browser must show it there.
    invalid = page.locator("#inspector div.field.invalid").filter(
        has=page.locator('[name="args.cost_scale"]')
    )
    expect(invalid.locator(".error")).to_contain_text("abc", timeout=5_000)
    expect(invalid.locator(".error")).to_contain_text("args.cost_scale")
    expect(page.locator("#inspector div.field.invalid")).to_have_count(1)
    # The step the editor was opened from pushed its URL; the refused POST changed nothing.
    assert page.url == url == rewind_server.url(f"/runs/{parent}/nodes/2/")
    assert_same_document(page)


def test_invalid_new_run_inputs_are_an_inline_error(page, rewind_server):
    page.goto("/runs/")
    mark_page(page)
    form = page.locator("#new-run")
    # The region is a select of its declared domain: add a value outside it, as a hand-made
    # request would send.
    form.locator('select[name="input.region"]').evaluate(
        "el => { const o = document.createElement('option'); o.value = o.text = 'mars';"
        " el.appendChild(o); el.value = 'mars'; }"
    )
    url = page.url
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/runs/new/"),
        timeout=UI_TIMEOUT_MS,
    ) as posted:
        form.get_by_role("button", name="Start run").click()
    assert posted.value.status == 400
    assert "must be one of" in posted.value.text()

    expect(form.locator(".error")).to_contain_text("must be one of", timeout=5_000)
    assert page.url == url
    assert_same_document(page)


def test_a_queued_run_is_cancelled_from_its_page(page, rewind_server, screenshot_dir):
    """Cancel run: confirmed, posted with htmx, and the page shows the run cancelled; the
    worker, let go, never starts it."""
    with rewind_server.worker_paused():
        run = start_run(page)
        expect(page.locator("#run-status")).to_have_text("queued")
        cancel = page.get_by_role("button", name="Cancel run")
        expect(cancel).to_be_visible()
        for width, height in ((1440, 900), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=screenshot_dir / f"run-cancel-{width}.png", full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
        page.once("dialog", lambda dialog: dialog.accept())
        cancel.click()
        expect(page.locator("#run-status")).to_have_text("cancelled", timeout=UI_TIMEOUT_MS)
        expect(page.locator("#run-head .error")).to_have_text("cancelled by browser-tester")
        expect(page.get_by_role("button", name="Cancel run")).to_have_count(0)

    page.reload()
    expect(page.locator("#run-status")).to_have_text("cancelled")
    expect(page.locator("li.step[data-status=completed]")).to_have_count(0)
    assert run_id_of(page) == run
    page.screenshot(path=screenshot_dir / "run-cancelled.png", full_page=True)
