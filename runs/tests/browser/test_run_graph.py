"""The run graph, the timeline and the inspector beside them, in a real Chromium.

A run's graph updates its colours live (the steps of a queued run are "pending" until the
worker runs them, in the same document); a click on a step opens the inspector beside the
graph, pushes the step's URL and highlights the step; the access keys step through the run;
the back button comes back; a fork starts from the inspector; at phone width nothing scrolls
sideways; without JavaScript every step is a link to the same layout. The ``page`` fixture
fails any of these on a JavaScript error or a Content-Security-Policy violation.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import PASSWORD, USERNAME

pytestmark = pytest.mark.browser

STEPS = 8
RUN_TIMEOUT_MS = 60_000
UI_TIMEOUT_MS = 30_000
RUN_URL = re.compile(r"/runs/(\d+)/$")


def start_run(page: Page) -> int:
    page.goto("/runs/")
    page.locator("#new-run").get_by_role("button", name="Start run").click()
    expect(page).to_have_url(RUN_URL, timeout=UI_TIMEOUT_MS)
    page.wait_for_load_state("load")
    return int(RUN_URL.search(page.url).group(1))


def graph_node(page: Page, name: str):
    return page.locator(f'#run-graph .gnode[data-node="{name}"]')


def wait_until_completed(page: Page) -> None:
    expect(page.locator("#run-status")).to_have_text("completed", timeout=RUN_TIMEOUT_MS)
    expect(page.locator("#run-graph a.gnode")).to_have_count(STEPS, timeout=RUN_TIMEOUT_MS)


def finished_run(page: Page) -> int:
    run = start_run(page)
    wait_until_completed(page)
    page.goto(f"/runs/{run}/")
    return run


def settled(page) -> None:
    """Wait until htmx has finished its last request and swap: a key or a click that lands
    before the swapped-in links are processed follows the plain link (a full page load)."""
    expect(page.locator(".htmx-request, .htmx-settling, .htmx-swapping")).to_have_count(
        0, timeout=UI_TIMEOUT_MS
    )
    page.wait_for_function("() => !document.querySelector('.htmx-added')")


def press_access_key(page: Page, key: str) -> None:
    """Alt+``key`` as a keyboard sends it (Chromium on Linux: access keys are Alt+key).
    Playwright's ``keyboard.press("Alt+n")`` sends no character event, and Chromium matches
    access keys on that event, so the key goes through the DevTools protocol as a real one."""
    cdp = page.context.new_cdp_session(page)
    code = {"key": key, "code": f"Key{key.upper()}", "modifiers": 1}  # 1: Alt
    vk = {"windowsVirtualKeyCode": ord(key.upper())}
    cdp.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **code, **vk})
    cdp.send("Input.dispatchKeyEvent", {"type": "char", "text": key, "unmodifiedText": key, **code})
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **code, **vk})
    cdp.detach()


def no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url


def test_the_graph_colours_its_steps_live(page, rewind_server, screenshot_dir):
    with rewind_server.worker_paused():
        run = start_run(page)
        page.evaluate("window.__marker = 1")
        expect(page.locator("#run-status")).to_have_text("queued")
        # Nothing has run: every node of the declared pipeline is pending, none is a link.
        expect(page.locator("#run-graph .gnode.state-pending")).to_have_count(STEPS)
        expect(page.locator("#run-graph a.gnode")).to_have_count(0)

    wait_until_completed(page)
    expect(page.locator("#run-graph .gnode.state-pending")).to_have_count(0)
    # Each box now coloured by its step's cache source (live, or served by an earlier run's
    # cache entries on this shared server).
    expect(page.locator("#run-graph .gnode.state-visited")).to_have_count(STEPS)
    expect(page.locator("#run-graph .gnode[class*=' src-']")).to_have_count(STEPS)
    expect(page.locator("#run-graph path.edge.taken")).to_have_count(STEPS - 1)
    expect(page.locator("#run-timeline li.step[data-status=completed]")).to_have_count(STEPS)
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    assert page.url == rewind_server.url(f"/runs/{run}/")
    page.screenshot(path=screenshot_dir / "run-graph.png", full_page=True)


def test_a_click_on_a_step_opens_the_inspector_beside_the_graph(
    page, rewind_server, screenshot_dir
):
    run = finished_run(page)
    page.evaluate("window.__marker = 1")

    graph_node(page, "analyse").click()

    inspector = page.locator("#inspector")
    expect(inspector.locator("h2")).to_contain_text("analyse", timeout=UI_TIMEOUT_MS)
    expect(page).to_have_url(rewind_server.url(f"/runs/{run}/nodes/2/"))
    expect(graph_node(page, "analyse").locator("rect.ring")).to_have_count(1)
    expect(page.locator("#run-graph rect.ring")).to_have_count(1)
    expect(page.locator("#step-2")).to_have_attribute("aria-current", "step")
    assert page.evaluate("window.__marker") == 1, "the inspector came by a page load"
    # Beside, not below: the inspector starts right of the graph, level with it.
    graph = page.locator("#run-graph svg").bounding_box()
    beside = inspector.bounding_box()
    assert beside["x"] >= graph["x"] + graph["width"], (graph, beside)
    assert beside["y"] < graph["y"] + graph["height"], (graph, beside)
    # caret="initial": hiding the caret gives inputs an empty style attribute, which htmx's
    # history snapshot would carry back into the page as an inline style (a CSP violation).
    page.screenshot(
        path=screenshot_dir / "run-graph-inspector.png", full_page=True, caret="initial"
    )

    # The access keys step through the run; each step's URL is pushed and highlighted.
    settled(page)
    press_access_key(page, "n")
    expect(inspector.locator("h2")).to_contain_text("critique", timeout=UI_TIMEOUT_MS)
    expect(page).to_have_url(rewind_server.url(f"/runs/{run}/nodes/3/"))
    expect(graph_node(page, "critique").locator("rect.ring")).to_have_count(1)
    settled(page)
    press_access_key(page, "p")
    expect(inspector.locator("h2")).to_contain_text("analyse", timeout=UI_TIMEOUT_MS)
    settled(page)
    press_access_key(page, "p")
    expect(inspector.locator("h2")).to_contain_text("research", timeout=UI_TIMEOUT_MS)
    expect(page).to_have_url(rewind_server.url(f"/runs/{run}/nodes/1/"))
    # A timeline row opens its step the same way.
    settled(page)
    page.locator("#step-6").get_by_role("link").click()
    expect(inspector.locator("h2")).to_contain_text("verify", timeout=UI_TIMEOUT_MS)
    expect(page.locator("#step-6")).to_have_attribute("aria-current", "step")
    assert page.evaluate("window.__marker") == 1

    # Back goes to the step before, then to the run.
    page.go_back()
    expect(page).to_have_url(rewind_server.url(f"/runs/{run}/nodes/1/"))
    expect(inspector.locator("h2")).to_contain_text("research", timeout=UI_TIMEOUT_MS)

    # A reload of a pushed URL is the same layout, rendered by the server.
    page.reload()
    expect(inspector.locator("h2")).to_contain_text("research")
    expect(graph_node(page, "research").locator("rect.ring")).to_have_count(1)


def test_fork_from_the_inspector_beside_the_graph(page, rewind_server):
    parent = finished_run(page)

    graph_node(page, "analyse").click()
    inspector = page.locator("#inspector")
    expect(inspector.locator("h2")).to_contain_text("analyse", timeout=UI_TIMEOUT_MS)
    inspector.get_by_role("link", name="Fork from here").click()
    editor = inspector.locator("form.fork")
    expect(editor).to_be_visible(timeout=UI_TIMEOUT_MS)
    editor.locator('[name="args.cost_scale"]').fill("3")
    editor.get_by_role("button", name="Fork with this change").click()

    expect(page).not_to_have_url(re.compile(rf"/runs/{parent}/"), timeout=UI_TIMEOUT_MS)
    expect(page).to_have_url(RUN_URL, timeout=UI_TIMEOUT_MS)
    wait_until_completed(page)
    # The fork's graph: plan and research inherited, analyse onwards executed again.
    expect(page.locator("#run-graph .gnode.src-inherited")).to_have_count(2)
    expect(graph_node(page, "analyse")).not_to_have_class(re.compile(r"src-inherited"))


def test_at_phone_width_nothing_scrolls_sideways(page, rewind_server, screenshot_dir):
    run = finished_run(page)
    page.set_viewport_size({"width": 390, "height": 844})

    for path in (f"/runs/{run}/", f"/runs/{run}/nodes/3/"):
        page.goto(path)
        expect(page.locator("#run-graph svg")).to_be_visible()
        no_horizontal_scroll(page)
    # The inspector comes right under the graph, before the timeline.
    graph = page.locator("#run-graph").bounding_box()
    inspector = page.locator("#inspector").bounding_box()
    timeline = page.locator("#run-timeline").bounding_box()
    assert graph["y"] < inspector["y"] < timeline["y"]
    page.screenshot(path=screenshot_dir / "run-graph-phone.png", full_page=True)


def test_without_javascript_every_step_is_a_link_to_the_same_layout(browser, rewind_server):
    context = browser.new_context(base_url=rewind_server.base_url, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("/login/?next=/runs/")
        page.get_by_label("Username").fill(USERNAME)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        expect(page).to_have_url(rewind_server.url("/runs/"))
        page.locator("#new-run").get_by_role("button", name="Start run").click()
        expect(page).to_have_url(RUN_URL, timeout=UI_TIMEOUT_MS)
        run = int(RUN_URL.search(page.url).group(1))
        # No stream without JavaScript: the page refreshes itself until the run is done.
        expect(page.locator("#run-status")).to_have_text("completed", timeout=RUN_TIMEOUT_MS)

        graph_node(page, "critique").click()
        expect(page).to_have_url(rewind_server.url(f"/runs/{run}/nodes/3/"))
        expect(page.locator("#inspector h2")).to_contain_text("critique")
        expect(graph_node(page, "critique").locator("rect.ring")).to_have_count(1)
        page.locator("#inspector").get_by_role("link", name=re.compile("revise")).click()
        expect(page).to_have_url(rewind_server.url(f"/runs/{run}/nodes/4/"))
        expect(page.locator("#inspector h2")).to_contain_text("revise")
    finally:
        context.close()
