"""rewind_bench's list figures at scale (issue 33): the one-statement seeding writes the
lineages it says, dated before the moment asked; ``--scale-runs`` adds the four pages with their
anchors and absolute goal, and a page over its goal carries the query plans of its slowest
statements. Nothing here is timed: the goals are forced to fail or pass."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from runs.bench import lists, scale
from runs.bench.lists import LINEAGE, SEARCHED, _background, list_figures
from runs.models import Run
from runs.models.search import search_runs

pytestmark = pytest.mark.django_db


def test_the_history_is_lineages_of_three_dated_before_the_moment_asked():
    before = timezone.now() - timedelta(days=3)

    _background(7, 1, before=before)  # rounded up to three lineages

    runs = list(Run.objects.order_by("id"))
    assert len(runs) == 9
    assert all(run.created_at < before for run in runs)
    assert [run.created_at for run in runs] == sorted(run.created_at for run in runs)
    for root, fork, replay in zip(runs[::3], runs[1::3], runs[2::3], strict=True):
        assert (root.parent_id, root.root_id, root.override) == (None, root.pk, None)
        assert (fork.parent_id, fork.root_id, fork.fork_node) == (root.pk, root.pk, "analyse")
        assert (replay.parent_id, replay.root_id) == (fork.pk, root.pk)
        assert replay.override == fork.override
        assert fork.override["field"] == "args.cost_scale" and fork.fork_sequence_id == 2
    assert [runs[1].override["value"], runs[4].override["value"]] == [SEARCHED, 2]
    assert runs[0].provider == lists._PROVIDER and runs[0].status == Run.Status.COMPLETED
    assert search_runs(Run.objects.all(), SEARCHED).count() == 2  # the index has them


def test_the_scale_rows_carry_their_anchor_and_the_plans_of_a_page_over_its_goal(monkeypatch):
    monkeypatch.setattr(scale, "SCALE_GOAL_S", 0.0)  # every page fails
    monkeypatch.setattr(lists, "FIRST_PAGE_GOAL_S", 0.0)

    rows = list_figures(repeat=1, runs=1, scale=15_100)

    assert Run.objects.count() == 0  # rolled back
    scaled = rows[6:]
    assert [row["figure"].split(",")[0] for row in scaled] == [
        "runs list page 1",
        "runs list middle page",
        "runs search (10 matches)",
        "compare page",
    ]
    for row in scaled:
        assert f"15,100 runs, one root with {LINEAGE:,} descendants" in row["figure"]
        assert row["goal"] == "≤ 0.000 s" and row["pass"] is False
        assert row["anchor"] > 0 and row["anchor_is"] == "the same page at 1,000 runs"
        assert 1 <= len(row["plans"]) <= scale.PLANNED
        assert all(plan["sql"] and plan["plan"] for plan in row["plans"])
    assert scaled[0]["runs_in_database"] >= 15_100
    assert "runs_run" in " ".join(plan["sql"] for plan in scaled[1]["plans"])
    assert rows[0]["plans"]  # the first page at 15,001 runs missed its goal too
    assert "plans" not in rows[5]  # the SQL figure is no page


def test_pages_within_their_goal_carry_no_plans(monkeypatch):
    monkeypatch.setattr(scale, "SCALE_GOAL_S", 1e9)
    monkeypatch.setattr(lists, "FIRST_PAGE_GOAL_S", 1e9)
    monkeypatch.setattr(lists, "COMPARE_GOAL_S", 1e9)
    monkeypatch.setattr(lists, "RATIO_GOAL", 1e9)
    monkeypatch.setattr(lists, "SQL_GOAL_S", 1e9)  # a shared machine's 15 ms is no sure thing

    rows = list_figures(repeat=1, runs=1, scale=15_100)

    assert len(rows) == 10
    assert all(row["pass"] for row in rows) and not any("plans" in row for row in rows)
