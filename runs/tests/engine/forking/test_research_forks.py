"""Forks and replays of the demo ``research`` pipeline (DESIGN.md, Forking and the determinism
rules), against the offline simulator: unchanged replays byte-identical, forks with an override
of each kind recomputing what follows, rejected overrides writing nothing, a live fork never
overwriting the cache.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from django.db.models import Sum

from runs.engine.errors import ForkError, OverrideError
from runs.engine.execution.new_runs import create_run
from runs.engine.forking.forks import create_fork
from runs.lib.hashing import content_sha256
from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.pipelines.research import ORDER
from runs.tests.helpers.research_runs import (
    artifact_bytes,
    assert_unchanged_replay,
    state_rows,
    step,
    steps,
)

pytestmark = pytest.mark.django_db


# --- helpers --------------------------------------------------------------------------------


def table_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Run, Node, Edge, BurrState, LLMCacheEntry, ToolCacheEntry)
    }


def llm_entries() -> dict[tuple[str, int], dict]:
    return {(e.key, e.occurrence): e.response for e in LLMCacheEntry.objects.all()}


def user_message(node: Node) -> str:
    return next(m["content"] for m in node.prompt if m["role"] == "user")


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
