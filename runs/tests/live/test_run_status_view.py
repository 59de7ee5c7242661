"""``/runs/<run>/status/``: the polling fallback. It answers the live update (the page's
regions out of band; without ``after``/``status`` every step is news — see
test_live_deltas.py for the deltas), 200 while the run is unfinished and 286 (htmx: stop
polling) once it ended, in a fixed number of queries however many steps the run has."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.models import Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
STOP_POLLING = 286


def url(run: Run | int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/status/"


def test_anonymous_user_is_sent_to_login(client, run_row):
    run = run_row(status=Run.Status.RUNNING)

    response = client.get(url(run), headers=HTMX)

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{run.pk}/status/"


def test_unknown_run_is_404(signed_in, run_row):
    run = run_row()

    assert signed_in.get(url(run.pk + 1000), headers=HTMX).status_code == 404


def test_post_is_not_allowed(signed_in, run_row):
    assert signed_in.post(url(run_row())).status_code == 405


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_an_unfinished_run_answers_the_live_fragment_and_keeps_polling(
    signed_in, run_row, node_row, status
):
    run = run_row(status=status)
    node_row(run, 0, "plan", total_tokens=258)

    response = signed_in.get(url(run), headers=HTMX)

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" not in text
    assert f'<span class="badge status-{status}" id="run-status">{status}</span>' in text
    assert '<span class="name">plan</span>' in text and "258 tok" in text
    assert "waiting: research, analyse, critique" in text
    # 200, not 286: the poller asks again, from where this update leaves the page
    assert f'<div id="run-poll" hx-get="/runs/{run.pk}/status/?after=0&amp;status={status}"' in text


def test_the_fragment_follows_the_run_as_steps_complete(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0, "plan")
    before = signed_in.get(url(run)).content.decode()
    node_row(run, 1, "research", kind="tool")

    after = signed_in.get(url(run)).content.decode()

    assert 'id="step-1"' not in before
    assert 'id="step-1"' in after and '<span class="name">research</span>' in after
    assert "waiting: research" in before and "waiting: analyse" in after


@pytest.mark.parametrize(
    "status", [Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.INTERRUPTED]
)
def test_a_finished_run_stops_the_polling_with_286(signed_in, run_row, node_row, status):
    run = run_row(status=status)
    node_row(run, 0, "plan")

    response = signed_in.get(url(run), headers=HTMX)

    assert response.status_code == STOP_POLLING
    text = response.content.decode()
    assert f'id="run-status">{status}</span>' in text  # the final state is still swapped in
    assert "every 3s" not in text
    assert "waiting:" not in text


def test_a_completed_run_ends_with_its_artifact(signed_in, research_run):
    response = signed_in.get(url(research_run), headers=HTMX)

    assert response.status_code == STOP_POLLING
    text = response.content.decode()
    assert '<article class="report">' in text and "<table>" in text
    assert f"sha256 {research_run.artifact_sha256}" in text


def queries_for(client, run: Run) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url(run), headers=HTMX)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries]


def test_query_count_does_not_grow_with_the_number_of_steps(signed_in, run_row, node_row):
    small = run_row(status=Run.Status.RUNNING)
    node_row(small, 0, "plan")
    large = run_row(status=Run.Status.RUNNING)
    for seq in range(30):
        node_row(large, seq, ORDER[seq % len(ORDER)])

    few, many = queries_for(signed_in, small), queries_for(signed_in, large)

    assert len(few) == len(many)
    # 1. the session
    # 2. the signed-in user
    # 3. the run (its parent joined)
    # 4. its steps, in one query
    # Still-to-come steps come from the pipeline definition, not the database; no step of
    # these runs was served from the cache, so there is no cache-usage query.
    assert len(many) == 4, "\n".join(many)
