"""``/login/``: the one page (besides health) an anonymous user may open. A wrong password
is an error on the form; the right one lands on ``/runs/`` (or a safe ``next``)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db.models import F
from django.test import Client, override_settings
from django.utils import timezone

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


# --- repeated failures: a lock per username and address (django-axes) ------------------------


def fail(client, times: int, username: str = "ada"):
    """``times`` wrong passwords in a row; the last answer."""
    for _ in range(times):
        response = client.post(URL, {"username": username, "password": "wrong"})
    return response


def an_hour_passes() -> None:
    """The failures were made an hour ago (longer than the cool-off): time moves on without
    sleeping."""
    from axes.models import AccessAttempt

    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(hours=1))


@override_settings(AXES_FAILURE_LIMIT=10, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_failures_under_the_limit_are_form_errors(client, member):
    response = fail(client, 9)

    assert response.status_code == 200
    text = response.content.decode()
    assert "Please enter a correct username and password" in text
    assert "is locked" not in text


@override_settings(AXES_FAILURE_LIMIT=10, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_the_failure_at_the_limit_locks_and_the_page_says_for_how_long(client, member):
    fail(client, 9)
    before = timezone.now()
    response = fail(client, 1)

    assert response.status_code == 429
    text = response.content.decode()
    assert "<html" in text and 'name="password"' in text  # the sign-in page, not a bare 403
    assert "Signing in as “ada” from your address is locked" in text
    assert "after 10 wrong passwords in a row" in text
    assert "Try again in 15 minutes" in text
    # the lock ends 15 minutes after the last failure (made between ``before`` and now)
    shown = re.search(r"after (\d\d:\d\d) UTC", text).group(1)
    ends = before + timedelta(minutes=15)
    assert shown in {ends.strftime("%H:%M"), (ends + timedelta(minutes=1)).strftime("%H:%M")}


@override_settings(AXES_FAILURE_LIMIT=10, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_the_right_password_is_refused_while_locked(client, member):
    fail(client, 10)

    response = client.post(URL, {"username": "ada", "password": PASSWORD})

    assert response.status_code == 429
    assert "is locked" in response.content.decode()
    assert "_auth_user_id" not in client.session


@override_settings(AXES_FAILURE_LIMIT=10, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_the_right_password_signs_in_once_the_cool_off_has_passed(client, member):
    fail(client, 10)
    an_hour_passes()

    response = client.post(URL, {"username": "ada", "password": PASSWORD, "next": ""})

    assert response.status_code == 302 and response["Location"] == "/runs/"
    assert client.get("/runs/").status_code == 200


@override_settings(AXES_FAILURE_LIMIT=10, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_a_lock_holds_one_username_from_one_address(client, member, django_user_model):
    django_user_model.objects.create_user("bob", password=PASSWORD)
    fail(client, 10)

    other_user = client.post(URL, {"username": "bob", "password": PASSWORD})
    other_address = Client(REMOTE_ADDR="10.0.0.9").post(
        URL, {"username": "ada", "password": PASSWORD}
    )

    assert other_user.status_code == 302
    assert other_address.status_code == 302


@override_settings(AXES_FAILURE_LIMIT=10, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_a_right_password_before_the_limit_forgets_the_failures(client, member):
    fail(client, 9)
    client.post(URL, {"username": "ada", "password": PASSWORD})
    client.post("/logout/")

    response = fail(client, 9)

    assert response.status_code == 200  # nine more are allowed again


def test_a_wrong_password_is_not_stored(client, member):
    from axes.models import AccessAttempt

    client.post(URL, {"username": "ada", "password": "hunter2-secret"})

    assert AccessAttempt.objects.count() == 1
    assert "hunter2-secret" not in AccessAttempt.objects.get().post_data


def test_a_session_from_the_form_still_signs_in_the_api(client, member, run_row):
    run = run_row()
    client.post(URL, {"username": "ada", "password": PASSWORD})

    response = client.get(f"/api/runs/{run.pk}")

    assert response.status_code == 200
    assert response.json()["run"] == run.pk
