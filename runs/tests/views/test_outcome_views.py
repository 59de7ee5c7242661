"""Outcomes on the dashboard: the run page's Outcomes section (values, pass/fail, declared or
removable), ``POST /runs/<run>/outcomes/`` to add one and ``…/outcomes/<id>/remove/`` to
remove one (htmx swaps the section; a plain form is redirected; a refusal is a 400 that writes
nothing), and the outcome chips of the runs list, in a bounded number of queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.models import Outcome as OutcomeRow
from runs.models import Run

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def add_url(run: Run) -> str:
    return f"/runs/{run.pk}/outcomes/"


def remove_url(run: Run, row: OutcomeRow) -> str:
    return f"/runs/{run.pk}/outcomes/{row.pk}/remove/"


def best_group(run: Run) -> str:
    return run.nodes.get(name="analyse").output["best_group"]


def outcome_row(text: str, name: str) -> str:
    found = re.search(rf'<tr data-outcome="{name}">(.*?)</tr>', text, re.S)
    assert found, f"no outcome {name} on the page"
    return found.group(1)


def test_anonymous_user_is_sent_to_login_and_nothing_is_written(client, run_row):
    run = run_row()
    response = client.post(add_url(run), {"name": "x", "path": "state.x"})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    row = OutcomeRow.objects.create(pipeline="research", name="y", path="state.y")
    response = client.post(remove_url(run, row))
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert list(OutcomeRow.objects.values_list("name", flat=True)) == ["y"]


def test_the_run_page_shows_the_declared_outcome_with_its_verdict(signed_in, research_run):
    text = signed_in.get(f"/runs/{research_run.pk}/").content.decode()
    row = outcome_row(text, "best_group")
    assert f'<code title="{best_group(research_run)}">{best_group(research_run)}</code>' in row
    assert '<span class="badge outcome-pass">pass</span>' in row
    assert "one of &quot;A&quot;, &quot;B&quot;, &quot;C&quot;" in row
    assert "declared by the pipeline" in row and "Remove" not in row


def test_a_running_run_lists_its_outcomes_without_values_yet(signed_in, run_row):
    run = run_row(status=Run.Status.RUNNING)
    row = outcome_row(signed_in.get(f"/runs/{run.pk}/").content.decode(), "best_group")
    assert "when the run has finished" in row and "badge outcome-" not in row


def test_htmx_adds_an_outcome_and_gets_the_section_with_its_value(
    signed_in, research_run, dev_user
):
    response = signed_in.post(
        add_url(research_run),
        {"name": "cheapest", "path": "analyse.best_group", "check": "equals", "argument": "Z"},
        headers=HTMX,
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert text.lstrip().startswith('<section id="run-outcomes"')  # the fragment, no page
    row = outcome_row(text, "cheapest")
    assert '<span class="badge outcome-fail">fail</span>' in row
    assert "is not &quot;Z&quot;" in row
    assert "Remove" in row
    saved = OutcomeRow.objects.get()
    assert (saved.pipeline, saved.check_kind, saved.check_argument) == ("research", "equals", "Z")
    assert saved.created_by == dev_user


def test_a_plain_form_is_redirected_to_the_run_page(signed_in, research_run):
    response = signed_in.post(add_url(research_run), {"name": "g", "path": "analyse.best_group"})
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{research_run.pk}/#outcomes"
    page = signed_in.get(f"/runs/{research_run.pk}/").content.decode()
    assert best_group(research_run) in outcome_row(page, "g")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"name": "r", "path": "analyse.best_group", "check": "regex", "argument": "("},
            "does not compile",
        ),
        (
            {"name": "b", "path": "analyse.best_group", "check": "between", "argument": "x..3"},
            "bounds must be numbers",
        ),
        (
            {"name": "s", "path": "state.x", "check": "json_schema", "argument": '{"type": 5}'},
            "not a valid schema",
        ),
        ({"name": "p", "path": "analyse..x"}, "a path starts with a key"),
        ({"name": "u", "path": "analyze.best_group"}, "has no node &#x27;analyze&#x27;"),
        ({"name": "best_group", "path": "analyse.best_group"}, "declared by the pipeline"),
        ({"name": "bad name!", "path": "analyse.best_group"}, "outcome name"),
    ],
)
def test_a_bad_outcome_is_a_400_naming_the_problem_and_nothing_is_written(
    signed_in, research_run, data, message
):
    response = signed_in.post(add_url(research_run), data, headers=HTMX)
    assert response.status_code == 400
    text = response.content.decode()
    assert text.lstrip().startswith('<section id="run-outcomes"')
    assert message in text
    assert '<details class="add-outcome" open>' in text  # the form stays open with the error
    assert not OutcomeRow.objects.exists()


def test_without_javascript_a_refusal_renders_the_page_with_the_error(signed_in, research_run):
    response = signed_in.post(
        add_url(research_run), {"name": "r", "path": "analyse.x", "check": "regex", "argument": "("}
    )
    assert response.status_code == 400
    text = response.content.decode()
    assert "<h1>Run" in text and "does not compile" in text
    assert not OutcomeRow.objects.exists()


def test_remove_deletes_the_row_and_answers_the_section(signed_in, research_run):
    row = OutcomeRow.objects.create(pipeline="research", name="g", path="analyse.best_group")
    response = signed_in.post(remove_url(research_run, row), headers=HTMX)
    assert response.status_code == 200
    assert 'data-outcome="g"' not in response.content.decode()
    assert not OutcomeRow.objects.exists()


def test_remove_of_another_pipelines_outcome_is_a_404(signed_in, research_run):
    row = OutcomeRow.objects.create(pipeline="other", name="g", path="state.g")
    assert signed_in.post(remove_url(research_run, row)).status_code == 404
    assert OutcomeRow.objects.filter(pk=row.pk).exists()


def test_add_and_remove_only_take_post(signed_in, research_run):
    assert signed_in.get(add_url(research_run)).status_code == 405


def test_the_runs_list_shows_each_finished_runs_outcomes(
    signed_in, research_run, run_fork, run_row
):
    fork = run_fork(research_run, "analyse", "args.region", "east")
    queued = run_row(status=Run.Status.QUEUED)
    text = signed_in.get("/runs/").content.decode()
    for run in (research_run, fork):
        value = best_group(run)
        assert (
            f'title="best_group = {value}: pass"><span class="outcome-name">best_group</span> '
            f'<span class="outcome-value">{value}</span> <span aria-label="pass">✓</span>'
        ) in text
    cells = re.findall(r'<td class="outcomes" data-label="Outcomes">(.*?)</td>', text, re.S)
    assert len(cells) == 3
    assert sum('aria-label="no outcomes"' in cell for cell in cells) == 1  # the queued run
    assert queued.pk


def test_the_list_takes_the_same_queries_for_many_runs_with_outcomes(
    signed_in, research_run, run_fork
):
    def count() -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            assert signed_in.get("/runs/").status_code == 200
        return [q["sql"] for q in queries.captured_queries]

    few = count()
    for _ in range(4):
        run_fork(research_run, "analyse", "args.region", "east")
    many = count()
    # 1. session  2. user  3. COUNT(*) of roots  4. the ids of the page's roots  5. those
    # roots with their totals  6. their descendants counted by kind  7. the newest few
    # descendants  8. the dashboard's outcomes  9. the steps the outcomes read
    assert len(few) == len(many) == 9, "\n".join(many)


def test_the_update_at_the_end_of_a_run_carries_the_outcomes_section(signed_in, research_run):
    response = signed_in.get(
        f"/runs/{research_run.pk}/status/",
        {"after": 3, "status": "running"},
        headers=HTMX,
    )
    text = response.content.decode()
    assert (
        '<section id="run-outcomes" class="run-outcomes" aria-labelledby="outcomes" hx-swap-oob="true">'
        in text
    )
    assert '<span class="badge outcome-pass">pass</span>' in outcome_row(text, "best_group")
