"""Crossed grids (issue 17, item 6): two fields of one step, each pair a fork of the first
value's fork (a fork changes exactly one field) — in the engine (``forking.crossing``,
``run_sets.grids``) and through ``rewind_grid --cross-field``."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.analysis.projection import projected_cost
from runs.engine.errors import ForkError
from runs.engine.execution.runner import execute_run
from runs.engine.forking.crossing import cross, make_crossed, preview_crossed
from runs.engine.forking.forks import create_fork, make_fork, preview_fork, resolve_fork
from runs.engine.run_sets.grids import GridError, make_grid, resolve_grid
from runs.models import Grid, GridRow, Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db

ANALYSE = ORDER.index("analyse")


def counts() -> tuple[int, int, int]:
    return Run.objects.count(), Grid.objects.count(), GridRow.objects.count()


def analyse_args(run: Run) -> dict:
    return run.nodes.get(sequence_id=ANALYSE).inputs["args"]


def by_hand(source: Run, first: tuple[str, str], second: tuple[str, str]) -> Run:
    """``rewind_fork`` twice: the first field, then, from that fork, the second."""
    fork = execute_run(create_fork(source, "analyse", *first).pk)
    return execute_run(create_fork(fork, "analyse", *second).pk)


# --- the engine --------------------------------------------------------------------------------


def test_a_crossed_cell_is_a_fork_of_the_value_s_fork_and_carries_both_changes(research_run):
    plan = resolve_grid(
        research_run, "analyse", "args.region", ["east"], "args.min_contacts", ["3"]
    )
    grid, (first, cell) = make_grid(plan)
    for run in (first, cell):
        execute_run(run.pk)
    first.refresh_from_db()
    cell.refresh_from_db()

    assert (first.parent_id, cell.parent_id) == (research_run.pk, first.pk)
    assert cell.fork_sequence_id == first.fork_sequence_id == ANALYSE
    assert cell.override == {"node": "analyse", "field": "args.min_contacts", "value": 3}
    assert analyse_args(cell)["region"] == "east" and analyse_args(cell)["min_contacts"] == 3
    assert analyse_args(first)["min_contacts"] == analyse_args(research_run)["min_contacts"]
    assert cell.status == Run.Status.COMPLETED
    assert (grid.cross_field, grid.cross_values) == ("args.min_contacts", ["3"])
    assert [(r.position, r.cross_position, r.run_id) for r in grid.rows.all()] == [
        (0, None, first.pk),
        (0, 0, cell.pk),
    ]


def test_the_cell_is_the_fork_of_the_fork_made_by_hand(research_run):
    plan = resolve_grid(
        research_run, "analyse", "args.region", ["east"], "args.min_contacts", ["3"]
    )
    _, (first, cell) = make_grid(plan)
    first, cell = execute_run(first.pk), execute_run(cell.pk)

    hand = by_hand(research_run, ("args.region", "east"), ("args.min_contacts", "3"))

    assert cell.trajectory_sha256 and cell.trajectory_sha256 == hand.trajectory_sha256
    # the second change mattered: the cell is not the value's fork alone
    assert cell.trajectory_sha256 != first.trajectory_sha256


def test_a_cell_run_before_its_value_s_fork_gives_the_same_trajectory(research_run):
    """The dashboard queues a value's fork and its cells together: a worker may take a cell
    first. It reads only the steps its parent copied, so nothing changes."""
    plan = resolve_grid(
        research_run, "analyse", "args.region", ["west"], "args.min_contacts", ["2"]
    )
    _, (first, cell) = make_grid(plan)
    cell = execute_run(cell.pk)  # before its parent
    execute_run(first.pk)

    hand = by_hand(research_run, ("args.region", "west"), ("args.min_contacts", "2"))

    assert cell.status == Run.Status.COMPLETED
    assert cell.trajectory_sha256 == hand.trajectory_sha256


def test_a_bad_cross_value_is_refused_before_anything_is_written(research_run):
    before = counts()

    with pytest.raises(GridError) as refused:
        resolve_grid(
            research_run, "analyse", "args.region", ["east", "west"], "args.min_contacts",
            ["2", "99", "x"],
        )  # fmt: skip

    assert [(where, value) for where, value, _ in refused.value.problems] == [
        ("cross_values", "99"),
        ("cross_values", "x"),
    ]
    assert "min_contacts" in str(refused.value)
    assert counts() == before


@pytest.mark.parametrize(
    ("field", "cross_field", "message"),
    [
        ("args.region", "args.region", "not with itself"),
        ("output", "args.region", "replaces what analyse produces"),
        ("args.region", "output", "replaces what analyse produces"),
        ("args.region", "prompt", "cannot take an override of 'prompt'"),
    ],
)
def test_crossings_that_would_change_nothing_are_refused(research_run, field, cross_field, message):
    first = "east" if field == "args.region" else research_run.nodes.get(sequence_id=ANALYSE).output
    first = first if isinstance(first, str) else json.dumps(first)
    second = "east" if cross_field == "args.region" else "{}"
    before = counts()

    with pytest.raises(ForkError, match=message):
        resolve_grid(research_run, "analyse", field, [first], cross_field, [second])

    assert counts() == before


def test_a_crossed_grid_is_bounded_by_the_forks_it_makes(research_run):
    with pytest.raises(ForkError, match="at most 50 forks; this one would make 51"):
        resolve_grid(
            research_run, "analyse", "args.min_contacts", [str(n) for n in range(1, 4)],
            "args.cost_scale", [str(n) for n in range(1, 17)],
        )  # fmt: skip


def test_a_cell_is_written_only_from_its_own_value_s_fork(research_run):
    first = resolve_fork(research_run, "analyse", "args.region", "east")
    cell = cross(first, "args.min_contacts", "3")
    other = make_fork(resolve_fork(research_run, "analyse", "args.region", "west"))

    with pytest.raises(ForkError, match="not the first fork"):
        make_crossed(cell, other)


def test_a_cell_is_projected_with_both_of_its_changes(research_run):
    # The pair has run (the other way round: min_contacts first), the first change alone
    # has not: the cell is a full cache hit only if its preview applies both changes.
    by_hand(research_run, ("args.min_contacts", "3"), ("args.region", "east"))
    first = resolve_fork(research_run, "analyse", "args.region", "east")
    cell = cross(first, "args.min_contacts", "3")

    plan = preview_crossed(cell)

    assert plan["projected_tokens"] == 0
    assert next(s for s in plan["steps"] if s["name"] == "analyse")["will_be"] == "tool-cache"
    assert projected_cost(cell).tokens == 0
    alone = preview_fork(first)  # region=east alone has never run: analyse executes
    assert next(s for s in alone["steps"] if s["name"] == "analyse")["will_be"] == "live"
    assert projected_cost(first).tokens > 0


# --- rewind_grid --cross-field -------------------------------------------------------------


def grid_json(*args: str) -> dict:
    out = io.StringIO()
    call_command("rewind_grid", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


OLD_KEYS = {"run", "grid", "node", "field", "rows"}
OLD_ROW_KEYS = {
    "value", "run", "status", "first_divergence", "artifact_sha256", "artifact_differs",
    "changed_nodes", "total_tokens", "error",
}  # fmt: skip


def test_the_json_of_a_grid_over_one_field_keeps_every_key_it_had(research_run):
    result = grid_json(
        str(research_run.pk), "--node", "analyse", "--field", "args.region", "--values", "east"
    )

    assert OLD_KEYS <= set(result) and result["cross_field"] is None
    (row,) = result["rows"]
    assert OLD_ROW_KEYS <= set(row)
    assert (row["value"], row["cross_value"], row["parent"]) == ("east", None, research_run.pk)
    assert len(row["letters"]) == len(result["steps"]) == len(ORDER)


def test_the_command_crosses_two_fields_a_row_per_pair(research_run):
    result = grid_json(
        str(research_run.pk), "--node", "analyse", "--field", "args.region",
        "--values", "east", "west", "--cross-field", "args.min_contacts", "--cross-values", "2", "3",
    )  # fmt: skip

    assert OLD_KEYS <= set(result) and result["cross_field"] == "args.min_contacts"
    pairs = [(r["value"], r["cross_value"]) for r in result["rows"]]
    assert pairs == [
        ("east", None), ("east", "2"), ("east", "3"), ("west", None), ("west", "2"), ("west", "3"),
    ]  # fmt: skip
    rows = result["rows"]
    assert all(OLD_ROW_KEYS <= set(r) for r in rows)
    assert [r["parent"] for r in rows] == [research_run.pk, rows[0]["run"], rows[0]["run"]] + [
        research_run.pk, rows[3]["run"], rows[3]["run"],
    ]  # fmt: skip
    assert all(r["status"] == "completed" for r in rows)
    east_3 = Run.objects.get(pk=rows[2]["run"])
    assert analyse_args(east_3)["region"] == "east" and analyse_args(east_3)["min_contacts"] == 3
    grid = Grid.objects.get(pk=result["grid"])
    assert (grid.cross_field, grid.cross_values) == ("args.min_contacts", ["2", "3"])


def test_the_command_refuses_a_bad_cross_value_before_any_fork(research_run):
    before = counts()

    with pytest.raises(CommandError, match="'nine': args.min_contacts: expected int"):
        grid_json(
            str(research_run.pk), "--node", "analyse", "--field", "args.region",
            "--values", "east", "--cross-field", "args.min_contacts", "--cross-values", "nine",
        )  # fmt: skip

    assert counts() == before


@pytest.mark.parametrize("extra", [["--cross-field", "args.min_contacts"], ["--cross-values", "2"]])
def test_the_command_wants_the_cross_field_and_its_values_together(research_run, extra):
    with pytest.raises(CommandError, match="go together"):
        grid_json(
            str(research_run.pk), "--node", "analyse", "--field", "args.region",
            "--values", "east", *extra,
        )  # fmt: skip
