"""The frame of every page (issue 9, item 8): exactly one ``h1``, the skip link first in the body
and the favicon (an SVG served from static) on every page of the dashboard and the sign-in page.

"Every page" is read from the URLconf: each named route of ``runs.urls`` that answers a GET
with an HTML page is visited with real rows, so a page added later is checked too.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

import pytest
from django.contrib.staticfiles import finders
from django.urls import URLPattern

from runs import urls as runs_urls
from runs.engine.run_sets.batches import make_batch, plan_batch
from runs.engine.run_sets.requests import BatchRequest, Selection
from runs.models import Grid, Run
from runs.tests.helpers.page_frame import assert_frame, page_of

pytestmark = pytest.mark.django_db


# --- favicon ------------------------------------------------------------------------------------


def test_the_favicon_is_an_svg_served_from_static(client):
    found = finders.find("favicon.svg")
    assert found, "static/favicon.svg is missing"
    root = ElementTree.parse(found).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 32 32"
    assert not root.findall(".//{http://www.w3.org/2000/svg}style")  # attributes only
    response = client.get("/static/favicon.svg")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("image/svg+xml")


# --- every page: one h1, the skip link, the favicon ---------------------------------------------

# Routes that are not pages: fragments, streams, files, actions and JSON.
NOT_PAGES = {
    "login",  # visited signed out, below
    "logout",
    "run-status",
    "run-events",
    "run-artifact",
    "run-export",
    "batch-export",
    "run-replay",
    "run-resume",
    "run-cancel",
    "outcome-add",
    "outcome-remove",
    "compare-runs",  # the compare picker's matches, a fragment
}
PAGES = sorted(
    p.name
    for p in runs_urls.urlpatterns
    if isinstance(p, URLPattern)
    and p.name
    and p.name not in NOT_PAGES
    and not p.name.startswith("api-")
    and p.name != "health"
)

# Pages only staff may open (others get 403): checked signed in as staff.
STAFF_PAGES = {"import"}

# Pages with a known fault, owned elsewhere in issue 9; strict, so the mark must go the day the
# page is fixed.
KNOWN: dict[str, str] = {}


@pytest.fixture
def rows(research_run, run_fork) -> dict[str, Any]:
    """Real rows for every kind of URL argument a page takes."""
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    analyse = research_run.nodes.get(name="analyse")
    grid = Grid.objects.record(research_run, analyse, "args.cost_scale", ["3"], [fork])
    batch = make_batch(
        plan_batch(
            BatchRequest(Selection(runs=(research_run.pk,)), "analyse", "args.region", ("east",), 0)
        )
    )
    return {
        "batch_id": batch.pk,
        "run_id": research_run.pk,
        "sequence_id": analyse.sequence_id,
        "run_a": research_run.pk,
        "run_b": fork.pk,
        "grid_id": grid.pk,
        "pipeline": research_run.pipeline,
    }


def url_of(name: str, rows: dict[str, Any]) -> str:
    from django.urls import reverse

    (pattern,) = [p for p in runs_urls.urlpatterns if getattr(p, "name", None) == name]
    arguments = list(pattern.pattern.converters)
    unknown = [a for a in arguments if a not in rows]
    assert not unknown, f"teach rows() a value for {unknown} (route {name})"
    return reverse(name, kwargs={a: rows[a] for a in arguments})


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN[name], strict=True))
        if name in KNOWN
        else name
        for name in PAGES
    ],
)
def test_every_page_has_one_h1_the_skip_link_and_the_favicon(name, signed_in, dev_user, rows):
    if name in STAFF_PAGES:
        dev_user.is_staff = True
        dev_user.save(update_fields=["is_staff"])
    response = signed_in.get(url_of(name, rows), follow=True)
    assert response.status_code == 200
    page = page_of(response)
    assert_frame(page)
    assert len(page.h1) == 1, f"{name}: h1 {page.h1}"


def test_the_sign_in_page_has_one_h1_the_skip_link_and_the_favicon(client):
    page = page_of(client.get("/login/"))
    assert [h.strip() for h in page.h1] == ["Sign in"]
    assert_frame(page)
