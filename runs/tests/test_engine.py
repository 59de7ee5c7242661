"""Runs, forks and replays of the demo ``research`` pipeline (DESIGN.md, Forking and the
determinism rules), against the offline simulator: in-process by default, on loopback for
the transport paths.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.db.models import Sum

from runs.engine.calls import cache
from runs.engine.calls.keys import llm_cache_key
from runs.engine.errors import ForkError, OverrideError, RewindError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.persister import PARTITION_KEY
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.providers.simulator import Simulator
from runs.lib.hashing import content_sha256, trajectory_sha256
from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.pipelines.research import ORDER
from runs.tests.conftest import closed_port_url

pytestmark = pytest.mark.django_db

LLM_NODES = {"plan", "critique", "revise", "compose"}
TOOL_NODES = {"research", "analyse", "verify", "publish"}
FRAMEWORK_KEYS = {"__SEQUENCE_ID", "__PRIOR_STEP"}
HEX64 = re.compile(r"^[0-9a-f]{64}$")
RESEARCH_INPUTS = {"question", "region"}


# --- helpers --------------------------------------------------------------------------------


def steps(run: Run) -> list[Node]:
    return list(Node.objects.filter(run=run).order_by("sequence_id"))


def step(run: Run, name: str) -> Node:
    return Node.objects.filter(run=run, name=name).order_by("sequence_id").first()


def state_rows(run: Run) -> dict[int, BurrState]:
    rows = BurrState.objects.filter(partition_key=PARTITION_KEY, app_id=str(run.pk))
    return {row.sequence_id: row for row in rows.order_by("sequence_id")}


def artifact_bytes(run: Run) -> bytes:
    return Path(run.artifact_path).read_bytes()


def table_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Run, Node, Edge, BurrState, LLMCacheEntry, ToolCacheEntry)
    }


def llm_entries() -> dict[tuple[str, int], dict]:
    return {(e.key, e.occurrence): e.response for e in LLMCacheEntry.objects.all()}


def all_keys(value: Any) -> list[str]:
    """Every dict key anywhere inside a JSON value."""
    if isinstance(value, dict):
        return [*value, *(k for v in value.values() for k in all_keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in all_keys(v)]
    return []


def user_message(node: Node) -> str:
    return next(m["content"] for m in node.prompt if m["role"] == "user")


def assert_unchanged_replay(parent: Run, fork: Run) -> None:
    """DESIGN.md, Forking: every re-executed step a cache hit, 0 tokens, every output hash,
    the trajectory hash and the artifact bytes identical, and Burr's state rows byte-identical."""
    assert fork.status == Run.Status.COMPLETED, fork.error
    ran = [n for n in steps(fork) if n.cache_source != Node.CacheSource.INHERITED]
    assert ran, "an unchanged replay re-executes at least the fork node"
    for node in ran:
        expected = {"cache"} if node.kind == "llm" else {"tool-cache", "render-cache"}
        assert node.cache_source in expected, (node.name, node.cache_source, node.cache_note)
        assert node.total_tokens == 0 and node.cost_usd == 0, node.name
        assert node.src_run_id == fork.pk
    assert step(fork, "publish").cache_source == "render-cache"
    assert [n.output_sha256 for n in steps(fork)] == [n.output_sha256 for n in steps(parent)]
    assert fork.trajectory_sha256 == parent.trajectory_sha256
    assert fork.artifact_sha256 == parent.artifact_sha256
    assert fork.artifact_path != parent.artifact_path  # the fork writes its own file
    assert artifact_bytes(fork) == artifact_bytes(parent)
    parent_rows, fork_rows = state_rows(parent), state_rows(fork)
    assert sorted(fork_rows) == [n.sequence_id for n in ran]
    for sequence_id, row in fork_rows.items():
        assert row.state == parent_rows[sequence_id].state, sequence_id
        assert row.position == parent_rows[sequence_id].position


# --- a fresh run ----------------------------------------------------------------------------


