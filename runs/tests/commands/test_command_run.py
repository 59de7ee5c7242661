"""``rewind_run``: the JSON contract (DESIGN.md, Command line), inputs, model and temperature,
and clean one-line errors that write nothing."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.apps.registry import get_pipeline
from runs.models import Node, Run
from runs.pipelines.research import ORDER

RUN_KEYS = {"run", "status", "pipeline", "parent", "fork", "nodes", "artifact", "totals"}
NODE_KEYS = {
    "name",
    "sequence_id",
    "kind",
    "status",
    "cache_source",
    "output_sha256",
    "total_tokens",
    "src_run",
    "fields",
}
LLM_FIELDS = {"prompt", "model", "temperature", "output"}

pytestmark = pytest.mark.django_db


def rewind_run(*args: str) -> tuple[str, str]:
    """Call ``rewind_run`` with ``args``; returns (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    call_command("rewind_run", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def rewind_run_json(*args: str) -> dict[str, Any]:
    out, _ = rewind_run(*args, "--json")
    return json.loads(out)  # fails on anything but exactly one JSON document


def command_error(*args: str) -> str:
    """The message of the ``CommandError`` that ``rewind_run args`` raises; it is one line."""
    with pytest.raises(CommandError) as caught:
        rewind_run(*args)
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message


def node(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(n for n in data["nodes"] if n["name"] == name)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_is_one_object_with_the_contract_keys(rewind_settings):
    data = rewind_run_json()

    assert RUN_KEYS <= set(data)
    assert data["status"] == "completed"
    assert data["pipeline"] == "research"
    assert data["parent"] is None
    assert data["fork"] is None
    assert data["run"] == Run.objects.get().pk


def test_json_nodes_carry_the_contract_fields(rewind_settings):
    data = rewind_run_json()

    assert [n["name"] for n in data["nodes"]] == list(ORDER)
    assert [n["sequence_id"] for n in data["nodes"]] == list(range(len(ORDER)))
    for item in data["nodes"]:
        assert set(item) >= NODE_KEYS, item["name"]
        assert item["status"] == "completed"
        assert item["src_run"] == data["run"]  # a fresh run executed every step itself
        assert len(item["output_sha256"]) == 64
        if item["kind"] == "llm":
            assert set(item["fields"]) == LLM_FIELDS, item["name"]
        else:
            assert item["kind"] == "tool"
            assert "output" in item["fields"]
            # Only the arguments whose domain the node declares can be set (issue 7): publish's
            # arguments are upstream outputs, changed by forking the step that wrote them.
            args = set(item["fields"]) - {"output"}
            declared = {
                f"args.{name}" for name in get_pipeline("research").node(item["name"]).domains
            }
            assert args == declared, item["name"]
            assert bool(args) == (item["name"] != "publish"), item["name"]


def test_json_fields_hold_the_values_each_node_ran_with(rewind_settings):
    data = rewind_run_json()

    plan = node(data, "plan")["fields"]
    assert plan["model"] == data["model"]
    assert plan["temperature"] == 0.0
    assert "Region: all" in plan["prompt"]
    assert set(plan["output"]) >= {"objective", "steps"}
    analyse = node(data, "analyse")["fields"]
    assert analyse["args.cost_scale"] == 1.0
    assert analyse["args.region"] == "all"
    assert analyse["output"]["params"]["cost_scale"] == 1.0


def test_json_artifact_and_totals(rewind_settings):
    data = rewind_run_json()
    run = Run.objects.get()

    assert data["artifact"] == {"path": run.artifact_path, "sha256": run.artifact_sha256}
    assert str(rewind_settings.REWIND_ARTIFACT_DIR) in data["artifact"]["path"]
    assert len(data["artifact"]["sha256"]) == 64
    executed = Node.objects.filter(run=run)
    assert data["totals"]["total_tokens"] == sum(n.total_tokens for n in executed) > 0
    assert data["totals"]["cost_usd"] == pytest.approx(float(sum(n.cost_usd for n in executed)))
    # A first run on an empty cache executes everything.
    assert data["totals"]["live_nodes"] == len(ORDER)


def test_a_second_identical_run_is_served_from_cache_at_zero_tokens(rewind_settings):
    first = rewind_run_json()
    second = rewind_run_json()

    assert second["totals"] == {"total_tokens": 0, "cost_usd": 0.0, "live_nodes": 0}
    assert [n["output_sha256"] for n in second["nodes"]] == [
        n["output_sha256"] for n in first["nodes"]
    ]
    assert second["artifact"]["sha256"] == first["artifact"]["sha256"]
    assert second["artifact"]["path"] != first["artifact"]["path"]  # one file per run


def test_input_changes_the_analysis(rewind_settings):
    data = rewind_run_json("--input", "region=east")

    assert data["status"] == "completed"
    assert node(data, "analyse")["fields"]["output"]["params"]["region"] == "east"
    assert node(data, "analyse")["fields"]["args.region"] == "east"
    assert Run.objects.get().inputs["region"] == "east"


def test_input_is_repeatable(rewind_settings):
    data = rewind_run_json("--input", "region=west", "--input", "question=Which is cheapest?")

    assert Run.objects.get(pk=data["run"]).inputs == {
        "region": "west",
        "question": "Which is cheapest?",
    }
    assert "Which is cheapest?" in node(data, "plan")["fields"]["prompt"]


def test_unknown_input_names_the_known_inputs_and_writes_nothing(rewind_settings):
    message = command_error("--input", "nope=1")

    assert "nope" in message
    assert "question" in message and "region" in message
    assert Run.objects.count() == 0


def test_input_without_equals_sign_is_rejected(rewind_settings):
    message = command_error("--input", "region")

    assert "KEY=VALUE" in message
    assert Run.objects.count() == 0


def test_model_and_temperature_are_recorded(rewind_settings):
    data = rewind_run_json("--model", "m", "--temperature", "0.5")

    assert data["model"] == "m"
    assert data["temperature"] == 0.5
    assert node(data, "plan")["fields"]["model"] == "m"
    assert node(data, "plan")["fields"]["temperature"] == 0.5
    assert Run.objects.get().provider["temperature"] == 0.5


@pytest.mark.parametrize(
    ("value", "expected"),
    [("5", "between 0 and 2"), ("hot", "expected a number"), ("nan", "between 0 and 2")],
)
def test_bad_temperature_is_rejected_before_anything_is_written(rewind_settings, value, expected):
    message = command_error("--temperature", value)

    assert expected in message
    assert value in message
    assert Run.objects.count() == 0


def test_empty_model_is_rejected(rewind_settings):
    assert "model" in command_error("--model", "  ")
    assert Run.objects.count() == 0


def test_unknown_pipeline_is_rejected_with_the_registered_ones(rewind_settings):
    message = command_error("--pipeline", "x")

    assert "unknown pipeline 'x'" in message
    assert "research" in message
    assert Run.objects.count() == 0


def test_human_output_lists_every_node(rewind_settings):
    out, _ = rewind_run()
    run = Run.objects.get()

    assert out.startswith(f"run {run.pk}  research  completed")
    for name in ORDER:
        assert f" {name} " in out, name
    assert run.artifact_sha256 in out
    assert "[offline simulator]" in out  # the simulator is labelled wherever it is used


def test_no_stderr_output_when_stderr_is_not_a_terminal(rewind_settings, capsys):
    _, err = rewind_run()

    assert err == ""
    assert capsys.readouterr().err == ""  # progress is written to sys.stderr, not self.stderr


def test_progress_is_printed_on_a_terminal(rewind_settings, monkeypatch):
    terminal = FakeTerminal()
    out = io.StringIO()
    call_command("rewind_run", "--json", stdout=out, stderr=terminal)
    out = out.getvalue()

    json.loads(out)  # progress never pollutes the JSON on stdout
    lines = terminal.getvalue().splitlines()
    assert len(lines) == len(ORDER)
    assert "step 1/8 plan" in lines[0]
    assert "step 8/8 publish" in lines[-1]


def test_failed_run_prints_its_json_and_exits_with_an_error(serve_simulator):
    serve_simulator(garbage=True)  # unparseable model output: the first llm node fails
    out = io.StringIO()

    with pytest.raises(CommandError) as caught:
        call_command("rewind_run", "--json", stdout=out, stderr=io.StringIO())

    run = Run.objects.get()
    data = json.loads(out.getvalue())
    assert data["run"] == run.pk
    assert data["status"] == "failed"
    assert data["error"].startswith("plan: ")
    assert str(caught.value).startswith(f"run {run.pk} failed: plan: ")
    assert "\n" not in str(caught.value)
    assert node(data, "plan")["status"] == "failed"
