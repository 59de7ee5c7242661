"""``rewind_fork``: the fork object, inheritance with provenance, unchanged replays at 0
tokens, live mode, and overrides rejected before anything is written."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.execution.new_runs import create_run
from runs.models import Node, Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db

ANALYSE = ORDER.index("analyse")  # step 2: plan and research come before it
CACHED = {
    Node.CacheSource.CACHE,
    Node.CacheSource.TOOL_CACHE,
    Node.CacheSource.RENDER_CACHE,
}


def rewind_fork(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_fork", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def rewind_fork_json(*args: str) -> dict[str, Any]:
    return json.loads(rewind_fork(*args, "--json"))


def command_error(*args: str) -> str:
    """The one-line message of the ``CommandError`` raised by ``rewind_fork args``."""
    with pytest.raises(CommandError) as caught:
        rewind_fork(*args)
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message


def missing_run_id() -> int:
    """An id no run has (ids are not reset between tests on PostgreSQL)."""
    last = Run.objects.order_by("-pk").first()
    return (last.pk if last else 0) + 1000


def test_set_makes_a_fork_with_the_override(research_run):
    data = rewind_fork_json(str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")

    assert data["status"] == "completed"
    assert data["parent"] == research_run.pk
    assert data["run"] != research_run.pk
    # The value is typed like the one the node had (1.0), not kept as the text "3".
    assert data["fork"] == {"node": "analyse", "field": "args.cost_scale", "value": 3.0}
    assert isinstance(data["fork"]["value"], float)
    analyse = data["nodes"][ANALYSE]
    assert analyse["fields"]["args.cost_scale"] == 3.0
    assert analyse["fields"]["output"]["params"]["cost_scale"] == 3.0


def test_steps_before_the_fork_are_inherited_with_provenance(research_run):
    data = rewind_fork_json(str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    parent_nodes = list(research_run.nodes.order_by("sequence_id"))

    assert len(data["nodes"]) == len(ORDER)
    for item, parent in zip(data["nodes"][:ANALYSE], parent_nodes, strict=False):
        assert item["cache_source"] == "inherited"
        assert item["src_run"] == research_run.pk
        assert item["total_tokens"] == 0
        assert item["output_sha256"] == parent.output_sha256
    for item in data["nodes"][ANALYSE:]:
        assert item["cache_source"] != "inherited", item["name"]
        assert item["src_run"] == data["run"], item["name"]
    assert data["nodes"][ANALYSE]["output_sha256"] != parent_nodes[ANALYSE].output_sha256


def test_a_fork_of_a_fork_keeps_the_run_that_really_executed_each_step(research_run):
    fork = rewind_fork_json(str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    refork = rewind_fork_json(str(fork["run"]), "--node", "compose")

    assert refork["parent"] == fork["run"]
    sources = [n["src_run"] for n in refork["nodes"]]
    compose = ORDER.index("compose")
    # Never a copy of a copy: steps 0-1 resolve to the root run, 2..compose-1 to the fork.
    assert sources[:ANALYSE] == [research_run.pk] * ANALYSE
    assert sources[ANALYSE:compose] == [fork["run"]] * (compose - ANALYSE)
    assert sources[compose:] == [refork["run"]] * (len(ORDER) - compose)
    assert refork["artifact"]["sha256"] == fork["artifact"]["sha256"]


def test_without_set_it_is_an_unchanged_replay_at_zero_tokens(research_run):
    data = rewind_fork_json(str(research_run.pk), "--node", "analyse")

    assert data["fork"] == {"node": "analyse", "field": None, "value": None}
    executed = data["nodes"][ANALYSE:]
    assert {n["cache_source"] for n in executed} <= CACHED
    assert all(n["total_tokens"] == 0 for n in data["nodes"])
    assert data["totals"] == {"total_tokens": 0, "cost_usd": 0.0, "live_nodes": 0}
    assert [n["output_sha256"] for n in data["nodes"]] == list(
        research_run.nodes.order_by("sequence_id").values_list("output_sha256", flat=True)
    )
    assert data["artifact"]["sha256"] == research_run.artifact_sha256
    assert data["trajectory_sha256"] == research_run.trajectory_sha256


def test_human_output_names_parent_and_override(research_run):
    out = rewind_fork(str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    fork = Run.objects.get(parent=research_run)

    assert out.startswith(
        f"run {fork.pk}  research  completed  (fork of {research_run.pk} at analyse)"
    )
    assert "override  args.cost_scale = 3.0" in out
    for name in ORDER:
        assert f" {name} " in out, name


def test_human_output_says_unchanged_replay_without_set(research_run):
    out = rewind_fork(str(research_run.pk), "--node", "analyse")

    assert "override  none (unchanged replay)" in out


def test_a_field_the_node_does_not_consume_is_rejected_and_nothing_written(research_run):
    runs, nodes = Run.objects.count(), Node.objects.count()

    message = command_error(str(research_run.pk), "--node", "analyse", "--set", "prompt=x")

    assert "'prompt'" in message
    assert "args.cost_scale" in message  # it lists what the tool node does consume
    assert "output" in message
    assert (Run.objects.count(), Node.objects.count()) == (runs, nodes)


def test_args_override_on_an_llm_node_is_rejected(research_run):
    runs = Run.objects.count()

    message = command_error(str(research_run.pk), "--node", "plan", "--set", "args.region=east")

    assert "prompt" in message and "temperature" in message
    assert Run.objects.count() == runs


@pytest.mark.parametrize("bad", ["cost_scale", "=3", " =3"])
def test_set_without_field_equals_value_is_rejected(research_run, bad):
    runs = Run.objects.count()

    message = command_error(str(research_run.pk), "--node", "analyse", "--set", bad)

    assert "--set takes FIELD=VALUE" in message
    assert Run.objects.count() == runs


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("args.cost_scale=lots", "expected float"),
        ("output={not json", "not valid JSON"),
    ],
)
def test_a_value_of_the_wrong_type_is_rejected(research_run, setting, expected):
    runs = Run.objects.count()

    assert expected in command_error(str(research_run.pk), "--node", "analyse", "--set", setting)
    assert Run.objects.count() == runs


def test_bad_temperature_override_is_rejected(research_run):
    message = command_error(str(research_run.pk), "--node", "plan", "--set", "temperature=5")

    assert "temperature" in message and "between 0 and 2" in message


def test_unknown_run_is_rejected(rewind_settings):
    missing = missing_run_id()

    assert command_error(str(missing), "--node", "analyse") == f"no run {missing}"


@pytest.mark.parametrize("value", ["abc", "-1", "1.5"])
def test_a_run_id_that_is_not_a_number_is_rejected(rewind_settings, value):
    message = command_error(value, "--node", "analyse")

    assert "run ids are numbers" in message
    assert repr(value) in message


def test_unknown_node_lists_the_steps_and_writes_nothing(research_run):
    runs = Run.objects.count()

    message = command_error(str(research_run.pk), "--node", "nope")

    assert "'nope'" in message
    assert "analyse(2)" in message
    assert Run.objects.count() == runs


@pytest.mark.parametrize("node", ["analyse#2", "99"])
def test_a_missing_occurrence_or_step_is_rejected(research_run, node):
    assert f"no step {node!r}" in command_error(str(research_run.pk), "--node", node)


def test_node_can_be_a_step_number(research_run):
    data = rewind_fork_json(
        str(research_run.pk), "--node", str(ANALYSE), "--set", "args.cost_scale=3"
    )

    assert data["fork"]["node"] == "analyse"
    assert [n["cache_source"] for n in data["nodes"][:ANALYSE]] == ["inherited"] * ANALYSE


def test_node_can_name_an_occurrence(research_run):
    data = rewind_fork_json(str(research_run.pk), "--node", "analyse#1")

    assert data["fork"]["node"] == "analyse"


def test_forking_the_first_node_inherits_nothing(research_run):
    data = rewind_fork_json(str(research_run.pk), "--node", "plan", "--set", "temperature=0")

    assert data["status"] == "completed"
    assert all(n["cache_source"] != "inherited" for n in data["nodes"])
    assert data["fork"] == {"node": "plan", "field": "temperature", "value": 0.0}


def test_live_re_executes_downstream_nodes(research_run):
    data = rewind_fork_json(str(research_run.pk), "--node", "analyse", "--live")

    assert Run.objects.get(pk=data["run"]).mode == Run.Mode.LIVE
    assert data["mode"] == "live"
    executed = data["nodes"][ANALYSE:]
    assert [n["cache_source"] for n in executed] == ["live"] * len(executed)
    assert data["totals"]["live_nodes"] == len(executed)
    assert data["totals"]["total_tokens"] > 0
    # Live at temperature 0 is still deterministic: the same outputs, paid for again.
    assert [n["output_sha256"] for n in data["nodes"]] == list(
        research_run.nodes.order_by("sequence_id").values_list("output_sha256", flat=True)
    )


def test_a_run_that_has_not_finished_cannot_be_forked(rewind_settings):
    queued = create_run("research")

    message = command_error(str(queued.pk), "--node", "analyse")

    assert f"run {queued.pk} is still queued" in message
    assert Run.objects.count() == 1


def test_no_stderr_output_when_not_a_terminal(research_run, capsys):
    err = io.StringIO()

    call_command(
        "rewind_fork", str(research_run.pk), "--node", "analyse", stdout=io.StringIO(), stderr=err
    )

    assert err.getvalue() == ""
    assert capsys.readouterr().err == ""


def test_a_fork_inherits_its_parents_model_so_a_custom_endpoint_needs_none(
    research_run, rewind_settings, serve_simulator
):
    # Issue 7, finding 6: with an endpoint configured and no REWIND_LLM_MODEL, a fork (which
    # needs no provider at all here) used to fail with "the custom provider has no default model".
    serve_simulator()
    rewind_settings.REWIND_LLM_MODEL = ""

    data = rewind_fork_json(str(research_run.pk), "--node", "plan")

    assert data["status"] == "completed", data["error"]
    assert data["model"] == research_run.provider["model"]
    assert data["totals"]["total_tokens"] == 0


def test_a_new_run_against_an_endpoint_without_a_model_says_what_to_set(
    rewind_settings, serve_simulator
):
    serve_simulator()
    rewind_settings.REWIND_LLM_MODEL = ""
    before = Run.objects.count()

    with pytest.raises(CommandError, match="REWIND_LLM_MODEL"):
        call_command("rewind_run", stdout=io.StringIO(), stderr=io.StringIO())

    assert Run.objects.count() == before


def test_json_says_whether_the_fork_was_made_or_opened_as_the_api_does(research_run):
    args = (str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    made = rewind_fork_json(*args)
    again = rewind_fork_json(*args)

    assert made["reused"] is False
    assert again["reused"] is True and again["run"] == made["run"]
    assert Run.objects.filter(parent=research_run).count() == 1


def test_a_dry_run_of_a_fork_made_before_says_which_run_it_would_open(research_run):
    args = (str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    before = rewind_fork_json(*args, "--dry-run")
    made = rewind_fork_json(*args)
    after = rewind_fork_json(*args, "--dry-run")
    text = rewind_fork(*args, "--dry-run")

    assert before["opens"] is None
    assert after["opens"] == made["run"]
    assert f"this opens run {made['run']} instead of making one" in text
    assert rewind_fork_json(*args, "--live", "--dry-run")["opens"] is None  # live: a new run