def test_fresh_run_completes_with_eight_hashed_nodes_an_artifact_and_seven_edges(research_run):
    run = research_run
    nodes = steps(run)
    assert [n.name for n in nodes] == list(ORDER)
    assert [n.sequence_id for n in nodes] == list(range(8))
    for node in nodes:
        assert node.kind == ("llm" if node.name in LLM_NODES else "tool"), node.name
        assert node.status == Node.Status.COMPLETED
        assert node.cache_source == "live"
        assert HEX64.match(node.output_sha256), node.name
        assert node.output_sha256 == content_sha256(node.output), node.name
        assert node.src_run_id == run.pk and node.src_sequence_id == node.sequence_id
        if node.kind == "llm":
            assert node.total_tokens > 0 and node.prompt_tokens > 0, node.name
            assert node.total_tokens == node.prompt_tokens + node.completion_tokens
            assert node.model_requested == node.model_answered == "rewind-sim-1"
            assert node.prompt[0]["role"] == "system" and node.prompt[1]["role"] == "user"
            assert HEX64.match(node.cache_key)
        else:
            assert node.total_tokens == 0 and node.prompt_tokens == 0, node.name
            assert node.prompt is None
    assert run.provider["simulator"] is True
    assert run.trajectory_sha256 == trajectory_sha256([n.output_sha256 for n in nodes])
    path = Path(run.artifact_path)
    assert path.is_file() and path.name == f"{run.pk}.md"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == run.artifact_sha256
    assert path.read_text(encoding="utf-8") == step(run, "publish").output
    edges = list(Edge.objects.filter(run=run).order_by("sequence_id"))
    assert [(e.from_node, e.to_node) for e in edges] == list(zip(ORDER, ORDER[1:], strict=False))
    assert [e.sequence_id for e in edges] == list(range(1, 8))
    assert {e.condition for e in edges} == {"default"}


def test_burr_state_holds_no_telemetry_and_only_inputs_and_executed_nodes(research_run, tmp_path):
    rows = state_rows(research_run)
    assert sorted(rows) == list(range(8))
    nodes = {n.sequence_id: n for n in steps(research_run)}
    for sequence_id, row in rows.items():
        assert row.status == "completed" and row.position == ORDER[sequence_id]
        state = json.loads(row.state)
        assert {k for k in state if k.startswith("__")} <= FRAMEWORK_KEYS
        semantic = {k for k in state if not k.startswith("__")}
        assert semantic == RESEARCH_INPUTS | set(ORDER[: sequence_id + 1]), sequence_id
        # Rule 1: latency, tokens, costs, run ids never enter state, at any depth.
        for key in all_keys(state):
            low = key.lower()
            assert not any(
                word in low
                for word in ("latency", "token", "telemetry", "run_id", "elapsed", "timestamp")
            ), key
        assert not any("cost_usd" in k or "cost" == k for k in state), sorted(state)
        for text in ("latency_ms", "total_tokens", "cache_source", str(tmp_path)):
            assert text not in row.state
        # What a step produced is in state under its own name, equal to its node's output.
        assert state[ORDER[sequence_id]] == nodes[sequence_id].output


# --- unchanged replays ----------------------------------------------------------------------


@pytest.mark.parametrize("at", ["critique", "plan"])
def test_unchanged_replay_is_fully_cached_and_byte_identical(research_run, run_fork, at):
    before = table_counts()
    fork = run_fork(research_run, at)
    assert fork.parent_id == research_run.pk and fork.root_id == research_run.pk
    assert fork.override is None and fork.fork_node == at
    assert Node.objects.filter(run=fork).aggregate(t=Sum("total_tokens"))["t"] == 0
    assert_unchanged_replay(research_run, fork)
    # Nothing new was cached: every step was served by an existing entry.
    after = table_counts()
    assert after["LLMCacheEntry"] == before["LLMCacheEntry"]
    assert after["ToolCacheEntry"] == before["ToolCacheEntry"]
    inherited = [n for n in steps(fork) if n.cache_source == "inherited"]
    assert [n.name for n in inherited] == list(ORDER[: ORDER.index(at)])


def test_unchanged_replay_of_a_jittery_run_reproduces_it_exactly(run_pipeline, run_fork):
    """At temperature > 0 the simulator jitters; a replay still reproduces every hash."""
    parent = run_pipeline("research", temperature="0.9")
    assert parent.status == Run.Status.COMPLETED, parent.error
    assert parent.provider["temperature"] == 0.9
    assert_unchanged_replay(parent, run_fork(parent, "plan"))


def test_second_identical_fresh_run_is_served_from_cache(research_run, run_pipeline):
    second = run_pipeline("research")
    assert second.status == Run.Status.COMPLETED, second.error
    assert second.parent_id is None and second.root_id == second.pk
    for node in steps(second):
        expected = {"cache"} if node.kind == "llm" else {"tool-cache", "render-cache"}
        assert node.cache_source in expected, node.name
        assert node.total_tokens == 0
    assert second.trajectory_sha256 == research_run.trajectory_sha256
    assert artifact_bytes(second) == artifact_bytes(research_run)


