"""rewind_bench's list figures (issue 19): the seeding helper writes the runs it says, with the
big lineage's shape, and nothing stays; every figure has its anchor, ratio, goal and verdict."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from runs.bench.lists import LINEAGE, SEARCHED, list_figures, seed_runs
from runs.models import Node, Run
from runs.models.lineage import lineage_counts
from runs.models.search import search_runs

pytestmark = pytest.mark.django_db


def test_seed_runs_writes_lineages_of_three_and_one_big_lineage():
    seed_runs(300, searched=2)
    root = seed_runs(1001, lineage=1000)

    assert Run.objects.count() == 300 + 1001
    assert Run.objects.filter(parent__isnull=True).order_by("-created_at", "-id")[0] == root
    counts = lineage_counts([root.pk])[root.pk]
    assert (counts.total, counts.samples) == (1000, 10)
    assert counts.forks == 396 and counts.replays == 594
    assert Node.objects.filter(run=root).count() == 8
    # two forks and their two replays hold the searched value
    assert search_runs(Run.objects.all(), SEARCHED).count() == 4


def test_every_list_figure_has_its_anchor_goal_and_verdict():
    before = Run.objects.count()

    rows = list_figures(repeat=1, runs=1)

    assert Run.objects.count() == before  # seeded in a transaction rolled back
    names = [row["figure"] for row in rows]
    assert names[0].startswith(f"runs list page 1, 15,001 runs, one root with {LINEAGE:,}")
    assert names[3] == "runs list middle page, 15,001 ÷ 1,000 runs"
    assert names[4] == "runs search (10 matches), 15,001 ÷ 1,000 runs"
    for row in rows:
        assert row["anchor"] > 0 and row["ratio"] > 0, row
        sign, bound = row["goal"].split()[:2]
        assert sign == "≤"
        measured = row["ratio"] if bound.endswith("×") else row["value"]  # else s or KB
        assert row["pass"] == (measured <= float(bound.rstrip("×"))), row
    assert rows[0]["bytes"] < 200_000


def test_the_command_prints_the_list_figures_alone_with_their_verdicts():
    out = io.StringIO()

    call_command("rewind_bench", "--lists-only", "--repeat", "1", "--list-runs", "1", stdout=out)

    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == 6
    assert all(line.split()[0] in {"PASS", "FAIL"} for line in lines)
    assert re.search(r"runs list page 1, 15,001 runs.*: 0\.\d{3} s \(goal ≤ 0\.1 s\)", lines[0])
    assert re.search(r": size: \d+ KB \(goal ≤ 200 KB\)", lines[1])
    assert re.search(r"runs search \(10 matches\).*: [\d.]+ \(goal ≤ 1\.5×\)", lines[4])


def test_what_a_killed_bench_left_is_removed_and_nothing_else():
    from django.contrib.auth import get_user_model

    from runs.bench.lists import USER_PREFIX, remove_seeded

    kept = Run.objects.create(pipeline="research", provider={"model": "rewind-sim-1"})
    seed_runs(60, lineage=30)  # marked as the bench's, with steps
    seeded = Run.objects.count() - 1
    users = get_user_model().objects
    users.create_user(f"{USER_PREFIX}left")
    users.create_user("someone")

    assert remove_seeded() == (seeded, 1)
    assert list(Run.objects.all()) == [kept]
    assert not Node.objects.exists()
    assert list(users.values_list("username", flat=True)) == ["someone"]


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_the_rows_are_committed_vacuumed_and_deleted_after():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("SQLite rolls the seeding back")
    before = Run.objects.count()

    rows = list_figures(repeat=1, runs=1)

    assert rows[0]["seeding"] == "committed, VACUUM ANALYZE, deleted after"
    assert rows[0]["runs_in_database"] >= 15_001
    assert Run.objects.count() == before and not Node.objects.exists()
