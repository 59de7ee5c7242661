"""The regression replay on the dashboard (issue 32): the button on a pipeline's runs, the form
at /pipelines/<name>/regress/ (the code it will run, how many runs match; refused when the code
changed on disk after the server loaded it, and over the daily budget), and the batch page of a
regression replay (its verdict, each run's first divergence and changed code)."""

from __future__ import annotations

import re

import pytest
from django_tasks_db.models import DBTaskResult

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.apps import versions
from runs.engine.apps.registry import get_pipeline
from runs.engine.execution.runner import execute_run
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Batch, Node, ProviderSettings, Run
from runs.tasks import execute_batch_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def regions(run_pipeline) -> list[Run]:
    return [run_pipeline("research", {"region": r}) for r in ("west", "east", "north")]


def regressed(runs: list[Run]) -> Batch:
    plan = plan_regression(RegressionRequest(Selection(runs=tuple(r.pk for r in runs))))
    batch = make_batch(plan)
    for pk in batch_run_ids(batch):
        execute_run(pk)
    return batch


def test_the_button_shows_on_a_pipelines_runs_only(signed_in, regions):
    assert "Regression replay" not in signed_in.get("/runs/").content.decode()
    page = signed_in.get("/runs/?pipeline=research").content.decode()
    assert 'href="/pipelines/research/regress/"' in page
    # A pipeline nobody registered (typed into the URL) offers nothing to re-run.
    assert "/regress/" not in signed_in.get("/runs/?pipeline=nope%2Fx").content.decode()


def test_the_form_names_the_code_and_the_matching_runs(signed_in, regions):
    page = signed_in.get("/pipelines/research/regress/").content.decode()
    version = versions.app_version(get_pipeline("research"))
    assert version.version[:12] in page
    assert "3 now, at most" in page and "Re-run the matching runs with this code" in page
    assert signed_in.get("/pipelines/nope/regress/").status_code == 404


def test_posting_queues_one_regression_run_per_recorded_run_as_one_task(
    signed_in, regions, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post("/pipelines/research/regress/", {"samples": "0", "where": ""})

    batch = Batch.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/batches/{batch.pk}/"
    assert batch.is_regression and batch.created_by is not None
    runs = Run.objects.filter(pk__in=batch_run_ids(batch))
    assert sorted(r.parent_id for r in runs) == sorted(r.pk for r in regions)
    assert {r.regression_code for r in runs} == {batch.code_version}
    assert {r.status for r in runs} == {Run.Status.QUEUED}
    # One task for the batch, queued once its rows committed: the worker that takes it starts
    # an interpreter that imports the code as it is on disk then (``run_sets.fresh``).
    (task,) = DBTaskResult.objects.all()
    assert task.task_path == execute_batch_task.module_path
    assert task.args_kwargs["args"] == [batch.pk]


def test_limit_takes_the_newest_runs_and_bad_input_writes_nothing(signed_in, regions):
    url = "/pipelines/research/regress/"
    for data, said in [
        ({"samples": "0", "where": "region=x"}, "input.NAME"),
        ({"samples": "0", "where": "input.region=mars"}, "no run matches"),
        ({"samples": "99"}, "less than or equal"),
        ({"samples": "0", "limit": "0"}, "greater than or equal"),
    ]:
        response = signed_in.post(url, data)
        assert response.status_code == 400, data
        assert said in response.content.decode(), data
    assert Batch.objects.count() == 0

    signed_in.post(url, {"samples": "0", "limit": "2"})
    batch = Batch.objects.get()
    assert [s.source_id for s in batch.sources.all()] == [regions[1].pk, regions[2].pk]


def test_over_the_budget_it_is_refused_as_a_whole_re_run(signed_in, regions):
    ProviderSettings.objects.update_or_create(pk=1, defaults={"daily_tokens": 10})
    before = Run.objects.count()

    response = signed_in.post("/pipelines/research/regress/", {"samples": "0"})

    assert response.status_code == 429
    text = response.content.decode()
    assert "This regression replay of 3 runs would use about" in text
    # The projection is what the recorded runs paid: the code may change every call.
    paid = sum(
        Node.objects.filter(run__in=regions, cache_source="live").values_list(
            "total_tokens", flat=True
        )
    )
    assert paid > 10 and f"{paid:,}" in text
    assert Run.objects.count() == before and Batch.objects.count() == 0


def test_code_edited_after_the_server_loaded_it_is_refused(signed_in, regions, monkeypatch):
    for where in ("runs.views.batches", "runs.engine.run_sets.batches"):
        monkeypatch.setattr(f"{where}.stale_files", lambda name: ["/app/research.py"])
    page = signed_in.get("/pipelines/research/regress/").content.decode()
    assert (
        "changed on disk after this server loaded it" in page
        and "<form" not in page.split("<h1>")[1]
    )

    response = signed_in.post("/pipelines/research/regress/", {"samples": "0"})
    assert response.status_code == 400
    assert "Restart <code>./rewind serve</code>" in response.content.decode()
    assert Batch.objects.count() == 0


def test_the_batch_page_of_an_unchanged_regression_says_no_regression(signed_in, regions):
    batch = regressed(regions)

    page = signed_in.get(f"/batches/{batch.pk}/").content.decode()

    assert f"Regression replay {batch.pk}: the code at" in page
    assert "no regression" in page and "none: identical" in page
    rows = re.findall(r'<tr data-run="(\d+)">', page)
    assert rows == [str(r.pk) for r in regions]
    listing = signed_in.get("/batches/").content.decode()
    assert "regression replay" in listing and batch.code_version[:12] in listing


def test_a_regression_run_says_what_it_is_on_its_page_and_in_the_list(signed_in, regions):
    batch = regressed(regions[:1])
    run = Run.objects.get(pk=batch_run_ids(batch)[0])

    page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert f'Regression replay of <a href="/runs/{regions[0].pk}/">' in page
    assert f"regression replay {batch.pk}" in page
    listing = signed_in.get("/runs/?pipeline=research").content.decode()
    assert "regression replay of" in listing
    compare = signed_in.get(f"/compare/{regions[0].pk}/{run.pk}/").content.decode()
    assert "a regression replay" in compare