# --- forks with an override -----------------------------------------------------------------


def test_fork_at_analyse_with_cost_scale_recomputes_downstream(research_run, run_fork):
    parent = research_run
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.override == {"node": "analyse", "field": "args.cost_scale", "value": 3.0}
    assert fork.fork_node == "analyse" and fork.fork_sequence_id == 2
    nodes = {n.name: n for n in steps(fork)}
    parents = {n.name: n for n in steps(parent)}
    for name in ("plan", "research"):
        assert nodes[name].cache_source == "inherited"
        assert nodes[name].src_run_id == parent.pk
        assert nodes[name].src_sequence_id == parents[name].sequence_id
        assert nodes[name].output_sha256 == parents[name].output_sha256
        assert nodes[name].total_tokens == 0
    analyse = nodes["analyse"]
    assert analyse.cache_source == "live" and analyse.src_run_id == fork.pk
    assert "args.cost_scale" in analyse.cache_note
    assert analyse.inputs["args"]["cost_scale"] == 3.0
    for name in ("critique", "revise", "compose"):
        node = nodes[name]
        assert node.cache_source == "live" and node.total_tokens > 0, name
        assert user_message(node) != user_message(parents[name]), name
        assert "messages" in node.cache_note, (name, node.cache_note)
        assert node.output_sha256 != parents[name].output_sha256
    assert fork.artifact_sha256 != parent.artifact_sha256
    old_total = parents["analyse"].output["groups"]["A"]["total_cost"]
    new_total = analyse.output["groups"]["A"]["total_cost"]
    assert new_total == pytest.approx(3 * old_total, abs=1e-3)
    report = artifact_bytes(fork).decode("utf-8")
    assert f"| {3 * old_total:.2f} |" in report
    assert f"| {old_total:.2f} |" in artifact_bytes(parent).decode("utf-8")
    assert "cost scale: 3.0" in report


def test_fork_of_a_fork_resolves_inherited_nodes_to_the_run_that_executed_them(
    research_run, run_fork
):
    root = research_run
    f1 = run_fork(root, "critique")
    f2 = run_fork(f1, "revise")
    assert f2.status == Run.Status.COMPLETED, f2.error
    assert f2.parent_id == f1.pk and f2.root_id == root.pk
    nodes = {n.name: n for n in steps(f2)}
    for name in ("plan", "research", "analyse"):
        assert nodes[name].cache_source == "inherited"
        assert nodes[name].src_run_id == root.pk, name  # never a copy of a copy
        assert nodes[name].src_sequence_id == ORDER.index(name)
    assert nodes["critique"].cache_source == "inherited"
    assert nodes["critique"].src_run_id == f1.pk
    assert nodes["critique"].src_sequence_id == ORDER.index("critique")
    assert_unchanged_replay(f1, f2)

    # Forking F1 at one of its own inherited steps resumes from R's row of plan.
    f3 = run_fork(f1, "research")
    assert [n.name for n in steps(f3) if n.cache_source == "inherited"] == ["plan"]
    assert step(f3, "plan").src_run_id == root.pk
    assert_unchanged_replay(root, f3)


def test_fork_of_a_fork_uses_the_state_its_parent_produced(research_run, run_fork):
    """F1 changes critique; F2 forks F1 after critique: its revise must read F1's critique."""
    f1 = run_fork(research_run, "critique", "temperature", "1.5")
    assert f1.status == Run.Status.COMPLETED, f1.error
    assert step(f1, "critique").output_sha256 != step(research_run, "critique").output_sha256
    f2 = run_fork(f1, "revise")
    assert step(f2, "critique").src_run_id == f1.pk
    assert_unchanged_replay(f1, f2)


@pytest.mark.parametrize(
    ("node", "field", "value"),
    [("analyse", "args.cost_scale", "3"), ("revise", "temperature", "1.5")],
)
def test_unchanged_replay_of_a_fork_with_an_override_reproduces_that_fork(
    research_run, run_fork, node, field, value
):
    f1 = run_fork(research_run, node, field, value)
    assert f1.trajectory_sha256 != research_run.trajectory_sha256
    replay = run_fork(f1, "plan")  # re-executes every step, the overridden one included
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay.trajectory_sha256 == f1.trajectory_sha256
    assert replay.artifact_sha256 == f1.artifact_sha256


