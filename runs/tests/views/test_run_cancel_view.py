"""``POST /runs/<run>/cancel/`` and the run page's **Cancel run** button: any signed-in user
may cancel a queued or running run; a plain form is redirected to the run page, htmx gets a
client redirect; a finished run is a 409 that changes nothing."""

from __future__ import annotations

import pytest

from runs.models import Run

pytestmark = pytest.mark.django_db


def url(run: Run) -> str:
    return f"/runs/{run.pk}/cancel/"


def test_anonymous_user_is_sent_to_login_and_nothing_changes(client, run_row):
    run = run_row(status=Run.Status.RUNNING)
    response = client.post(url(run))
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_a_form_post_cancels_the_run_and_redirects_to_its_page(signed_in, run_row, status):
    run = run_row(status=status)
    response = signed_in.post(url(run))
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{run.pk}/"
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert run.error == "cancelled by dev"


def test_htmx_gets_a_client_redirect(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    response = signed_in.post(url(run), headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/runs/{run.pk}/"
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_a_finished_run_is_a_409_and_is_left_as_it_was(signed_in, run_row):
    run = run_row(status=Run.Status.COMPLETED)
    response = signed_in.post(url(run))
    assert response.status_code == 409
    assert response.content.decode() == (
        f"run {run.pk} is completed; only a queued or running run can be cancelled"
    )
    run.refresh_from_db()
    assert run.status == Run.Status.COMPLETED


def test_an_unknown_run_is_404(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    assert signed_in.post(f"/runs/{run.pk + 1000}/cancel/").status_code == 404


def test_get_is_not_allowed(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    assert signed_in.get(url(run)).status_code == 405
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_the_run_page_offers_cancel_while_the_run_is_unfinished(signed_in, run_row, status):
    run = run_row(status=status)
    html = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert f'action="/runs/{run.pk}/cancel/"' in html
    assert f'hx-post="/runs/{run.pk}/cancel/"' in html
    assert "Cancel run</button>" in html


@pytest.mark.parametrize(
    "status",
    [Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.INTERRUPTED, Run.Status.CANCELLED],
)
def test_a_finished_run_offers_no_cancel(signed_in, run_row, status):
    run = run_row(status=status)
    html = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert "/cancel/" not in html


def test_a_cancelled_run_shows_its_status_and_who_cancelled_it(signed_in, run_row):
    run = run_row(status=Run.Status.CANCELLED, error="cancelled by dev")
    html = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert 'class="badge status-cancelled" id="run-status">cancelled</span>' in html
    assert "cancelled by dev" in html
    assert "run-poll" not in html  # finished: no polling, no stream


def test_the_run_list_filters_cancelled_runs(signed_in, run_row):
    cancelled = run_row(status=Run.Status.CANCELLED)
    completed = run_row(status=Run.Status.COMPLETED)
    html = signed_in.get("/runs/?status=cancelled").content.decode()
    assert f"/runs/{cancelled.pk}/" in html
    assert f"/runs/{completed.pk}/" not in html
