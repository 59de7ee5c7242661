from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db


def grid(*args: str) -> dict:
    out = io.StringIO()
    call_command("rewind_grid", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_it_forks_once_per_value_and_names_what_changed(research_run):
    result = grid(
        str(research_run.pk),
        "--node",
        "analyse",
        "--field",
        "args.region",
        "--values",
        "all",
        "east",
    )

    rows = {row["value"]: row for row in result["rows"]}
    assert set(rows) == {"all", "east"}
    assert rows["all"]["changed_nodes"] == [] and not rows["all"]["artifact_differs"]
    assert rows["all"]["total_tokens"] == 0  # the unchanged value is a full cache hit
    assert rows["east"]["first_divergence"]["node"] == "analyse"
    assert rows["east"]["artifact_differs"] and "analyse" in rows["east"]["changed_nodes"]
    assert Run.objects.filter(parent=research_run).count() == 2


def test_a_bad_value_is_refused_before_any_fork_runs(research_run):
    before = Run.objects.count()
    with pytest.raises(CommandError, match="expected float"):
        grid(
            str(research_run.pk),
            "--node",
            "analyse",
            "--field",
            "args.cost_scale",
            "--values",
            "2",
            "abc",
        )
    assert Run.objects.count() == before


def test_a_field_the_node_cannot_take_is_refused(research_run):
    with pytest.raises(CommandError, match="cannot take an override of 'prompt'"):
        grid(str(research_run.pk), "--node", "analyse", "--field", "prompt", "--values", "x")


def test_text_output_is_a_table(research_run):
    out = io.StringIO()
    call_command(
        "rewind_grid", str(research_run.pk), "--node", "analyse", "--field", "args.region",
        "--values", "west", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    assert "grid over args.region at analyse" in out.getvalue()
    assert "west" in out.getvalue()


def test_the_grid_is_stored_with_its_forks_as_rows(research_run):
    from runs.models import Grid

    result = grid(
        str(research_run.pk), "--node", "analyse", "--field", "args.region",
        "--values", "east", "west",
    )  # fmt: skip

    stored = Grid.objects.get(pk=result["grid"])
    assert (stored.source_id, stored.node, stored.field) == (
        research_run.pk,
        "analyse",
        "args.region",
    )
    assert stored.values == ["east", "west"] and stored.created_by is None
    assert [r.run_id for r in stored.rows.order_by("position")] == [
        r["run"] for r in result["rows"]
    ]


def test_a_bad_value_stores_no_grid(research_run):
    from runs.models import Grid

    with pytest.raises(CommandError):
        grid(
            str(research_run.pk),
            "--node",
            "analyse",
            "--field",
            "args.region",
            "--values",
            "east",
            "mars",
        )
    assert not Grid.objects.exists()
    assert Run.objects.count() == 1


def test_text_output_names_the_stored_grid(research_run):
    from runs.models import Grid

    out = io.StringIO()
    call_command(
        "rewind_grid", str(research_run.pk), "--node", "analyse", "--field", "args.region",
        "--values", "west", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    stored = Grid.objects.get()
    assert out.getvalue().rstrip().endswith(f"stored as grid {stored.pk}: /grids/{stored.pk}/")


def test_the_table_letters_each_step_as_the_grid_page_does(research_run):
    out = io.StringIO()
    call_command(
        "rewind_grid", str(research_run.pk), "--node", "analyse", "--field", "args.region",
        "--values", "all", "east", "west", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip

    lines = out.getvalue().splitlines()
    head = next(line for line in lines if line.startswith("value"))
    assert head.split()[-len(ORDER) :] == list(ORDER)  # a column per step

    def marks(label: str) -> list[str]:
        line = next(line for line in lines if line.startswith(label))
        return line.split()[-len(ORDER) :]

    analyse = ORDER.index("analyse")
    assert marks("(parent) all") == ["="] * len(ORDER)
    assert marks("all ") == ["="] * len(ORDER)  # the value the parent had: its outputs
    east, west = marks("east"), marks("west")
    assert east[:analyse] == west[:analyse] == ["="] * analyse  # inherited
    assert (east[analyse], west[analyse]) == ("A", "B")  # two outputs, two letters
    assert "changed steps" not in out.getvalue()


def test_the_json_letters_agree_with_the_table(research_run):
    result = grid(
        str(research_run.pk), "--node", "analyse", "--field", "args.region",
        "--values", "east", "west", "east",
    )  # fmt: skip

    analyse = result["steps"].index("analyse")
    letters = [row["letters"] for row in result["rows"]]
    assert result["parent_letters"] == ["="] * len(ORDER)
    assert [row[analyse] for row in letters] == ["A", "B", "A"]  # equal outputs, equal letters