def test_fork_at_the_first_node_with_a_prompt_override(research_run, run_fork):
    prompt = "Question: is email outreach cheaper than phone calls in 2024? Region: north."
    fork = run_fork(research_run, "plan", "prompt", prompt)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.fork_sequence_id == 0
    nodes = steps(fork)
    assert [n.name for n in nodes] == list(ORDER)
    assert not [n for n in nodes if n.cache_source == "inherited"]
    assert all(n.src_run_id == fork.pk for n in nodes)
    plan = nodes[0]
    assert plan.cache_source == "live" and plan.total_tokens > 0
    assert plan.prompt[1] == {"role": "user", "content": prompt}
    assert plan.prompt[0] == step(research_run, "plan").prompt[0]  # system prompt unchanged
    assert "messages" in plan.cache_note
    assert plan.output_sha256 != step(research_run, "plan").output_sha256
    # The override travelled outside state (rule 3): plan's state row holds its inputs as-is.
    row = json.loads(state_rows(fork)[0].state)
    assert row["question"] == research_run.inputs["question"]
    assert prompt not in state_rows(fork)[0].state


def test_output_override_on_an_llm_node_runs_nothing_and_changes_downstream(research_run, run_fork):
    value = {
        "findings": ["Group C converts at 38% for the lowest cost per conversion, 17.91."],
        "recommendation": "Adopt the community-partner policy in every region.",
    }
    fork = run_fork(research_run, "revise", "output", json.dumps(value))
    assert fork.status == Run.Status.COMPLETED, fork.error
    revise = step(fork, "revise")
    assert revise.cache_source == "override"
    assert revise.total_tokens == 0 and revise.cost_usd == 0
    assert revise.output == value and revise.output_sha256 == content_sha256(value)
    assert not revise.cache_key
    compose = step(fork, "compose")
    assert compose.cache_source == "live" and compose.total_tokens > 0
    assert "17.91" in user_message(compose)
    assert compose.output_sha256 != step(research_run, "compose").output_sha256
    assert fork.artifact_sha256 != research_run.artifact_sha256
    assert fork.trajectory_sha256 != research_run.trajectory_sha256


@pytest.mark.parametrize(
    ("field", "value", "recorded", "note"),
    [
        ("model", "rewind-sim-2", ("model_requested", "rewind-sim-2"), "model"),
        ("temperature", "0.7", ("temperature", 0.7), "temperature"),
    ],
)
def test_model_and_temperature_overrides_are_recorded_and_miss(
    research_run, run_fork, field, value, recorded, note
):
    fork = run_fork(research_run, "critique", field, value)
    assert fork.status == Run.Status.COMPLETED, fork.error
    critique = step(fork, "critique")
    attribute, expected = recorded
    assert getattr(critique, attribute) == expected
    assert critique.cache_source == "live" and critique.total_tokens > 0
    assert critique.cache_note == f"updated input: {note}"
    assert critique.cache_key != step(research_run, "critique").cache_key
    # Downstream steps keep the run's own model and temperature.
    revise = step(fork, "revise")
    assert revise.model_requested == "rewind-sim-1" and revise.temperature == 0.0


def test_fabricated_numbers_at_analyse_fail_verify_and_the_run(research_run, run_fork):
    fabricated = json.loads(json.dumps(step(research_run, "analyse").output))
    fabricated["groups"]["A"]["total_cost"] = 1.0
    fork = run_fork(research_run, "analyse", "output", json.dumps(fabricated))
    assert fork.status == Run.Status.FAILED
    verify = step(fork, "verify")
    assert verify.status == Node.Status.FAILED
    assert "mismatch" in verify.error and "A.total_cost" in verify.error
    assert verify.raw_output and not verify.output_sha256
    assert fork.error.startswith("verify:")
    assert step(fork, "analyse").cache_source == "override"
    assert step(fork, "publish") is None  # nothing after the failure ran
    assert not fork.artifact_path and not fork.artifact_sha256 and not fork.trajectory_sha256


