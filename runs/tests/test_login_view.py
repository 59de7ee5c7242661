"""``/login/``: the one page (besides health) an anonymous user may open. A wrong password
is an error on the form; the right one lands on ``/runs/`` (or a safe ``next``)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

URL = "/login/"
PASSWORD = "a long enough password 42"


@pytest.fixture
def member(django_user_model):
    return django_user_model.objects.create_user("ada", password=PASSWORD)


def test_anonymous_user_gets_the_login_page(client):
    response = client.get(URL)

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" in text
    assert f'<form method="post" action="{URL}"' in text
    assert 'name="username"' in text and 'name="password"' in text
    assert 'href="/settings/"' not in text  # no navigation for anonymous users


def test_an_anonymous_htmx_request_for_a_page_is_redirected_here(client):
    response = client.get("/runs/", headers={"HX-Request": "true"})

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/runs/"


def test_the_next_page_is_carried_in_the_form(client):
    text = client.get(URL, {"next": "/compare/1/2/"}).content.decode()

    assert '<input type="hidden" name="next" value="/compare/1/2/">' in text


def test_a_wrong_password_is_an_error(client, member):
    response = client.post(URL, {"username": "ada", "password": "wrong"})

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_an_unknown_user_is_the_same_error(client, member):
    wrong_user = client.post(URL, {"username": "nobody", "password": PASSWORD})
    wrong_password = client.post(URL, {"username": "ada", "password": "wrong"})

    assert wrong_user.status_code == wrong_password.status_code == 200
    assert "Please enter a correct username and password" in wrong_user.content.decode()


def test_the_right_password_signs_in_and_lands_on_runs(client, member):
    response = client.post(URL, {"username": "ada", "password": PASSWORD, "next": ""})

    assert response.status_code == 302
    assert response["Location"] == "/runs/"
    assert client.get("/runs/").status_code == 200


def test_it_goes_on_to_a_local_next_page(client, member):
    response = client.post(URL, {"username": "ada", "password": PASSWORD, "next": "/settings/"})

    assert response.status_code == 302
    assert response["Location"] == "/settings/"


@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/runs/"])
def test_it_never_redirects_to_another_site(client, member, next_url):
    response = client.post(URL, {"username": "ada", "password": PASSWORD, "next": next_url})

    assert response.status_code == 302
    assert response["Location"] == "/runs/"


def test_an_inactive_user_cannot_sign_in(client, member):
    member.is_active = False
    member.save()

    response = client.post(URL, {"username": "ada", "password": PASSWORD})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_signing_out_needs_a_post_and_ends_the_session(client, member):
    client.force_login(member)

    assert client.get("/logout/").status_code == 405
    response = client.post("/logout/")

    assert response.status_code == 302
    assert response["Location"] == "/login/"
    assert client.get("/runs/").status_code == 302


def test_the_suite_hashes_passwords_with_a_fast_hasher(dev_user):
    # Fixture time went to PBKDF2 (seconds a user); test passwords need no strength.
    assert dev_user.password.startswith("md5$")
