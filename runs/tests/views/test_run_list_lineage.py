"""The runs list bounded by the page (issue 19): a root with a big lineage shows its newest few
descendants and the counts of all of them by kind, in the same queries and about the same bytes
whatever the lineage holds; the whole lineage is a page of its own, paginated; the search goes
through an index (SQLite FTS5 / PostgreSQL pg_trgm) kept in step with the runs."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.models import Run, search
from runs.models.lineage import LATEST
from runs.views.listing import LINEAGE_PER_PAGE

pytestmark = pytest.mark.django_db

URL = "/runs/"
COST = {"node": "analyse", "field": "args.cost_scale", "value": 3.0}


def descendants(root: Run, count: int, parent: Run | None = None, **fields) -> list[Run]:
    """``count`` forks (of ``parent``, else the root) written at once, oldest first."""
    values = {
        "pipeline": root.pipeline,
        "status": Run.Status.COMPLETED,
        "parent": parent or root,
        "root": root,
        "fork_node": "analyse",
        "fork_sequence_id": 2,
        "override": COST,
        **fields,
    }
    made = Run.objects.bulk_create(Run(**values) for _ in range(count))
    return list(Run.objects.filter(pk__in=[r.pk for r in made]).order_by("created_at", "id"))


def listed(text: str) -> list[int]:
    """The run ids the page lists, in order (each row's compare checkbox)."""
    return [int(pk) for pk in re.findall(r'name="run" value="(\d+)"', text)]


def get(client, path: str = URL, params: dict | None = None) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, params or {})
    assert response.status_code == 200
    return response.content.decode(), len(queries.captured_queries)


def test_a_big_lineage_shows_its_newest_few_in_the_same_queries_and_bytes(signed_in, run_row):
    small, big = run_row(), run_row()
    descendants(small, 3)
    first = descendants(big, LATEST + 3)
    text_few, queries_few = get(signed_in)

    rest = descendants(big, 300)
    text_many, queries_many = get(signed_in)

    assert queries_few == queries_many
    newest = [r.pk for r in reversed(rest[-LATEST:])]
    assert listed(text_many)[: 1 + LATEST] == [big.pk, *newest]  # the root, its newest first
    assert first[-1].pk not in listed(text_many)
    assert len(listed(text_many)) == len(listed(text_few)) == 1 + LATEST + 1 + 3
    # the same bytes as with 8 descendants, but for the ids' digits: 300 more add nothing
    assert abs(len(text_many) - len(text_few)) < 200
    assert "303 more of 308 descendants of run" in text_many
    assert f'href="/runs/{big.pk}/lineage/">see the whole lineage</a>' in text_many


def test_a_small_lineage_is_still_a_whole_tree(signed_in, run_row):
    root = run_row()
    (fork,) = descendants(root, 1)
    (child,) = descendants(root, 1, parent=fork, override=None)

    text, _ = get(signed_in)

    assert listed(text) == [root.pk, fork.pk, child.pk]
    assert 'class="depth-2"' in text and "more of" not in text


def test_the_counts_tell_forks_replays_and_samples_apart(signed_in, run_row):
    root = run_row()
    forks = descendants(root, 4)
    descendants(root, 3, override=None)  # replays of the root
    # a replay of a fork carries the fork's override at the fork's step: a replay
    descendants(root, 2, parent=forks[0])
    # the same change at another step of a fork: a fork
    descendants(root, 1, parent=forks[0], fork_sequence_id=3)
    descendants(root, 5, override=None, mode="live", sample_of=root)

    text, _ = get(signed_in)

    assert "10 more of 15 descendants of run" in text
    assert "(5 forks, 5 replays, 5 samples)" in text or "(5 replays, 5 forks, 5 samples)" in text


def test_a_descendant_away_from_its_parent_names_it(signed_in, run_row):
    root = run_row()
    (fork,) = descendants(root, 1)
    descendants(root, LATEST, parent=fork, override=None)

    text, _ = get(signed_in)

    assert text.count(f"(fork of {fork.pk})") == LATEST


def test_the_lineage_page_lists_every_run_newest_first_a_page_at_a_time(signed_in, run_row):
    root, other = run_row(), run_row()
    runs = descendants(root, LINEAGE_PER_PAGE + 10)
    descendants(other, 3)

    first, queries_first = get(signed_in, f"/runs/{root.pk}/lineage/")
    second, queries_second = get(signed_in, f"/runs/{root.pk}/lineage/", {"page": 2})

    assert listed(first) == [r.pk for r in reversed(runs)][:LINEAGE_PER_PAGE]
    assert listed(second) == [r.pk for r in reversed(runs[:10])] + [root.pk]
    assert f"{LINEAGE_PER_PAGE + 10} descendants (60 forks)" in first
    assert "page 1 of 2" in first and 'href="?page=2">older</a>' in first
    assert queries_first == queries_second