def test_a_fork_of_a_failed_run_without_its_override_recovers(research_run, run_fork):
    fabricated = json.loads(json.dumps(step(research_run, "analyse").output))
    fabricated["groups"]["B"]["conversions"] = 99
    failed = run_fork(research_run, "analyse", "output", json.dumps(fabricated))
    assert failed.status == Run.Status.FAILED
    again = run_fork(failed, "verify")  # the same state: fails the same way
    assert again.status == Run.Status.FAILED and "B.conversions" in again.error
    # An unchanged replay of the failed fork reproduces it, override included: a fork with no
    # override reproduces its source. Recovering means forking the parent instead.
    replayed = run_fork(failed, "analyse")
    assert replayed.status == Run.Status.FAILED and "B.conversions" in replayed.error
    assert step(replayed, "analyse").cache_source == "override"
    recovered = run_fork(research_run, "analyse")
    assert recovered.status == Run.Status.COMPLETED, recovered.error
    assert step(recovered, "analyse").cache_source == "tool-cache"
    assert recovered.trajectory_sha256 == research_run.trajectory_sha256
    assert artifact_bytes(recovered) == artifact_bytes(research_run)


# --- rejected overrides ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node", "field", "value", "from_text", "error", "match"),
    [
        ("analyse", "prompt", "Summarise.", True, OverrideError, "args.cost_scale"),
        ("verify", "model", "gpt-4o", True, OverrideError, "args.dataset"),
        ("plan", "args.x", "1", True, OverrideError, "prompt, model, temperature, output"),
        ("analyse", "args.nope", "1", True, OverrideError, "args.min_contacts"),
        ("plan", "temperature", "-1", True, OverrideError, "between 0 and 2"),
        ("plan", "temperature", "3", True, OverrideError, "between 0 and 2"),
        ("plan", "temperature", "hot", True, OverrideError, "expected a number"),
        ("plan", "temperature", "nan", True, OverrideError, "between 0 and 2"),
        ("plan", "temperature", True, False, OverrideError, "temperature"),
        ("analyse", "args.min_contacts", "abc", True, OverrideError, "expected int"),
        ("analyse", "args.min_contacts", "2.5", True, OverrideError, "expected int"),
        ("analyse", "args.cost_scale", "inf", True, OverrideError, "expected float"),
        ("analyse", "args.cost_scale", "3", False, OverrideError, "expected float, got str"),
        ("analyse", "args.cost_scale", math.nan, False, OverrideError, "finite"),
        ("revise", "output", '{"findings": [', True, OverrideError, "not valid JSON"),
        ("plan", "prompt", "plan \x00 this", True, OverrideError, "NUL"),
        ("plan", "prompt", "   ", True, OverrideError, "non-empty"),
        ("plan", "model", "", True, OverrideError, "model"),
        ("nope", None, None, True, ForkError, "no step 'nope'"),
        ("plan#2", None, None, True, ForkError, "no step"),
    ],
)
def test_rejected_override_raises_before_anything_is_written(
    research_run, node, field, value, from_text, error, match
):
    before = table_counts()
    with pytest.raises(error, match=re.escape(match)):
        create_fork(research_run, node, field, value, from_text=from_text)
    assert table_counts() == before


def test_override_larger_than_the_limit_is_rejected(research_run, settings):
    settings.REWIND_OVERRIDE_MAX_BYTES = 64
    before = table_counts()
    with pytest.raises(OverrideError, match="REWIND_OVERRIDE_MAX_BYTES"):
        create_fork(research_run, "plan", "prompt", "x" * 65)
    assert table_counts() == before
    assert create_fork(research_run, "plan", "prompt", "x" * 40).status == Run.Status.QUEUED


def test_prompt_with_a_lone_surrogate_is_a_clear_override_error(research_run):
    before = table_counts()
    with pytest.raises(OverrideError):
        create_fork(research_run, "plan", "prompt", "cost \ud800 per conversion")
    assert table_counts() == before


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_forking_an_unfinished_run_is_refused(rewind_settings, status):
    run = create_run("research")
    Run.objects.filter(pk=run.pk).update(status=status)
    run.refresh_from_db()
    before = table_counts()
    with pytest.raises(ForkError, match=f"still {status}"):
        create_fork(run, "plan")
    assert table_counts() == before


def test_a_run_is_never_executed_twice(research_run):
    with pytest.raises(RewindError, match="not queued"):
        execute_run(research_run.pk)


# --- live mode ------------------------------------------------------------------------------


