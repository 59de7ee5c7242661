"""Pages bounded by the page (issue 19), in a real Chromium at desk and phone width: a root with
a lineage of 300 shows its newest few and the counts, links the whole lineage a page at a time,
and the compare picker finds a run by typing, from a bounded list."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from runs.tests.browser.conftest import _manage

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1440, "height": 900}
SEED = (
    "from runs.bench.lists import seed_runs; from runs.models import Run; "
    "root = seed_runs(301, lineage=300); "
    "print('root', root.pk, Run.objects.filter(parent=root).order_by('id').first().pk)"
)


@pytest.fixture(scope="module")
def lineage(rewind_server) -> dict[str, int]:
    """A root with 300 descendants written as rows (runs.bench.lists.seed_runs)."""
    out = _manage(rewind_server.env, "shell", "-c", SEED)
    match = re.search(r"root (\d+) (\d+)", out)
    assert match, out
    return {"root": int(match[1]), "fork": int(match[2])}


def no_sideways_scroll(page: Page) -> None:
    wide = page.evaluate(
        "() => document.documentElement.scrollWidth > document.documentElement.clientWidth"
    )
    assert not wide, f"{page.url} scrolls sideways"


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440", "390"])
def test_a_big_lineage_shows_its_newest_and_links_the_rest(
    page, lineage, rewind_server, screenshot_dir, viewport
):
    page.set_viewport_size(viewport)
    page.goto("/runs/")

    # Other browser tests share the server's database: pick this lineage's line among theirs.
    more = page.locator("tr.lineage-more").filter(has_text=f"descendants of run {lineage['root']} ")
    expect(more).to_contain_text(f"295 more of 300 descendants of run {lineage['root']}")
    expect(more).to_contain_text("replays")
    no_sideways_scroll(page)
    more.scroll_into_view_if_needed()
    page.screenshot(path=screenshot_dir / f"runs-big-lineage-{viewport['width']}.png")

    more.get_by_role("link", name="see the whole lineage").click()
    expect(page).to_have_url(rewind_server.url(f"/runs/{lineage['root']}/lineage/"))
    expect(page.locator("nav.pages")).to_contain_text("page 1 of 7")
    expect(page.locator('input[name="run"]')).to_have_count(50)
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / f"lineage-page-{viewport['width']}.png")


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440", "390"])
def test_the_compare_picker_searches_as_you_type(
    page, lineage, rewind_server, screenshot_dir, viewport
):
    page.set_viewport_size(viewport)
    root, fork = lineage["root"], lineage["fork"]
    page.goto(f"/compare/{root}/{fork}/")
    options = page.locator("#run-choices option")
    expect(options).to_have_count(2 + 10 + 20, timeout=10_000)  # bounded: not 300

    with page.expect_response(re.compile(r"/compare/runs/\?")):
        page.locator('input[name="b"]').fill(f"run {fork + 1}")
    expect(options).to_have_count(1)
    expect(options.first).to_have_attribute("value", str(fork + 1))

    with page.expect_response(re.compile(r"/compare/runs/\?")):
        page.locator('input[name="b"]').fill("cost_scale")
    expect(options).to_have_count(20)
    page.locator('input[name="b"]').fill(str(fork + 1))
    no_sideways_scroll(page)
    page.screenshot(path=screenshot_dir / f"compare-picker-search-{viewport['width']}.png")
    page.get_by_role("button", name="Compare", exact=True).click()
    expect(page).to_have_url(rewind_server.url(f"/compare/{root}/{fork + 1}/"))