def test_the_lineage_page_of_a_descendant_is_its_roots(signed_in, run_row):
    root = run_row()
    (fork,) = descendants(root, 1)

    text, _ = get(signed_in, f"/runs/{fork.pk}/lineage/")

    assert f'<h1>Lineage of <a href="/runs/{root.pk}/">run {root.pk}</a></h1>' in text
    assert listed(text) == [fork.pk, root.pk]


@pytest.mark.parametrize("page", ["0", "x", "99999999"])
def test_a_bad_lineage_page_is_400(signed_in, run_row, page):
    root = run_row()

    assert signed_in.get(f"/runs/{root.pk}/lineage/", {"page": page}).status_code == 400


def test_the_lineage_page_of_an_unknown_run_is_404(signed_in):
    assert signed_in.get("/runs/999999/lineage/").status_code == 404


def test_the_lineage_page_is_for_signed_in_users(client, run_row):
    root = run_row()

    response = client.get(f"/runs/{root.pk}/lineage/")

    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_origin_filter_keeps_an_imported_roots_lineage(signed_in, run_row):
    imported = run_row(imported_from={"path": "/t", "project": "p", "app_id": "a1"})
    descendants(imported, LATEST + 2)
    here = run_row()

    text, _ = get(signed_in, URL, {"origin": "imported"})

    assert listed(text)[0] == imported.pk and here.pk not in listed(text)
    assert "2 more of 7 descendants" in text
    assert 'class="badge imported"' in text


# --- search through the index ------------------------------------------------------------------


def found(client, query: str) -> list[int]:
    text, _ = get(client, URL, {"q": query})
    return listed(text)


def test_search_follows_inserts_updates_and_deletes(signed_in, run_row):
    root = run_row()
    (fork,) = descendants(root, 1, override={"node": "analyse", "field": "args.region",
                                             "value": "Northwest"})  # fmt: skip

    assert found(signed_in, "northw") == [fork.pk]
    Run.objects.filter(pk=fork.pk).update(override={**COST, "value": "Southeast"})
    assert found(signed_in, "northw") == []
    assert found(signed_in, "SOUTHEAST") == [fork.pk]
    Run.objects.filter(pk=fork.pk).delete()
    assert found(signed_in, "southeast") == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("e", ["east", "sea"]),  # shorter than a trigram: still a substring search
        ("ea", ["east", "sea"]),
        ('5% "off"', ["quoted"]),  # quotes and LIKE wildcards are plain characters
        ("%", ["quoted"]),
        ("_", []),
        ("p\x1fn", []),  # a match never spans two parts of a run's text (pipeline, step)
        ("p\nn", []),
    ],
)
def test_search_is_a_substring_whatever_the_characters(signed_in, run_row, query, expected):
    root = run_row(pipeline="p")
    change = {"node": "n", "field": "x"}
    named = {
        "east": descendants(root, 1, fork_node="n", override={**change, "value": "east"}),
        "sea": descendants(root, 1, fork_node="n", override={**change, "value": "sea"}),
        "quoted": descendants(root, 1, fork_node="n", override={**change, "value": '5% "off"'}),
    }
    Run.objects.filter(pk=root.pk).update(fork_node="west")

    hits = found(signed_in, query)

    assert sorted(name for name, (run,) in named.items() if run.pk in hits) == expected


def test_a_search_goes_through_the_index(signed_in, run_row):
    run_row()

    with CaptureQueriesContext(connection) as queries:
        signed_in.get(URL, {"q": "cost_scale"})
    sql = next(q["sql"] for q in queries.captured_queries if "COUNT(*)" in q["sql"])

    if connection.vendor == "sqlite":
        assert f"{search.FTS_TABLE} MATCH" in sql
    else:
        assert "ILIKE" in sql and "override\" ->> 'value'" in sql


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite drops triggers with a table")
def test_repair_puts_back_triggers_a_rebuilt_table_lost(signed_in, run_row):
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER runs_run_search_ai")
    run = run_row(pipeline="zebra-pipeline")
    assert found(signed_in, "zebra") == []

    assert search.repair(connection) is True
    assert found(signed_in, "zebra") == [run.pk]
    assert search.repair(connection) is False