def test_live_fork_calls_the_provider_and_never_overwrites_the_cache(run_pipeline, run_fork):
    parent = run_pipeline("research", temperature="0.9")  # jitters: a live answer differs
    cached = llm_entries()
    tools = {e.key: e.result for e in ToolCacheEntry.objects.all()}
    assert len(cached) == 4
    fork = run_fork(parent, "plan", live=True)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.mode == Run.Mode.LIVE
    for node in steps(fork):
        assert node.cache_source == "live", node.name
        if node.kind == "llm":
            assert node.total_tokens > 0, node.name
    # A different live answer is kept beside the first one, never over it; each step pins the
    # entry that holds its own answer.
    differed = 0
    for node in steps(fork):
        if node.kind != "llm":
            continue
        entry = LLMCacheEntry.objects.get(pk=node.cache_entries[0].removeprefix("llm:"))
        entries = LLMCacheEntry.objects.filter(key=entry.key, occurrence=entry.occurrence)
        first = cached.get((entry.key, entry.occurrence))
        if first is None:  # a changed upstream answer made a new call: a new key
            assert entries.count() == 1
            continue
        assert entries.order_by("id").first().response == first
        if entry.response != first:
            differed += 1
            assert entries.count() == 2
        else:
            assert entries.count() == 1
    assert differed, "at temperature 0.9 some live answer differs from the first"
    for key, result in tools.items():
        assert ToolCacheEntry.objects.get(key=key).result == result
    # Cache mode still reads the parent's answers, and a replay of the live fork its own.
    assert_unchanged_replay(parent, run_fork(parent, "plan"))
    assert_unchanged_replay(fork, run_fork(fork, "plan"))


# --- the same call twice in one run ---------------------------------------------------------


@pytest.fixture
def loop_pipeline(rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "loop": "runs.tests.pipelines.loop",
    }
    return "loop"


def test_the_same_call_twice_in_one_run_is_stored_per_occurrence(loop_pipeline, run_pipeline):
    run = run_pipeline(loop_pipeline, temperature="0.9")
    assert run.status == Run.Status.COMPLETED, run.error
    nodes = steps(run)
    assert [n.name for n in nodes] == ["ask", "tick", "ask", "tick", "done"]
    edges = list(Edge.objects.filter(run=run).order_by("sequence_id"))
    assert [(e.from_node, e.to_node, e.condition) for e in edges] == [
        ("ask", "tick", "default"),
        ("tick", "ask", "tick < 2"),
        ("ask", "tick", "default"),
        ("tick", "done", "default"),
    ]
    first, second = nodes[0], nodes[2]
    assert first.cache_key == second.cache_key
    assert first.cache_source == second.cache_source == "live"
    assert second.cache_note == "same request, new occurrence in this run"
    entries = LLMCacheEntry.objects.filter(key=first.cache_key).order_by("occurrence")
    assert [e.occurrence for e in entries] == [0, 1]
    assert [json.loads(e.response["content"]) for e in entries] == [first.output, second.output]


def test_a_replay_gives_back_the_first_answer_first_and_the_second_second(
    loop_pipeline, run_pipeline, run_fork
):
    parent = run_pipeline(loop_pipeline, temperature="0.9")
    first, second = step(parent, "ask"), steps(parent)[2]
    assert first.output != second.output  # jitter at temperature 0.9
    replay = run_fork(parent, "ask")
    assert replay.status == Run.Status.COMPLETED, replay.error
    asks = [n for n in steps(replay) if n.name == "ask"]
    assert [n.cache_source for n in asks] == ["cache", "cache"]
    assert [n.output for n in asks] == [first.output, second.output]
    assert replay.trajectory_sha256 == parent.trajectory_sha256
    # Forking the second occurrence counts the inherited first one: it gets answer #2.
    at_second = run_fork(parent, "ask#2")
    assert at_second.fork_sequence_id == 2
    assert [n.cache_source for n in steps(at_second)] == [
        "inherited",
        "inherited",
        "cache",
        "tool-cache",
        "render-cache",
    ]
    assert steps(at_second)[2].output == second.output
    assert at_second.trajectory_sha256 == parent.trajectory_sha256


