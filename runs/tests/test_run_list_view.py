"""``/runs/``: the run list, its pagination, a fixed number of queries, escaped text."""

from __future__ import annotations

import pytest

from runs.models import Run
from runs.views import RUNS_PER_PAGE

pytestmark = pytest.mark.django_db

URL = "/runs/"


def make_runs(count: int, **fields) -> list[Run]:
    """``count`` completed research runs, cheaply (no pipeline executes), oldest first."""
    values = {
        "pipeline": "research",
        "status": Run.Status.COMPLETED,
        "provider": {"model": "rewind-sim-1", "temperature": 0.0, "simulator": True},
        "inputs": {"region": "all"},
        **fields,
    }
    Run.objects.bulk_create(Run(**values) for _ in range(count))
    return list(Run.objects.order_by("created_at", "id"))


def link(run: Run) -> str:
    """How the page links a run; the closing quote keeps run 1 from matching run 12."""
    return f'href="/api/runs/{run.pk}"'


def test_it_lists_runs(client):
    runs = make_runs(3)

    response = client.get(URL)

    assert response.status_code == 200
    assert response.templates[0].name == "runs/run_list.html"
    text = response.content.decode()
    for run in runs:
        assert link(run) in text
    assert "simulator" in text  # the simulator is labelled wherever it is used


def test_newest_run_comes_first(client):
    oldest, middle, newest = make_runs(3)

    text = client.get(URL).content.decode()

    assert text.index(link(newest)) < text.index(link(middle)) < text.index(link(oldest))


def test_it_shows_forks_with_their_override(client):
    (parent,) = make_runs(1)
    fork = Run.objects.create(
        pipeline="research",
        status=Run.Status.COMPLETED,
        parent=parent,
        root=parent,
        fork_node="analyse",
        fork_sequence_id=2,
        override={"node": "analyse", "field": "args.cost_scale", "value": 3.0},
    )
    Run.objects.create(pipeline="research", parent=parent, root=parent, fork_node="plan")

    text = client.get(URL).content.decode()

    assert link(fork) in text
    assert "args.cost_scale = 3.0" in text
    assert "unchanged replay" in text


def test_an_empty_list_says_how_to_start(client):
    response = client.get(URL)

    assert response.status_code == 200
    assert "No runs yet" in response.content.decode()


def test_anonymous_user_sees_the_list(client):
    # The dashboard is not behind a login today (DESIGN.md lists /login/ but no view
    # requires it); change this test when the list becomes private.
    (run,) = make_runs(1)

    response = client.get(URL)

    assert response.status_code == 200
    assert link(run) in response.content.decode()


def test_pagination(client):
    runs = make_runs(RUNS_PER_PAGE + 10)
    newest_first = runs[::-1]

    first = client.get(URL).content.decode()
    second = client.get(URL, {"page": 2}).content.decode()

    for run in newest_first[:RUNS_PER_PAGE]:
        assert link(run) in first
        assert link(run) not in second
    for run in newest_first[RUNS_PER_PAGE:]:
        assert link(run) not in first
        assert link(run) in second
    assert 'href="?page=2"' in first
    assert 'href="?page=1"' in second
    assert "page 2" in second


@pytest.mark.parametrize("page", ["abc", "", "0", "-1", "999", "1.5", "9" * 30])
def test_a_bad_page_number_is_not_a_server_error(client, page):
    make_runs(RUNS_PER_PAGE + 1)

    response = client.get(URL, {"page": page})

    assert response.status_code == 200
    assert 'href="/api/runs/' in response.content.decode()


@pytest.mark.parametrize("count", [3, RUNS_PER_PAGE + 10])
def test_query_count_does_not_grow_with_the_number_of_runs(
    client, django_assert_num_queries, count
):
    make_runs(count)
    forks_of = Run.objects.order_by("id").first()
    Run.objects.filter(pk__gt=forks_of.pk).update(parent=forks_of, root=forks_of)

    # 1. SELECT COUNT(*) FROM runs_run (the paginator's page count)
    # 2. SELECT … FROM runs_run ORDER BY created_at DESC, id DESC LIMIT 50 (the page)
    # Nothing per row: the parent is shown by its id, never fetched.
    with django_assert_num_queries(2):
        response = client.get(URL)

    assert response.status_code == 200


def test_script_in_an_override_value_is_escaped(client):
    (parent,) = make_runs(1)
    Run.objects.create(
        pipeline="research",
        status=Run.Status.COMPLETED,
        parent=parent,
        root=parent,
        fork_node="plan",
        override={"node": "plan", "field": "prompt", "value": "<script>alert(1)</script>"},
    )

    text = client.get(URL).content.decode()

    assert "<script>alert(1)" not in text
    assert "&lt;script&gt;alert(1)" in text


def test_script_in_a_model_name_is_escaped(client):
    make_runs(1, provider={"model": "<script>alert(2)</script>", "simulator": False})

    text = client.get(URL).content.decode()

    assert "<script>alert(2)" not in text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text


def test_post_is_not_allowed(client):
    assert client.post(URL).status_code == 405
