"""A regression replay (issue 32) in a real Chromium, against the real server and its worker.

From the runs of the research pipeline, the Regression replay button opens the form (the code
it will run, the runs it matches); submitting it lands on the batch page, whose progress bar is
polled by htmx while the server's worker re-runs each recorded run, and which then says what it
found — without a reload.

- Unchanged code: every re-run is identical, the page says "no regression".
- A planted regression: the runs are recorded by a ``manage.py rewind_run`` that has *other*
  code registered as ``research`` — yesterday's code (``OLD_CODE``: the nodes
  ``runs/tests/helpers/regressed_research.py`` changes, whose ``analyse`` says east's best
  group "B" for north and "Z" for west) — while the server runs the demo's code as it is in
  the repository (north → "C", west → "A"). The server is another process (``rewind_serve``),
  so nothing is monkeypatched: the difference is in what was recorded. With an outcome added on the dashboard,
  ``winner`` = ``analyse.best_group`` equals "B", exactly one outcome goes pass → fail: north's
  ``winner``. West's goes fail → fail (``best_group`` is fixed: "Z" ✗ → "A" ✓), east's stays
  "B" ✓. The page says "1 regression" and badges north's ``winner`` "regressed".

Screenshots of the form and of the finished batch page at 1440 and 390 px; neither page
scrolls sideways. Any JavaScript error or CSP violation fails the test (``conftest.page``).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import REPO
from runs.tests.helpers.browser_pages import assert_same_document, mark_page, no_sideways_scroll

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 90_000  # every re-run of the batch finished on the server's worker
WIDTHS = ((1440, 900), (390, 844))
BATCH_URL = re.compile(r"/batches/(\d+)/$")
FORM_URL = re.compile(r"/pipelines/research/regress/$")
SUBMIT = re.compile(r"^Re-run the matching runs with this code$")
# Yesterday's code, as the recording process has it: ``regressed_research``'s changed nodes,
# each under a version of its own, so that what they computed is cached apart from what the
# repository's code computes (a tool's answers are keyed by its declared version): the old
# code's runs are not answered by the new code's cache entries, and no later run of the
# repository's code is answered by the old code's.
OLD_MODULE = "rewind_yesterdays_research"
OLD_CODE = '''\
"""The research pipeline as it was when the runs were recorded (test_regression.py)."""
from dataclasses import replace

from runs.tests.helpers import regressed_research

pipeline = replace(
    regressed_research.pipeline,
    nodes=tuple(
        replace(node, version=node.version + "-yesterday")
        if node.name in regressed_research.CHANGED else node
        for node in regressed_research.pipeline.nodes
    ),
)
'''


def recorded(rewind_server, question: str, region: str, *, old_code: Path | None = None) -> int:
    """A completed research run, recorded from a shell (``manage.py rewind_run``) into the
    server's database — with the repository's code, or with the module in the folder
    ``old_code`` registered as ``research`` in that process only."""
    env = dict(rewind_server.env)
    if old_code is not None:
        env["REWIND_PIPELINES"] = f"research={OLD_MODULE}.pipeline"
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(old_code), env.get("PYTHONPATH")]))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    result = subprocess.run(
        [sys.executable, "manage.py", "rewind_run", "--input", f"question={question}",
         "--input", f"region={region}", "--json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["run"]


def shoot(page: Page, screenshot_dir, name: str) -> None:
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        no_sideways_scroll(page)
        page.screenshot(path=screenshot_dir / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def open_the_form(page: Page, rewind_server) -> str:
    """From the research runs, the Regression replay button; the code label the form names."""
    page.goto("/runs/?pipeline=research")
    page.get_by_role("link", name="Regression replay", exact=True).click()
    expect(page).to_have_url(FORM_URL)
    expect(page.locator("h1")).to_contain_text("Regression replay")
    label = page.locator("p.code code")
    expect(label).to_be_visible()
    version = label.get_attribute("title") or ""
    assert re.fullmatch(r"[0-9a-f]{64}", version), version  # sha256 of the app's sources
    expect(label).to_have_text(re.compile(rf"^{version[:12]}( \(git [0-9a-f]+(\+dirty)?\))?$"))
    return label.inner_text()


def submit(page: Page, question: str) -> None:
    form = page.locator("form.regression-new")
    form.get_by_label("Only runs whose inputs match").fill(f"input.question={question}")
    form.get_by_role("button", name=SUBMIT).click()


def row(page: Page, run: int):
    return page.locator(f'table.sources.regression tbody tr[data-run="{run}"]')


def test_unchanged_code_replays_to_no_regression_without_a_reload(
    page, rewind_server, screenshot_dir
):
    question = f"Which outreach policy is cheapest? (regression {uuid.uuid4().hex[:8]})"
    runs = [recorded(rewind_server, question, r) for r in ("west", "east", "north")]

    code = open_the_form(page, rewind_server)
    page.locator("form.regression-new").get_by_label("Only runs whose inputs match").fill(
        f"input.question={question}"
    )
    shoot(page, screenshot_dir, "regression-form")

    with rewind_server.worker_paused():
        submit(page, question)
        expect(page).to_have_url(BATCH_URL)
        batch = BATCH_URL.search(page.url).group(1)
        expect(page.locator("h1")).to_have_text(f"Regression replay {batch}: the code at {code}")
        # Progress first: nothing has run yet, and no verdict is given.
        expect(page.locator(".progress-line .badge.status-running")).to_be_visible()
        expect(page.locator("#batch-progress")).to_have_attribute("value", "0")
        expect(page.locator("#batch-progress")).to_have_attribute("max", "3")
        expect(page.locator("p.verdict-line")).to_have_count(0)
        mark_page(page)

    # Then the verdict, by htmx polling, in the same document.
    expect(page.locator(".progress-line .badge.status-completed")).to_be_visible(
        timeout=RUN_TIMEOUT_MS
    )
    assert_same_document(page)
    expect(page.locator("#batch-progress")).to_have_attribute("value", "3")
    expect(page.locator("p.verdict-line .badge")).to_have_text("no regression")
    expect(page.locator("p.verdict-line")).to_contain_text("no outcome that passed fails now")

    summary = page.locator("table.summary")
    expect(summary.locator("thead")).to_contain_text("pass → fail")
    best = summary.locator("tbody tr").filter(has=page.locator("th", has_text="best_group"))
    expect(best.locator("td").first).to_have_text("0 / 3")
    expect(best.locator("td").last).to_have_text("0")  # pass → fail

    expect(page.locator("table.sources.regression tbody tr")).to_have_count(3)
    rows = page.locator("table.sources.regression tbody tr")
    assert [int(r.get_attribute("data-run")) for r in rows.all()] == runs
    for run in runs:
        tr = row(page, run)
        expect(tr.locator("th")).to_have_text(f"run {run}")
        expect(tr.locator("td").nth(0)).to_have_text(re.compile(r"^run \d+$"))  # the re-run
        expect(tr.locator("td").nth(2)).to_have_text("none: identical")
        change = tr.locator("td.changes .change").filter(has_text="best_group")
        expect(change).to_have_text(re.compile(r"^best_group: [ABC]\s✓ → [ABC]\s✓$"))
        expect(change.locator('[aria-label="pass"]')).to_have_count(2)
        expect(tr.locator(".badge.flip")).to_have_count(0)
        expect(tr.locator("td.num")).to_have_text("0")  # every call answered from the cache
    shoot(page, screenshot_dir, "regression-batch")

    rerun = row(page, runs[0]).locator("td").nth(0).inner_text().removeprefix("run ")
    row(page, runs[0]).get_by_role("link", name="diff").click()
    expect(page).to_have_url(re.compile(rf"/compare/{runs[0]}/{rerun}/$"))
    expect(page.locator("body")).to_contain_text("a regression replay")


def test_a_planted_regression_shows_one_regression_and_its_badge(
    page, rewind_server, screenshot_dir, tmp_path
):
    (tmp_path / f"{OLD_MODULE}.py").write_text(OLD_CODE)
    question = f"Which outreach policy is cheapest? (regressed {uuid.uuid4().hex[:8]})"
    runs = {
        r: recorded(rewind_server, question, r, old_code=tmp_path)
        for r in ("east", "north", "west")
    }
    # The check a person added on the dashboard (test_outcomes.py writes rows the same way).
    with sqlite3.connect(rewind_server.database) as db:
        db.execute(
            "INSERT INTO runs_outcome (pipeline, name, path, check_kind, check_argument, "
            "created_at) VALUES ('research', 'winner', 'analyse.best_group', 'equals', ?, ?)",
            (json.dumps("B"), datetime.now(UTC).isoformat()),
        )
    try:
        open_the_form(page, rewind_server)
        submit(page, question)
        expect(page).to_have_url(BATCH_URL)
        mark_page(page)
        expect(page.locator(".progress-line .badge.status-completed")).to_be_visible(
            timeout=RUN_TIMEOUT_MS
        )
        assert_same_document(page)

        verdict = page.locator("p.verdict-line")
        expect(verdict.locator(".badge.flip")).to_have_text("1 regression")
        expect(verdict).to_contain_text("outcome that passed now fails")

        summary = page.locator("table.summary tbody tr")
        winner = summary.filter(has=page.locator("th", has_text="winner"))
        # The same value as best_group's: north's B → C and west's Z → A both flip it …
        expect(winner.locator("td").first).to_have_text("2 / 3")
        expect(winner.locator("td").last).to_have_text("1")  # … but north's alone fails now
        best = summary.filter(has=page.locator("th", has_text="best_group"))
        expect(best.locator("td").first).to_have_text("2 / 3")  # north's B → C, west's Z → A
        expect(best.locator("td").last).to_have_text("0")

        north = row(page, runs["north"])
        expect(north.locator("td").nth(2)).to_contain_text("analyse")  # first divergence
        expect(north.locator(".badge.code-changed")).to_have_text("code changed")
        regressed = north.locator(".change").filter(has_text="winner")
        expect(regressed).to_contain_text(re.compile(r"B\s✓ → C\s✗"))
        expect(regressed.locator(".badge.flip")).to_have_text("regressed")
        expect(page.locator("table.sources.regression .badge.flip", has_text="regressed"))\
            .to_have_count(1)  # fmt: skip

        west = row(page, runs["west"])
        fixed = west.locator(".change").filter(has_text="best_group")
        expect(fixed).to_contain_text(re.compile(r"Z\s✗ → A\s✓"))
        expect(fixed.locator(".badge.flip")).to_have_text("flipped")
        expect(west.locator(".change").filter(has_text="winner")).to_contain_text(
            re.compile(r"Z\s✗ → A\s✗")
        )

        east = row(page, runs["east"])
        expect(east.locator("td").nth(2)).to_contain_text("none: identical")
        expect(east.locator(".badge.flip")).to_have_count(0)
        shoot(page, screenshot_dir, "regression-batch-regressed")

        north.get_by_role("link", name="diff").click()
        expect(page).to_have_url(re.compile(rf"/compare/{runs['north']}/\d+/$"))
    finally:
        with sqlite3.connect(rewind_server.database) as db:
            db.execute("DELETE FROM runs_outcome WHERE pipeline = 'research' AND name = 'winner'")
