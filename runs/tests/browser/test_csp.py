"""The Content-Security-Policy in a real Chromium: every page is served with it, htmx runs
under it, and the check in ``conftest.page`` (which fails any browser test that saw a
violation) really sees one when a page breaks the policy."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from runs.tests.browser.conftest import SCREENSHOTS, flush_reports, sign_in, watched_context

pytestmark = pytest.mark.browser

NONCE = re.compile(r"script-src 'self' 'nonce-[A-Za-z0-9_-]+'")


def test_pages_are_served_with_the_policy_and_htmx_runs_under_it(page):
    for path in ("/runs/", "/settings/"):
        response = page.goto(path)
        assert response is not None and response.ok, path
        policy = response.headers.get("content-security-policy", "")
        assert NONCE.search(policy), (path, policy)
        assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
        # The nonce'd htmx script ran, took its config from the meta tag, injected no <style>.
        page.wait_for_function("() => window.htmx !== undefined")
        assert page.evaluate("htmx.config.includeIndicatorStyles") is False
        assert page.evaluate("htmx.config.allowEval") is False
        assert page.evaluate("document.querySelectorAll('style').length") == 0


def test_the_login_page_is_served_with_the_policy(browser, rewind_server):
    with watched_context(browser, rewind_server) as (context, watched):
        page = context.new_page()
        response = page.goto("/login/")
        assert response is not None and NONCE.search(response.headers["content-security-policy"])
        sign_in(page, rewind_server)
        flush_reports(page)
        assert watched.csp_violations == [] and watched.errors == []


def test_the_locked_sign_in_page_is_served_with_the_policy(browser, rewind_server):
    """Ten wrong passwords for one username: the sign-in page says it is locked and until
    when, in the site's style and under the policy (screenshots at desktop and phone width)."""
    with watched_context(browser, rewind_server) as (context, watched):
        page = context.new_page()
        page.goto("/login/")
        for _ in range(10):
            page.get_by_label("Username").fill("locked-out-tester")
            page.get_by_label("Password").fill("not the password")
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_load_state()
        expect(page.get_by_role("alert")).to_contain_text("is locked")
        expect(page.get_by_role("alert")).to_contain_text("Try again in 15 minutes")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for width, height in ((1440, 900), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=SCREENSHOTS / f"login-locked-{width}.png", full_page=True)
        flush_reports(page)
        assert watched.csp_violations == [] and watched.errors == []


def test_a_violation_is_seen_by_the_check(browser, rewind_server):
    """The control for every other browser test: break the policy on purpose, and the
    watcher that ``conftest.page`` asserts on reports it."""
    with watched_context(browser, rewind_server) as (context, watched):
        page = context.new_page()
        sign_in(page, rewind_server)
        flush_reports(page)
        assert watched.csp_violations == []

        page.evaluate(
            """() => {
              const script = document.createElement("script");
              script.textContent = "window.__inlineRan = true";  // no nonce: refused
              document.body.appendChild(script);
              document.body.setAttribute("style", "outline: 1px solid red");  // refused too
            }"""
        )
        deadline = time.monotonic() + 10
        while len(watched.csp_violations) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(50)

        assert page.evaluate("window.__inlineRan === undefined")
        text = " ".join(watched.csp_violations)
        assert "script-src" in text, watched.csp_violations
        assert "style-src" in text, watched.csp_violations
        expect(page.locator("body")).not_to_have_css("outline-style", "solid")
