"""Polish in a real Chromium (issue 9, item 8): at phone width (390 px) no page scrolls
sideways, in light and dark; dark mode follows the system setting (the context's
``color_scheme``) and really changes the page; the skip link is the first tab stop and focus is
visible; and no page logs a console error or breaks the Content-Security-Policy on the way.

Screenshots of every page at 390 px, light and dark, go to ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from django.urls import NoReverseMatch, reverse
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import (
    _CSP_LISTENER,
    ACTION_TIMEOUT_MS,
    RewindServer,
    _manage,
    flush_reports,
    sign_in,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
# The page background of each scheme (static/css/rewind.css, --bg).
BACKGROUND = {"light": "rgb(255, 255, 255)", "dark": "rgb(17, 19, 24)"}
MISSING = "/no/such/page/"


@dataclass
class Seen:
    """Everything a context's pages reported: uncaught errors, CSP violations, console errors."""

    errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)


@contextmanager
def themed(
    browser, server: RewindServer, scheme: str, viewport: dict[str, int]
) -> Iterator[tuple[Page, Seen]]:
    """A fresh context with the given colour scheme and viewport, watched like conftest's."""
    context = browser.new_context(base_url=server.base_url, viewport=viewport, color_scheme=scheme)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    seen = Seen()
    context.expose_function("__rewindCspViolation", lambda text: seen.csp_violations.append(text))
    context.add_init_script(_CSP_LISTENER)

    def on_console(message) -> None:
        if "Content Security Policy" in message.text:
            seen.csp_violations.append(f"console: {message.text}")
        elif message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            seen.console_errors.append(f"{where}: {message.text}")

    context.on("console", on_console)
    context.on("weberror", lambda error: seen.errors.append(str(error.error)))
    try:
        yield context.new_page(), seen
    finally:
        context.close()


@pytest.fixture(scope="module")
def demo(rewind_server) -> dict[str, int]:
    """A demo run and its fork, seeded in the server's database."""
    out = _manage(rewind_server.env, "rewind_demo", "--force")
    match = re.search(r"demo: run (\d+) .*fork (\d+)", out)
    assert match, out
    return {"run": int(match[1]), "fork": int(match[2])}


def dashboard_pages(demo: dict[str, int]) -> list[tuple[str, str]]:
    """(label, path) of every page a signed-in user sees; pages of issue 9 that exist in this
    URLconf are included by name."""
    run, fork = demo["run"], demo["fork"]
    pages = [
        ("runs", "/runs/"),
        ("run", f"/runs/{run}/"),
        ("fork", f"/runs/{fork}/"),
        ("inspector", f"/runs/{run}/nodes/3/"),
        ("fork-editor", f"/runs/{run}/nodes/2/fork/"),
        ("compare", f"/compare/{run}/{fork}/"),
        ("settings", "/settings/"),
        ("not-found", MISSING),
    ]
    for label, name, kwargs in (
        ("compare-picker", "compare-pick", {}),
        ("grid-new", "node-grid", {"run_id": run, "sequence_id": 2}),
        ("grids", "grid-list", {}),
        ("stability", "run-stability", {"run_id": run}),
    ):
        try:
            pages.append((label, reverse(name, kwargs=kwargs)))
        except NoReverseMatch:
            pass
    return pages


def visit(page: Page, path: str) -> None:
    response = page.goto(path)
    assert response is not None
    assert response.status == (404 if path == MISSING else 200), (path, response.status)
    page.wait_for_load_state("load")


def sideways(page: Page) -> dict | None:
    """None if nothing scrolls sideways; else the page's widths and the widest elements."""
    return page.evaluate(
        """() => {
          const root = document.documentElement;
          if (root.scrollWidth <= root.clientWidth) return null;
          const wide = [...document.body.querySelectorAll('*')]
            .filter(e => e.getBoundingClientRect().right > root.clientWidth + 1)
            .slice(0, 5)
            .map(e => `${e.tagName.toLowerCase()}.${e.className} → ${Math.round(e.getBoundingClientRect().right)}px`);
          return {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide};
        }"""
    )


def colours(page: Page) -> dict[str, str]:
    return page.evaluate(
        """() => ({
          background: getComputedStyle(document.body).backgroundColor,
          text: getComputedStyle(document.body).color,
          header: getComputedStyle(document.querySelector('header.top')).borderBottomColor,
        })"""
    )