@pytest.mark.parametrize(
    ("field", "value"),
    [("output", '{"answer": "overridden", "points": []}'), ("prompt", "Topic: wave power.")],
)
def test_an_override_changes_only_the_forked_step_of_a_loop(
    loop_pipeline, run_pipeline, run_fork, field, value
):
    parent = run_pipeline(loop_pipeline)
    fork = run_fork(parent, "ask", field, value)  # the first occurrence, sequence id 0
    assert fork.status == Run.Status.COMPLETED, fork.error
    first, second = (n for n in steps(fork) if n.name == "ask")
    assert first.cache_source in {"override", "live"}
    # The second occurrence reads nothing the override changed: it is the parent's call.
    assert second.cache_source == "cache"
    assert second.prompt == steps(parent)[2].prompt
    assert second.output_sha256 == steps(parent)[2].output_sha256


def test_cache_entries_are_per_answer_and_a_lookup_reads_the_pinned_or_the_first():
    key = llm_cache_key({"model": "m", "messages": [{"role": "user", "content": "q"}]})
    fields = {
        "node_name": "ask",
        "model_requested": "m",
        "model_answered": "m",
        "request": {"model": "m"},
        "usage": {},
    }
    first = cache.put_llm(key=key, occurrence=0, response={"content": "first"}, **fields)
    assert cache.get_llm(key, 1) is None
    assert cache.get_llm(key, 0).response == {"content": "first"}
    later = cache.put_llm(key=key, occurrence=0, response={"content": "a later answer"}, **fields)
    again = cache.put_llm(key=key, occurrence=0, response={"content": "first"}, **fields)
    cache.put_llm(key=key, occurrence=1, response={"content": "second"}, **fields)
    assert again.pk == first.pk  # the same answer is one entry
    assert later.pk != first.pk  # a different one is kept beside it, never over it
    assert cache.get_llm(key, 0).response == {"content": "first"}
    assert cache.get_llm(key, 0, pinned=later).response == {"content": "a later answer"}
    assert cache.get_llm(key, 1, pinned=later).response == {"content": "second"}  # not this call's
    assert cache.get_llm(key, 1).response == {"content": "second"}
    assert LLMCacheEntry.objects.filter(key=key).count() == 3
    # A read writes nothing: a run counts its hits once, at its end (cache.count_hits).
    assert LLMCacheEntry.objects.get(pk=first.pk).hit_count == 0


# --- failing loudly, over the real transport ------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [("garbage", "not JSON"), ("empty", "empty output")],
)
def test_unusable_model_output_fails_the_run_and_is_never_cached(
    serve_simulator, rewind_settings, option, message
):
    serve_simulator(**{option: True})
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED
    assert run.error.startswith("plan:") and message in run.error
    plan = step(run, "plan")
    assert plan.status == Node.Status.FAILED and message in plan.error
    assert not plan.output_sha256 and plan.output is None
    if option == "garbage":
        assert plan.raw_output.startswith("<<garbled output>>")
    else:
        assert plan.raw_output == ""
    assert Node.objects.filter(run=run).count() == 1
    assert LLMCacheEntry.objects.count() == 0
    assert not run.trajectory_sha256 and not run.artifact_path
    # Nothing was cached, so a healthy provider answers the same request afresh.
    rewind_settings.REWIND_LLM_BASE_URL = ""
    rewind_settings.REWIND_LLM_MODEL = ""
    again = execute_run(create_run("research").pk)
    assert again.status == Run.Status.COMPLETED, again.error
    assert step(again, "plan").cache_source == "live"


def test_nul_in_model_output_fails_the_node_alike_on_every_database(serve_simulator):
    simulator = serve_simulator()
    answer = json.dumps({"objective": "cut costs\x00", "steps": ["count"], "metric": "cost"})

    def respond(body: dict) -> tuple[int, dict]:
        status, response = Simulator.respond(simulator, body)
        response["choices"][0]["message"]["content"] = answer
        return status, response

    simulator.respond = respond
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED
    plan = step(run, "plan")
    assert plan is not None and plan.status == Node.Status.FAILED
    assert "NUL" in plan.error
    assert LLMCacheEntry.objects.count() == 0


def test_a_400_naming_response_format_is_retried_once_without_it(serve_simulator):
    simulator = serve_simulator(reject_response_format=True)
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    for name in LLM_NODES:
        assert "retried once without it" in step(run, name).cache_note, name
    assert len(simulator.requests) == 2 * len(LLM_NODES)
    assert [("response_format" in body) for body in simulator.requests] == [True, False] * 4


def test_a_substituted_model_is_recorded_and_flagged(serve_simulator):
    serve_simulator(substitute_model="other-model")
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    for name in LLM_NODES:
        node = step(run, name)
        assert node.model_requested == "rewind-sim-1"
        assert node.model_answered == "other-model"
        assert node.model_substituted is True
    for name in TOOL_NODES:
        assert step(run, name).model_substituted is False


