"""A provider answering with the dated snapshot of the alias asked for is not a substitution
(issue 34, item 11): Burr's shipped traced chatbot log, imported, asked ``gpt-3.5-turbo`` and
was answered by ``gpt-3.5-turbo-0125`` on every LLM step — no warning in the timeline or the
inspector, at desktop and phone width. A real substitution still warns, saying which."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import burr
import pytest
from playwright.sync_api import expect

from runs.tests.helpers.browser_pages import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"


@pytest.mark.parametrize("width", [1440, 390])
def test_an_imported_openai_run_warns_of_no_substitution(
    page, rewind_server, tmp_path, width, screenshot_dir
):
    root = tmp_path / "burr"
    shutil.copytree(
        DEMO / "demo_chatbot_with_traces" / "chat-2-geography",
        root / f"traced_{width}" / "chat-2",
    )
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/import/")
    page.get_by_label("Tracker directory").fill(str(root))
    page.get_by_role("button", name="Import").click()
    link = page.locator(".import-report ul.imported-runs a").first
    expect(link).to_be_visible(timeout=UI_TIMEOUT_MS)
    run = int(re.search(r"/runs/(\d+)/", link.get_attribute("href")).group(1))
    with sqlite3.connect(rewind_server.database) as db:
        steps = db.execute(
            "SELECT id, sequence_id, model_requested, model_answered FROM runs_node "
            "WHERE run_id = ? AND model_answered != '' ORDER BY sequence_id",
            (run,),
        ).fetchall()
    pairs = {(requested, answered) for _, _, requested, answered in steps}
    assert pairs and all(a != r and a.startswith(r) for r, a in pairs), pairs  # snapshots
    link.click()
    expect(page.locator("li.step").first).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(page.locator("li.step .warning")).to_have_count(0)
    node_id, sequence_id, _, answered = steps[0]
    page.goto(f"/runs/{run}/nodes/{sequence_id}/")
    expect(page.get_by_text(answered).first).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(page.get_by_text("substituted the model")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(screenshot_dir / f"model-snapshot-step-{width}.png"), full_page=True)

    # The same step, had the provider answered with another size, warns and says which.
    with sqlite3.connect(rewind_server.database) as db:
        db.execute(
            "UPDATE runs_node SET model_requested = 'gpt-4o', model_answered = 'gpt-4o-mini' "
            "WHERE id = ?",
            (node_id,),
        )
    page.reload()
    expect(page.get_by_text("answered by gpt-4o-mini, not gpt-4o")).to_be_visible(
        timeout=UI_TIMEOUT_MS
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(
        path=str(screenshot_dir / f"model-substituted-step-{width}.png"), full_page=True
    )
