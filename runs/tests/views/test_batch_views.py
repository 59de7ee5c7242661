"""The batch pages: /batches/ (the list), /batches/<id>/ (summary first, then the sources a
page at a time, a progress bar polled while the batch's runs execute) and the form at
/runs/<run>/nodes/<step>/batch/ that starts one over the runs of the pipeline, through the
queue and within the daily budget."""

from __future__ import annotations

import re

import pytest
from django_tasks_db.models import DBTaskResult

from runs.engine.execution.runner import execute_run
from runs.engine.run_sets.batches import make_batch, plan_batch
from runs.engine.run_sets.requests import BatchRequest, Selection
from runs.models import Batch, ProviderSettings, Run
from runs.views import batches as batch_views

pytestmark = pytest.mark.django_db

ANALYSE = 2  # the research pipeline's analyse step
HTMX = {"HX-Request": "true"}


def made(runs: list[Run], value: str = "east", samples: int = 0) -> Batch:
    request = BatchRequest(
        Selection(runs=tuple(r.pk for r in runs)), "analyse", "args.region", (value,), samples
    )
    return make_batch(plan_batch(request))


def executed(batch: Batch) -> Batch:
    from runs.engine.analysis.batches import batch_run_ids

    for pk in batch_run_ids(batch):
        execute_run(pk)
    return batch


@pytest.fixture
def regions(run_pipeline) -> list[Run]:
    return [run_pipeline("research", {"region": r}) for r in ("west", "east", "north")]


def test_anonymous_users_are_sent_to_login(client, regions):
    batch = made(regions)
    for url in ("/batches/", f"/batches/{batch.pk}/", f"/runs/{regions[0].pk}/nodes/2/batch/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_page_shows_the_summary_first_then_each_source(signed_in, regions):
    batch = executed(made(regions))

    text = signed_in.get(f"/batches/{batch.pk}/").content.decode()

    assert text.index("<h2>Summary</h2>") < text.index("<h2>Sources</h2>")
    assert "2 / 3" in text  # west (A) and north (C) flip to east's B; east does not
    assert "0.208 – 0.939" in text  # Wilson, 2 of 3
    west_row = re.search(rf'<tr data-run="{regions[0].pk}">.*?</tr>', text, re.S).group(0)
    assert "flipped" in west_row and "<code>A</code> → <code>B</code>" in west_row
    fork = batch.sources.get(source=regions[0]).fork_id
    assert f'href="/compare/{regions[0].pk}/{fork}/"' in west_row
    east_row = re.search(rf'<tr data-run="{regions[1].pk}">.*?</tr>', text, re.S).group(0)
    assert "flipped" not in east_row
    assert "hx-get" not in text  # finished: nothing polls


def test_while_runs_execute_it_polls_and_stops_with_286_once_done(signed_in, regions):
    batch = made(regions)
    page = signed_in.get(f"/batches/{batch.pk}/").content.decode()
    assert 'hx-trigger="every 2s"' in page and 'value="0"' in page
    assert '<meta http-equiv="refresh" content="3">' in page  # without JavaScript

    running = signed_in.get(f"/batches/{batch.pk}/", headers=HTMX)
    assert running.status_code == 200
    assert "<html" not in running.content.decode()  # the fragment, not the page

    executed(batch)
    done = signed_in.get(f"/batches/{batch.pk}/", headers=HTMX)
    assert done.status_code == 286
    assert 'value="3"' in done.content.decode() and "hx-get" not in done.content.decode()


def test_a_poll_costs_a_bounded_number_of_queries(signed_in, regions, django_assert_num_queries):
    batch = executed(made(regions, samples=1))
    signed_in.get(f"/batches/{batch.pk}/", headers=HTMX)  # warm the session and the registry
    # session, user, the batch, count its rows, the rows with sources and forks, the samples,
    # the dashboard's outcomes, the outcome steps, the forks' tokens
    with django_assert_num_queries(9):
        signed_in.get(f"/batches/{batch.pk}/", headers=HTMX)


def test_sources_are_paginated_and_the_summary_covers_them_all(signed_in, regions, monkeypatch):
    monkeypatch.setattr(batch_views, "SOURCES_PER_PAGE", 2)
    batch = executed(made(regions))

    first = signed_in.get(f"/batches/{batch.pk}/").content.decode()
    second = signed_in.get(f"/batches/{batch.pk}/?page=2").content.decode()

    assert first.count('<tr data-run="') == 2 and second.count('<tr data-run="') == 1
    assert "2 / 3" in first and "2 / 3" in second
    assert "sources 3–3 of 3" in second
    assert signed_in.get(f"/batches/{batch.pk}/?page=x").status_code == 400
    assert signed_in.get("/batches/999999/").status_code == 404


def test_the_list_shows_each_batch_and_its_progress(signed_in, regions):
    done = executed(made(regions))
    queued = made(regions[:1], value="south")

    text = signed_in.get("/batches/").content.decode()

    assert f'href="/batches/{done.pk}/"' in text and "3 finished" in text
    assert f'href="/batches/{queued.pk}/"' in text and "0/1 forks finished" in text
    assert signed_in.get("/batches/?page=0").status_code == 400


def test_the_form_starts_a_batch_over_the_pipeline_through_the_queue(
    signed_in, regions, django_capture_on_commit_callbacks
):
    url = f"/runs/{regions[0].pk}/nodes/{ANALYSE}/batch/"
    page = signed_in.get(url + "?field=args.region").content.decode()
    assert "3 now" in page and 'name="value"' in page

    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(
            url,
            {
                "field": "args.region",
                "value": "east",
                "where": "input.region=west\n",
                "samples": "1",
            },
        )

    batch = Batch.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/batches/{batch.pk}/"
    (row,) = batch.sources.all()
    assert row.source_id == regions[0].pk and len(row.samples) == 1
    assert batch.created_by.username == "dev"
    queued = Run.objects.filter(pk__in=[row.fork_id, *row.samples])
    assert {r.status for r in queued} == {Run.Status.QUEUED}
    assert {r.created_by_id for r in queued} == {batch.created_by_id}
    assert DBTaskResult.objects.count() == 2  # the fork and the sample, on the queue


def test_a_bad_form_is_a_400_and_writes_nothing(signed_in, regions):
    url = f"/runs/{regions[0].pk}/nodes/{ANALYSE}/batch/"
    before = Run.objects.count()
    for data, said in [
        ({"field": "args.region", "value": "mars", "samples": "0"}, "mars"),
        ({"field": "args.region", "value": "east", "where": "region=x", "samples": "0"}, "input.NAME"),
        ({"field": "args.region", "value": "east", "where": "input.region=mars", "samples": "0"}, "no run matches"),
        ({"field": "args.region", "value": "east", "samples": "99"}, "less than or equal"),
    ]:  # fmt: skip
        response = signed_in.post(url, data)
        assert response.status_code == 400, data
        assert said in response.content.decode(), data
    assert Run.objects.count() == before and Batch.objects.count() == 0


def test_a_batch_over_the_budget_is_refused_and_writes_nothing(signed_in, regions):
    ProviderSettings.objects.update_or_create(pk=1, defaults={"daily_tokens": 10})
    url = f"/runs/{regions[0].pk}/nodes/{ANALYSE}/batch/"
    before = Run.objects.count()

    # args.cost_scale changes every number analyse reports: the llm steps after it re-run.
    response = signed_in.post(url, {"field": "args.cost_scale", "value": "3", "samples": "0"})

    assert response.status_code == 429
    assert "This batch of 3 runs would use about" in response.content.decode()
    assert Run.objects.count() == before and Batch.objects.count() == 0