def test_a_dead_provider_replays_cached_runs_and_fails_misses_at_once(
    research_run, run_fork, rewind_settings
):
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url()
    rewind_settings.REWIND_LLM_MODEL = "rewind-sim-1"
    assert_unchanged_replay(research_run, run_fork(research_run, "plan"))

    started = time.monotonic()
    # The run was the simulator's: the dead endpoint is asked only when the fork says so.
    fork = run_fork(
        research_run, "plan", "prompt", "Plan a study of phone outreach costs.", provider="endpoint"
    )
    assert time.monotonic() - started < 5
    assert fork.status == Run.Status.FAILED
    plan = step(fork, "plan")
    assert plan.status == Node.Status.FAILED
    assert "cannot reach" in plan.error and "connection refused" in plan.error
    assert "the base URL comes from REWIND_LLM_BASE_URL" in plan.error  # where it was set
    assert fork.error.startswith("plan:")
    assert Node.objects.filter(run=fork).count() == 1


# --- secrets --------------------------------------------------------------------------------


def database_dump() -> str:
    """Every row of every model of the runs app, as text."""
    rows = []
    for model in apps.get_app_config("runs").get_models():
        for values in model.objects.values():
            rows.append(json.dumps(values, default=str, ensure_ascii=False))
    return "\n".join(rows)


def test_the_api_key_never_lands_in_the_database(
    serve_simulator, rewind_settings, run_fork, monkeypatch
):
    canary = "sk-rewind-canary-7f3a9c1e5b"
    monkeypatch.setenv("REWIND_API_KEY", canary)
    serve_simulator()
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    fork = run_fork(run, "critique", "prompt", "List the weaknesses of this analysis.")
    assert fork.status == Run.Status.COMPLETED, fork.error
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url()
    failed = run_fork(run, "plan", "prompt", "Plan again.")
    assert failed.status == Run.Status.FAILED
    dump = database_dump()
    assert str(run.pk) in dump  # the dump really covers the rows
    assert canary not in dump
    for path in Path(rewind_settings.REWIND_ARTIFACT_DIR).iterdir():
        assert canary not in path.read_text(encoding="utf-8")


def test_credentials_in_the_base_url_never_land_in_the_database(
    research_run, run_fork, rewind_settings
):
    dead = closed_port_url().replace("http://", "http://rewind:pw-canary-93b1@")
    rewind_settings.REWIND_LLM_BASE_URL = dead
    rewind_settings.REWIND_LLM_MODEL = "rewind-sim-1"
    with pytest.raises(ForkError) as refused:  # the simulator's run, an endpoint configured
        create_fork(research_run, "plan", "prompt", "Plan again.")
    assert "127.0.0.1" in str(refused.value) and "pw-canary-93b1" not in str(refused.value)
    fork = run_fork(research_run, "plan", "prompt", "Plan again.", provider="endpoint")
    assert fork.status == Run.Status.FAILED
    assert "pw-canary-93b1" not in database_dump()


def test_cache_hits_are_counted_once_at_the_end_of_a_run_not_per_step(research_run):
    """Issue 10: a step's own work carries no bookkeeping. The hit counts of what a replay
    read are added in one UPDATE per table at the end of the run, and no step beats the
    heartbeat (the heartbeat thread does)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    before = {e.pk: e.hit_count for e in LLMCacheEntry.objects.all()}
    replay = create_fork(research_run, "plan")
    with CaptureQueriesContext(connection) as queries:
        replay = execute_run(replay.pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    read = [n for n in steps(replay) if n.kind == "llm"]
    after = {e.pk: e.hit_count for e in LLMCacheEntry.objects.all()}
    for node in read:
        pk = int(node.cache_entries[0].removeprefix("llm:"))
        assert after[pk] == before[pk] + 1, node.name
    statements = [q["sql"] for q in queries.captured_queries]
    cache_updates = [s for s in statements if s.startswith("UPDATE") and "cacheentry" in s]
    assert len(cache_updates) == 2  # llm and tool entries, once each, for all 8 steps
    run_updates = [s for s in statements if s.startswith("UPDATE") and '"runs_run"' in s]
    assert len(run_updates) <= 2  # claim and finish, whatever the number of steps
