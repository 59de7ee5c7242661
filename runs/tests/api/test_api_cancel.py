"""``POST /api/runs/<run>/cancel``: JSON in every answer — 200 with the cancelled run, 401,
404, 405, 409 for a run that has already finished, 415 for a body that is not JSON."""

from __future__ import annotations

import pytest

from runs.models import Run

pytestmark = pytest.mark.django_db


def url(run_id: int) -> str:
    return f"/api/runs/{run_id}/cancel"


def cancel(client, run_id: int):
    """POST with no body (a JSON client's ``curl -X POST``)."""
    return client.post(url(run_id), content_type="application/json")


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_it_cancels_a_queued_or_running_run(signed_in, run_row, status):
    run = run_row(status=status)
    response = cancel(signed_in, run.pk)
    assert response.status_code == 200
    body = response.json()
    assert (body["run"], body["status"], body["error"]) == (run.pk, "cancelled", "cancelled by dev")
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_a_json_object_body_is_accepted(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    response = signed_in.post(url(run.pk), data="{}", content_type="application/json")
    assert response.status_code == 200


def test_a_finished_run_is_409_and_unchanged(signed_in, run_row):
    run = run_row(status=Run.Status.FAILED, error="boom")
    response = cancel(signed_in, run.pk)
    assert response.status_code == 409
    assert response.json() == {
        "error": f"run {run.pk} is failed; only a queued or running run can be cancelled"
    }
    run.refresh_from_db()
    assert (run.status, run.error) == (Run.Status.FAILED, "boom")


def test_an_unknown_run_is_404(signed_in):
    response = cancel(signed_in, 999999)
    assert response.status_code == 404
    assert response.json() == {"error": "no run 999999"}


def test_get_is_405_naming_post(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    response = signed_in.get(url(run.pk))
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


def test_a_form_body_is_415(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    response = signed_in.post(url(run.pk), data={"x": "1"})
    assert response.status_code == 415
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


def test_an_anonymous_caller_gets_401_and_nothing_changes(client, run_row):
    run = run_row(status=Run.Status.RUNNING)
    response = cancel(client, run.pk)
    assert response.status_code == 401
    assert response.json() == {"error": "sign in first"}
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
