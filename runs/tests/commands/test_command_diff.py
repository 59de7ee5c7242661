"""``rewind_diff``: the JSON contract and the human form of a run against its fork."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db


def rewind_diff(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_diff", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def rewind_diff_json(a: Run, b: Run) -> dict[str, Any]:
    return json.loads(rewind_diff(str(a.pk), str(b.pk), "--json"))


def command_error(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        rewind_diff(*args)
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message


@pytest.fixture
def cost_fork(research_run, run_fork) -> Run:
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    return fork


def test_json_has_the_contract_keys(research_run, cost_fork):
    data = rewind_diff_json(research_run, cost_fork)

    assert {"a", "b", "first_divergence", "nodes", "artifact"} <= set(data)
    assert (data["a"], data["b"]) == (research_run.pk, cost_fork.pk)
    assert set(data["first_divergence"]) >= {"node", "sequence_id", "fields"}
    for item in data["nodes"]:
        assert set(item) >= {"name", "a_sha256", "b_sha256", "same"}
    assert set(data["artifact"]) >= {"a_sha256", "b_sha256", "differs"}


def test_first_divergence_is_the_forked_node_and_names_the_changed_field(research_run, cost_fork):
    data = rewind_diff_json(research_run, cost_fork)

    first = data["first_divergence"]
    assert first["node"] == "analyse"
    assert first["sequence_id"] == ORDER.index("analyse")
    paths = [f["path"] for f in first["fields"]]
    assert any("cost_scale" in path for path in paths)
    scale = next(f for f in first["fields"] if f["path"] == "params.cost_scale")
    assert (scale["a"], scale["b"]) == (1.0, 3.0)


def test_nodes_are_compared_in_order(research_run, cost_fork):
    data = rewind_diff_json(research_run, cost_fork)

    assert [n["name"] for n in data["nodes"]] == list(ORDER)
    same = {n["name"]: n["same"] for n in data["nodes"]}
    assert same["plan"] is True and same["research"] is True  # inherited
    assert same["analyse"] is False
    for item in data["nodes"]:
        assert item["same"] == (item["a_sha256"] == item["b_sha256"])


def test_artifact_differs_in_the_fork(research_run, cost_fork):
    data = rewind_diff_json(research_run, cost_fork)

    assert data["artifact"] == {
        "a_sha256": research_run.artifact_sha256,
        "b_sha256": cost_fork.artifact_sha256,
        "differs": True,
    }


def test_a_run_against_its_unchanged_replay_has_no_divergence(research_run, run_fork):
    replay = run_fork(research_run, "plan")

    data = rewind_diff_json(research_run, replay)

    assert data["first_divergence"] is None
    assert all(n["same"] for n in data["nodes"])
    assert data["artifact"]["differs"] is False


def test_text_output_shows_the_first_divergence_and_changes(research_run, cost_fork):
    out = rewind_diff(str(research_run.pk), str(cost_fork.pk))

    assert "first divergence" in out
    assert "analyse" in out
    assert "→" in out
    assert "params.cost_scale" in out
    assert "1.0 → 3.0" in out


def test_unknown_run_is_rejected(research_run):
    missing = research_run.pk + 1000

    assert command_error(str(research_run.pk), str(missing)) == f"no run {missing}"
    assert command_error(str(missing), str(research_run.pk)) == f"no run {missing}"


def test_a_run_id_that_is_not_a_number_is_rejected(research_run):
    assert "run ids are numbers" in command_error("latest", str(research_run.pk))


def test_json_has_no_verdicts_when_the_first_run_has_no_samples(research_run, cost_fork):
    assert "verdicts" not in rewind_diff_json(research_run, cost_fork)


def test_json_has_verdicts_when_the_first_run_has_samples(research_run, run_fork):
    out = io.StringIO()
    call_command("rewind_stability", str(research_run.pk), "-k", "2", stdout=out)
    research_run.refresh_from_db()
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")

    data = rewind_diff_json(research_run, fork)

    assert data["verdicts"]
    for verdict in data["verdicts"]:
        assert {"node", "path", "verdict", "samples"} <= set(verdict)
    scale = next(v for v in data["verdicts"] if v["path"] == "params.cost_scale")
    # at temperature 0 every sample reproduced the parent: any change is beyond its noise
    assert (scale["node"], scale["verdict"], scale["samples"]) == ("analyse", "beyond-noise", 2)
    assert "noise (judged against 2 sample(s) of the first run)" in rewind_diff(
        str(research_run.pk), str(fork.pk)
    )
