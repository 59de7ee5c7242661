"""``/runs/``: the lineage tree, the filters, pagination, a fixed number of queries, escaped
text, and the ``#run-table`` fragment htmx asks for."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.models import Run
from runs.views.listing import RUNS_PER_PAGE

pytestmark = pytest.mark.django_db

URL = "/runs/"
HTMX = {"HX-Request": "true"}


def make_runs(count: int, **fields) -> list[Run]:
    """``count`` completed root runs, cheaply (no pipeline executes), oldest first."""
    values = {
        "pipeline": "research",
        "status": Run.Status.COMPLETED,
        "provider": {"model": "rewind-sim-1", "temperature": 0.0, "simulator": True},
        "inputs": {"region": "all"},
        **fields,
    }
    created = Run.objects.bulk_create(Run(**values) for _ in range(count))
    ids = [run.pk for run in created]
    for run in Run.objects.filter(pk__in=ids):
        Run.objects.filter(pk=run.pk).update(root=run)
    return list(Run.objects.filter(pk__in=ids).order_by("created_at", "id"))


def fork_of(parent: Run, **fields) -> Run:
    values = {
        "pipeline": parent.pipeline,
        "status": Run.Status.COMPLETED,
        "parent": parent,
        "root_id": parent.root_id or parent.pk,
        "fork_node": "analyse",
        "fork_sequence_id": 2,
        "override": {"node": "analyse", "field": "args.cost_scale", "value": 3.0},
        **fields,
    }
    return Run.objects.create(**values)


def link(run: Run) -> str:
    """How the page links a run; the closing quote keeps run 1 from matching run 12."""
    return f'href="/runs/{run.pk}/"'


def row_class(text: str, run: Run) -> str:
    """The class of the table row that links ``run``."""
    before = text[: text.index(link(run))]
    row = before[before.rindex("<tr") :]
    return row.split('class="', 1)[1].split('"', 1)[0]


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client):
    make_runs(1)

    response = client.get(URL, {"status": "completed"})

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/runs/%3Fstatus%3Dcompleted"


def test_anonymous_htmx_request_is_not_answered_with_data(client):
    (run,) = make_runs(1)

    response = client.get(URL, headers=HTMX)

    assert response.status_code == 302
    assert link(run) not in response.content.decode()


def test_post_is_not_allowed(signed_in):
    assert signed_in.post(URL).status_code == 405


# --- the page and the fragment ---------------------------------------------------------------


def test_it_lists_runs(signed_in):
    runs = make_runs(3)

    response = signed_in.get(URL)

    assert response.status_code == 200
    assert response.templates[0].name == "runs/run_list.html"
    text = response.content.decode()
    assert "<html" in text
    for run in runs:
        assert link(run) in text
    assert "simulator" in text  # the simulator is labelled wherever it is used
    assert 'id="new-run"' in text  # the new-run form is on the page


def test_htmx_gets_only_the_run_table(signed_in):
    (run,) = make_runs(1)

    response = signed_in.get(URL, headers=HTMX)

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" not in text
    assert 'class="runs"' in text and link(run) in text
    assert 'id="new-run"' not in text  # only the table, not the rest of the page
    assert 'class="filters"' not in text


def test_newest_run_comes_first(signed_in):
    oldest, middle, newest = make_runs(3)

    text = signed_in.get(URL).content.decode()

    assert text.index(link(newest)) < text.index(link(middle)) < text.index(link(oldest))


def test_an_empty_list_says_how_to_start(signed_in):
    response = signed_in.get(URL)

    assert response.status_code == 200
    assert "No runs match" in response.content.decode()


# --- lineage ---------------------------------------------------------------------------------


def test_forks_sit_under_their_root_in_lineage_order(signed_in):
    (root,) = make_runs(1)
    fork = fork_of(root)
    fork_of_fork = fork_of(fork, fork_node="critique", override=None)
    (later_root,) = make_runs(1)

    text = signed_in.get(URL).content.decode()

    assert (
        text.index(link(later_root))
        < text.index(link(root))
        < text.index(link(fork))
        < text.index(link(fork_of_fork))
    )
    assert row_class(text, root) == "depth-0"
    assert row_class(text, fork) == "depth-1"
    assert row_class(text, fork_of_fork) == "depth-2"
    assert row_class(text, later_root) == "depth-0"


def test_two_forks_of_one_run_each_carry_their_own_children(signed_in):
    (root,) = make_runs(1)
    first = fork_of(root)
    second = fork_of(root, fork_node="plan", fork_sequence_id=0, override=None)
    child_of_first = fork_of(first, override=None)

    text = signed_in.get(URL).content.decode()

    # depth-first: a fork's own forks come right after it, before its sibling
    assert (
        text.index(link(root))
        < text.index(link(first))
        < text.index(link(child_of_first))
        < text.index(link(second))
    )
    assert row_class(text, child_of_first) == "depth-2"
    assert row_class(text, second) == "depth-1"


def test_it_shows_forks_with_their_override(signed_in):
    (parent,) = make_runs(1)
    fork_of(parent)
    fork_of(parent, fork_node="plan", override=None)

    text = signed_in.get(URL).content.decode()

    assert "at <strong>analyse</strong>" in text
    assert '<code>args.cost_scale</code> = <code title="3.0">3.0</code>' in text
    assert f'replay of <a href="/runs/{parent.pk}/">run {parent.pk}</a>' in text


# --- filters ---------------------------------------------------------------------------------


def test_a_status_filter_lists_matches_flat_naming_their_parent(signed_in):
    (root,) = make_runs(1)
    fork = fork_of(root, status=Run.Status.FAILED)
    fork_of(fork, status=Run.Status.COMPLETED)
    failed_root = make_runs(1, status=Run.Status.FAILED)[0]

    text = signed_in.get(URL, {"status": "failed"}).content.decode()

    assert link(fork) in text and link(failed_root) in text
    assert link(root) not in text  # completed: filtered out, not shown as a tree parent
    assert row_class(text, fork) == "depth-0"  # flat: no indentation
    assert f"(fork of {root.pk})" in text


def test_a_pipeline_filter_shows_only_that_pipeline(signed_in):
    (research,) = make_runs(1)
    (other,) = make_runs(1, pipeline="loop")

    text = signed_in.get(URL, {"pipeline": "loop"}).content.decode()

    assert link(other) in text
    assert link(research) not in text


@pytest.mark.parametrize(
    "params",
    [
        {"status": "bogus"},
        {"page": "abc"},
        {"page": "0"},
        {"page": "-1"},
        {"page": "1.5"},
        {"page": "9" * 30},
        {"pipeline": "x" * 101},
    ],
)
def test_a_bad_parameter_is_400(signed_in, params):
    make_runs(1)

    response = signed_in.get(URL, params)

    assert response.status_code == 400
    assert "bad filter" in response.content.decode()


# --- pagination ------------------------------------------------------------------------------


def test_pagination(signed_in):
    runs = make_runs(RUNS_PER_PAGE + 10)
    newest_first = runs[::-1]

    first = signed_in.get(URL).content.decode()
    second = signed_in.get(URL, {"page": 2}).content.decode()

    for run in newest_first[:RUNS_PER_PAGE]:
        assert link(run) in first
        assert link(run) not in second
    for run in newest_first[RUNS_PER_PAGE:]:
        assert link(run) not in first
        assert link(run) in second
    assert 'href="?page=2"' in first
    assert 'href="?page=1"' in second
    assert "page 2 of 2" in second


def test_pagination_links_keep_the_filters(signed_in):
    make_runs(RUNS_PER_PAGE + 1, status=Run.Status.FAILED)

    first = signed_in.get(URL, {"pipeline": "research", "status": "failed"}).content.decode()
    second = signed_in.get(
        URL, {"pipeline": "research", "status": "failed", "page": 2}
    ).content.decode()

    assert 'href="?pipeline=research&amp;status=failed&amp;page=2"' in first
    assert 'href="?pipeline=research&amp;status=failed&amp;page=1"' in second


def test_forks_do_not_count_against_the_page(signed_in):
    runs = make_runs(RUNS_PER_PAGE)
    forks = [fork_of(run) for run in runs]

    text = signed_in.get(URL).content.decode()

    assert "page 1 of 1" in text
    assert all(link(fork) in text for fork in forks)


@pytest.mark.parametrize("page", ["", "2", "999"])
def test_a_page_past_the_end_shows_the_last_page(signed_in, page):
    runs = make_runs(RUNS_PER_PAGE + 1)

    response = signed_in.get(URL, {"page": page})

    assert response.status_code == 200
    text = response.content.decode()
    if page:
        assert "page 2 of 2" in text
        assert link(runs[0]) in text  # the oldest run is alone on the last page
    else:
        assert "page 1 of 2" in text


# --- queries ---------------------------------------------------------------------------------


def count_queries(client, params: dict | None = None) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL, params or {})
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries]


@pytest.fixture
def lineages() -> Callable[[int], None]:
    """``lineages(n)``: n root runs, each with a fork and a fork of that fork."""

    def make(count: int) -> None:
        for root in make_runs(count):
            fork_of(fork_of(root), override=None)

    return make


def test_query_count_does_not_grow_with_the_number_of_runs(signed_in, lineages):
    lineages(3)
    few = count_queries(signed_in)
    lineages(40 - 3)
    many = count_queries(signed_in)

    assert len(few) == len(many)
    # 1. the session
    # 2. the signed-in user
    # 3. SELECT COUNT(*) of root runs (the paginator)
    # 4. the ids of the page's root runs (from the index, however deep the page)
    # 5. those roots with their totals
    # 6. the descendants of each root counted by kind (one GROUP BY)
    # 7. the newest few descendants of each root, with their totals (a LIMIT per root)
    # 8. the dashboard's outcomes of the pipelines on the page
    # 9. the steps those outcomes read, of every run on the page, with the outputs read
    # Nothing per row: a parent is shown by its id, never fetched.
    assert len(many) == 9, "\n".join(many)


def test_query_count_of_a_filtered_list(signed_in, lineages):
    lineages(40)

    queries = count_queries(signed_in, {"status": "completed"})

    # 1. the session  2. the user  3. COUNT(*) of matches  4. the ids of the page's matches
    # 5. those runs with their totals (flat: no descendant query)  6. the dashboard's outcomes
    # 7. the steps they read
    assert len(queries) == 7, "\n".join(queries)


# --- escaping --------------------------------------------------------------------------------


def test_script_in_an_override_value_is_escaped(signed_in):
    (parent,) = make_runs(1)
    fork_of(
        parent,
        fork_node="plan",
        override={"node": "plan", "field": "prompt", "value": "<script>alert(1)</script>"},
    )

    text = signed_in.get(URL).content.decode()

    assert "<script>alert(1)" not in text
    assert "&lt;script&gt;alert(1)" in text


def test_script_in_a_model_name_is_escaped(signed_in):
    make_runs(1, provider={"model": "<script>alert(2)</script>", "simulator": False})

    text = signed_in.get(URL).content.decode()

    assert "<script>alert(2)" not in text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text


def test_a_burr_app_run_names_no_model_of_rewinds(signed_in, run_row):
    run_row(pipeline="chatbot", provider={"preset": "app", "model": "", "simulator": False})

    text = signed_in.get("/runs/").content.decode()

    row = text[text.index('<td class="lineage"') :]
    row = row[: row.index("</tr>")]
    assert "chatbot" in row
    assert "the app's</span>" in row
    assert "simulator" not in row
