"""Comparing any two runs and the runs list's forms, in a real Chromium: tick two runs and
compare them, change B with the picker, open a folded value, read the artifacts side by side
at desk and phone width; switch the new-run form to another pipeline (htmx, and without
JavaScript); submit the fork editor untouched and be told it would replay."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import (
    REPO,
    STARTUP_SECONDS,
    RewindServer,
    _free_port,
    _healthy,
    _manage,
    _stop,
    flush_reports,
    sign_in,
    watched_context,
)
from runs.tests.helpers.browser_pages import no_sideways_scroll

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 30_000
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1440, "height": 900}


@pytest.fixture(scope="module")
def demo(rewind_server) -> dict[str, int]:
    """A research run, its fork at analyse (cost_scale 3) and its unchanged replay."""
    out = _manage(rewind_server.env, "rewind_demo", "--force")
    match = re.search(r"demo: run (\d+) .*fork (\d+) .*unchanged replay (\d+)", out)
    assert match, out
    return {"run": int(match[1]), "fork": int(match[2]), "replay": int(match[3])}


# --- compare ---------------------------------------------------------------------------------


def test_tick_two_runs_on_the_list_and_compare_them(page, demo, rewind_server, screenshot_dir):
    run, fork = demo["run"], demo["fork"]
    page.set_viewport_size(DESK)
    page.goto("/runs/")
    page.get_by_label(f"select run {fork} to compare").check()
    page.get_by_label(f"select run {run} to compare").check()
    page.get_by_role("button", name="Compare selected").click()

    expect(page).to_have_url(rewind_server.url(f"/compare/{run}/{fork}/"), timeout=UI_TIMEOUT_MS)
    expect(page.locator("p.verdict")).to_contain_text("First divergence: analyse")
    # per-step deltas, with the inherited step paying nothing in the fork
    plan = page.locator("table.steps tbody tr").filter(has_text="plan").first
    expect(plan).to_contain_text("inherited")
    expect(plan.locator("td.delta").first).to_contain_text("→ 0")
    # the artifacts aligned: the changed table row, its numbers marked on each side
    row = page.locator(".sbs-row.changed").filter(has_text="Standard reminders")
    expect(row).to_have_count(1)
    expect(row.locator(".a del").first).to_have_text("562.17")
    expect(row.locator(".b ins").first).to_be_visible()
    page.screenshot(path=screenshot_dir / "compare-any-1440.png", full_page=True)

    page.set_viewport_size(PHONE)
    page.reload()
    no_sideways_scroll(page)
    # on a phone the artifacts read as one column: an unchanged line once, a changed one twice
    expect(row.locator(".a")).to_be_visible()
    expect(row.locator(".b")).to_be_visible()
    equal = page.locator(".sbs-row.equal").filter(has_text="**Question:**")
    expect(equal.locator(".b")).to_be_hidden()
    page.screenshot(path=screenshot_dir / "compare-any-390.png", full_page=True)


def test_change_b_with_the_picker_and_swap(page, demo, rewind_server):
    run, replay = demo["run"], demo["replay"]
    page.goto(f"/compare/{run}/{demo['fork']}/")

    page.locator('input[name="b"]').fill(str(replay))
    page.get_by_role("button", name="Compare", exact=True).click()

    expect(page).to_have_url(rewind_server.url(f"/compare/{run}/{replay}/"), timeout=UI_TIMEOUT_MS)
    expect(page.locator("p.verdict")).to_have_text(re.compile(r"^identical: 8/8 nodes"))
    expect(page.locator("p.relation")).to_contain_text(f"unchanged replay of run {run}")
    page.get_by_role("link", name="swap A and B").click()
    expect(page).to_have_url(rewind_server.url(f"/compare/{replay}/{run}/"), timeout=UI_TIMEOUT_MS)


def test_a_folded_value_opens_in_full(page, demo):
    page.goto(f"/compare/{demo['run']}/{demo['fork']}/")

    publish = page.locator("section.step-fields").filter(
        has=page.locator("h3", has_text=re.compile(r"^publish"))
    )
    details = publish.locator("details.long").first
    body = details.locator(".inline-diff")
    expect(body).to_be_hidden()
    details.locator("summary").click()
    expect(body).to_be_visible()
    expect(body).to_contain_text("**Verification:**")  # the end of the report: nothing cut
    expect(body.locator("del").first).to_be_visible()


def test_the_different_only_toggle_swaps_the_diff_in_place(page, demo, rewind_server):
    run, fork = demo["run"], demo["fork"]
    page.goto(f"/compare/{run}/{fork}/")
    page.evaluate("window.__marker = 1")

    page.get_by_role("link", name="different only").click()

    expect(page).to_have_url(
        rewind_server.url(f"/compare/{run}/{fork}/?only=different"), timeout=UI_TIMEOUT_MS
    )
    expect(page.locator("table.steps tbody tr").filter(has_text="research")).to_have_count(0)
    assert page.evaluate("window.__marker") == 1  # htmx, not a page load


def test_the_runs_list_search_and_its_phone_layout(page, demo, screenshot_dir):
    page.set_viewport_size(PHONE)
    page.goto("/runs/")
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / "runs-390.png", full_page=True)

    page.evaluate("window.__marker = 1")
    # htmx searches as one types
    page.get_by_role("searchbox", name="Search").fill(f"run {demo['fork']}")

    expect(page.locator("table.runs tbody tr")).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(page.get_by_label(f"select run {demo['fork']} to compare")).to_be_visible()
    expect(page.locator("table.runs")).to_contain_text("args.cost_scale")
    expect(page).to_have_url(re.compile(rf"\?q=run(\+|%20){demo['fork']}"))
    assert page.evaluate("window.__marker") == 1


# --- the fork editor, untouched --------------------------------------------------------------


def test_forking_with_nothing_changed_says_it_would_replay(page, demo, rewind_server):
    run = demo["run"]
    page.goto(f"/runs/{run}/nodes/2/fork/")

    page.get_by_role("button", name="Fork with this change").click()

    notice = page.locator(".nothing-changed")
    expect(notice).to_contain_text("Nothing changed.", timeout=UI_TIMEOUT_MS)
    expect(notice).to_contain_text("unchanged replay")
    assert re.search(rf"/runs/{run}/nodes/2/fork/$", page.url)  # no run was made

    page.get_by_role("button", name="Replay unchanged").click()
    expect(page).to_have_url(re.compile(r"/runs/(\d+)/$"), timeout=UI_TIMEOUT_MS)
    assert not page.url.endswith(f"/runs/{run}/")


# --- the new-run form, from the pipeline's declarations --------------------------------------


@pytest.fixture(scope="module")
def two_pipelines(rewind_server, tmp_path_factory) -> Iterator[RewindServer]:
    """A second dashboard with a second pipeline registered (the test ``loop`` pipeline),
    without a worker: only forms are used on it."""
    tmp = tmp_path_factory.mktemp("two-pipelines")
    database = tmp / "db.sqlite3"
    env = {
        **rewind_server.env,
        "DATABASE_URL": f"sqlite:///{database}",
        "REWIND_ARTIFACT_DIR": str(tmp / "artifacts"),
        "REWIND_PIPELINES": "loop=runs.tests.helpers.pipelines.loop",
    }
    _manage(env, "migrate", "--no-input", "-v", "0")
    _manage(env, "createsuperuser", "--noinput")
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = tmp / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "rewind_serve", "--port", str(port), "--no-worker"],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(base_url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the second server did not start:\n" + log.read_text(), pytrace=False)
            time.sleep(0.2)
        yield RewindServer(base_url=base_url, env=env, log=log, database=database, pid=process.pid)
    finally:
        _stop(process)


@pytest.fixture
def page_two(browser, two_pipelines) -> Iterator[Page]:
    with watched_context(browser, two_pipelines) as (context, watched):
        page = context.new_page()
        sign_in(page, two_pipelines)
        yield page
        flush_reports(page)
        assert not watched.errors and not watched.csp_violations, (watched.errors, watched)


def test_switching_the_pipeline_rebuilds_the_form_in_place(page_two, screenshot_dir):
    page = page_two
    page.goto("/runs/")
    page.evaluate("window.__marker = 1")
    form = page.locator("#new-run")
    expect(form.locator('select[name="input.region"]')).to_be_visible()

    form.get_by_label("Pipeline").select_option("loop")

    expect(form.locator('input[name="input.topic"]')).to_have_value(
        "tidal energy", timeout=UI_TIMEOUT_MS
    )
    expect(form.locator('[name="input.region"]')).to_have_count(0)
    assert page.evaluate("window.__marker") == 1  # swapped by htmx
    page.screenshot(path=screenshot_dir / "new-run-form-loop.png", full_page=True)

    form.locator('input[name="input.topic"]').fill("wave power")
    form.get_by_role("button", name="Start run").click()
    expect(page).to_have_url(re.compile(r"/runs/(\d+)/$"), timeout=UI_TIMEOUT_MS)
    expect(page.locator("h1")).to_contain_text("loop")


def test_switching_the_pipeline_without_javascript(browser, two_pipelines):
    context = browser.new_context(base_url=two_pipelines.base_url, java_script_enabled=False)
    try:
        page = context.new_page()
        sign_in_without_js(page)
        page.goto("/runs/")
        form = page.locator("#new-run")
        form.get_by_label("Pipeline").select_option("loop")
        form.get_by_role("button", name="Show its inputs").click()

        expect(page).to_have_url(re.compile(r"/runs/new/\?pipeline=loop$"), timeout=UI_TIMEOUT_MS)
        expect(form.locator('input[name="input.topic"]')).to_have_value("tidal energy")
    finally:
        context.close()


def sign_in_without_js(page: Page) -> None:
    from runs.tests.browser.conftest import PASSWORD, USERNAME

    page.goto("/login/")
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("load")


def test_a_value_outside_an_inputs_domain_is_an_inline_error(page, rewind_server):
    page.goto("/runs/")
    page.evaluate("window.__marker = 1")
    region = page.locator('#new-run select[name="input.region"]')
    # a select cannot hold a value outside its options; add one, as a hand-made request would
    region.evaluate(
        "el => { const o = document.createElement('option'); o.value = o.text = 'mars';"
        " el.appendChild(o); el.value = 'mars'; }"
    )
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/runs/new/"),
        timeout=UI_TIMEOUT_MS,
    ) as posted:
        page.locator("#new-run").get_by_role("button", name="Start run").click()
    assert posted.value.status == 400

    error = page.locator("#new-run p.field.invalid .error")
    expect(error).to_contain_text("region: must be one of", timeout=5_000)
    assert page.evaluate("window.__marker") == 1
