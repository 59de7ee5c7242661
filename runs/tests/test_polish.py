"""Polish (issue 9, item 8) that a server-rendered page either has or has not: styled 404 and
500 pages with navigation (JSON under /api/ all the same), the favicon, the skip link and
exactly one ``h1`` on every page of the dashboard.

"Every page" is read from the URLconf: each named route of ``runs.urls`` that answers a GET
with an HTML page is visited with real rows, so a page added later is checked too.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from xml.etree import ElementTree

import pytest
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import URLPattern, include, path

from rewind_site import urls as site_urls
from runs import urls as runs_urls
from runs.engine.analysis.batches import BatchRequest, Selection, make_batch, plan_batch
from runs.models import Grid, Run

pytestmark = pytest.mark.django_db


# --- a URLconf for the 500 page: the site's own, plus views that raise --------------------------


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


urlpatterns = [
    path("boom/", boom),
    path("api/boom", boom),
    path("", include(site_urls)),
]
handler404 = site_urls.handler404
handler500 = site_urls.handler500


class Page(HTMLParser):
    """What the checks need from a page: its h1s, links, scripts, ids and the skip link."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.h1: list[str] = []
        self.links: list[dict[str, str]] = []  # <link>
        self.anchors: list[dict[str, str]] = []  # <a>
        self.scripts = 0
        self.ids: set[str] = set()
        self.first_in_body: dict[str, str] | None = None
        self._in_body = self._in_h1 = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if self._in_body and self.first_in_body is None:
            self.first_in_body = {"tag": tag, **values}
        if tag == "body":
            self._in_body = True
        elif tag == "h1":
            self._in_h1 = True
            self.h1.append("")
        elif tag == "link":
            self.links.append(values)
        elif tag == "a":
            self.anchors.append(values)
        elif tag == "script":
            self.scripts += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data: str) -> None:
        if self._in_h1:
            self.h1[-1] += data

    def hrefs(self) -> set[str]:
        return {a.get("href", "") for a in self.anchors}


def page_of(response) -> Page:
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    return Page(response.content.decode())


def assert_frame(page: Page) -> None:
    """What every page of the site has: the favicon, the skip link first in the body, pointing
    at the main landmark."""
    icons = [link for link in page.links if link.get("rel") == "icon"]
    assert [i["href"] for i in icons] == ["/static/favicon.svg"]
    assert icons[0]["type"] == "image/svg+xml"
    assert page.first_in_body is not None
    assert page.first_in_body["tag"] == "a" and page.first_in_body["href"] == "#main"
    assert "skip-link" in page.first_in_body["class"]
    assert "main" in page.ids


# --- 404 ----------------------------------------------------------------------------------------


def test_an_unknown_address_is_the_styled_404_with_the_navigation(signed_in):
    response = signed_in.get("/no/such/page/")
    assert response.status_code == 404
    assert [t.name for t in response.templates][0] == "404.html"
    page = page_of(response)
    assert [h.strip() for h in page.h1] == ["Nothing here"]
    assert_frame(page)
    assert {"/runs/", "/settings/"} <= page.hrefs()
    text = response.content.decode()
    assert "/no/such/page/" in text
    assert "Resolver404" not in text  # Django's name for "no route", not a message for people
    assert "Sign out dev" in text  # the header's navigation, as on every page


def test_a_missing_run_says_which(signed_in):
    response = signed_in.get("/runs/999999/")
    assert response.status_code == 404
    assert "no run 999999" in response.content.decode()


def test_anonymous_users_get_the_404_with_a_way_to_sign_in(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = page_of(response)
    assert "/login/" in page.hrefs()
    assert "Sign out" not in response.content.decode()


def test_under_api_a_404_is_still_json(signed_in):
    response = signed_in.get("/api/no/such/endpoint")
    assert response.status_code == 404
    assert response.json() == {"error": "no API endpoint /api/no/such/endpoint"}


# --- 500 ----------------------------------------------------------------------------------------


@pytest.fixture
def crashing(settings, dev_user) -> Client:
    """A signed-in client on a URLconf with views that raise; it gets the 500 response."""
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)
    client.force_login(dev_user)
    return client


def test_a_view_that_raises_gets_the_styled_500_page_without_scripts(crashing):
    response = crashing.get("/boom/")
    assert response.status_code == 500
    page = page_of(response)
    assert [h.strip() for h in page.h1] == ["Something went wrong on our side"]
    assert_frame(page)
    assert {"/runs/", "/settings/"} <= page.hrefs()
    # Rendered without a request (it must render when the database is what failed): no CSP
    # nonce, so no script at all — a script without one would be refused, loudly.
    assert page.scripts == 0
    assert "a bug in a view" not in response.content.decode()  # the log has it, not the page


def test_under_api_a_500_is_still_json(crashing):
    response = crashing.get("/api/boom")
    assert response.status_code == 500
    assert response.json() == {"error": "internal error; the server log has the details"}


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
