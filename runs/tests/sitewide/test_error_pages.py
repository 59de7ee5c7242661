"""Error pages (issue 9, item 8): an unknown address is the styled 404 page and an exception in
a view the styled 500 page, each with the site's navigation and frame (the favicon, the skip
link); under /api/ both are JSON all the same.
"""

from __future__ import annotations

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

from rewind_site import urls as site_urls
from runs.tests.helpers.page_frame import assert_frame, page_of

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