def assert_clean(seen: Seen) -> None:
    # The one console error a browser logs on its own: the 404 page's status, by design.
    errors = [e for e in seen.console_errors if not (MISSING in e and "404" in e)]
    assert not seen.errors, f"JavaScript errors: {seen.errors}"
    assert not seen.csp_violations, f"Content-Security-Policy violations: {seen.csp_violations}"
    assert not errors, f"console errors: {errors}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_scrolls_sideways_at_phone_width(
    browser, rewind_server, demo, scheme, screenshot_dir
):
    overflowing = {}
    with themed(browser, rewind_server, scheme, PHONE) as (page, seen):
        page.goto("/login/")
        assert sideways(page) is None, sideways(page)
        page.screenshot(path=screenshot_dir / f"polish-login-390-{scheme}.png", full_page=True)
        sign_in(page, rewind_server)
        for label, path in dashboard_pages(demo):
            visit(page, path)
            if (wide := sideways(page)) is not None:
                overflowing[f"{label} ({path})"] = wide
            page.screenshot(
                path=screenshot_dir / f"polish-{label}-390-{scheme}.png", full_page=True
            )
        flush_reports(page)
    assert not overflowing, f"pages wider than 390 px: {overflowing}"
    assert_clean(seen)


def test_dark_mode_follows_the_system_setting_on_every_page(
    browser, rewind_server, demo, screenshot_dir
):
    seen_colours: dict[str, dict[str, dict[str, str]]] = {}
    for scheme in ("light", "dark"):
        with themed(browser, rewind_server, scheme, DESKTOP) as (page, seen):
            sign_in(page, rewind_server)
            for label, path in dashboard_pages(demo):
                visit(page, path)
                seen_colours.setdefault(label, {})[scheme] = colours(page)
                if label in ("run", "compare"):
                    page.screenshot(
                        path=screenshot_dir / f"polish-{label}-1440-{scheme}.png", full_page=True
                    )
            flush_reports(page)
        assert_clean(seen)
    for label, by_scheme in seen_colours.items():
        light, dark = by_scheme["light"], by_scheme["dark"]
        assert light["background"] == BACKGROUND["light"], (label, light)
        assert dark["background"] == BACKGROUND["dark"], (label, dark)
        assert light["text"] != dark["text"], (label, light, dark)
        assert light["header"] != dark["header"], (label, light, dark)


def test_the_skip_link_is_the_first_tab_stop_and_focus_is_visible(browser, rewind_server, demo):
    with themed(browser, rewind_server, "light", PHONE) as (page, seen):
        sign_in(page, rewind_server)
        visit(page, f"/runs/{demo['run']}/")
        skip = page.locator("a.skip-link")
        assert skip.bounding_box()["y"] < 0  # out of sight until it has the focus

        page.keyboard.press("Tab")
        expect(skip).to_be_focused()
        expect(skip).to_have_text("Skip to content")
        assert skip.bounding_box()["y"] >= 0
        outline = skip.evaluate(
            "e => [getComputedStyle(e).outlineStyle, parseFloat(getComputedStyle(e).outlineWidth)]"
        )
        assert outline[0] != "none" and outline[1] >= 2, outline

        page.keyboard.press("Enter")
        assert page.evaluate("location.hash") == "#main"
        page.keyboard.press("Tab")  # the next stop is inside the content, past the header
        assert page.evaluate("document.querySelector('main').contains(document.activeElement)")
        focused = page.evaluate(
            "() => { const s = getComputedStyle(document.activeElement); "
            "return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"
        )
        assert focused[0] != "none" and focused[1] >= 2, focused
        flush_reports(page)
    assert_clean(seen)


def test_the_404_page_leads_back_to_the_runs(browser, rewind_server):
    with themed(browser, rewind_server, "dark", PHONE) as (page, seen):
        sign_in(page, rewind_server)
        visit(page, MISSING)
        expect(page.locator("h1")).to_have_text("Nothing here")
        page.locator("main").get_by_role("link", name="the runs").click()
        expect(page).to_have_url(rewind_server.url("/runs/"))
        flush_reports(page)
    assert_clean(seen)
