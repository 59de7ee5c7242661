"""Issue 7, finding 10: a replay of run R reproduces R — also when R ran live at a temperature
above 0, or was a stability sample. Every answer a call ever got is kept as its own cache
entry and each step pins the entries it used; a replay reads exactly those."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import LLMCacheEntry, Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db


def command(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def replay_all_json() -> dict:
    return json.loads(command("rewind_replay", "--all", "--json"))


def test_the_issue_reproduction_a_replay_of_a_live_fork_at_temperature_0_7_is_identical(
    rewind_settings,
):
    first = json.loads(command("rewind_run", "--temperature", "0.7", "--json"))
    live = json.loads(
        command("rewind_fork", str(first["run"]), "--node", "compose", "--live", "--json")
    )
    compose = next(n for n in live["nodes"] if n["name"] == "compose")
    original = next(n for n in first["nodes"] if n["name"] == "compose")
    assert compose["output_sha256"] != original["output_sha256"]  # the live answer jittered

    replay = json.loads(command("rewind_replay", str(live["run"]), "--json"))["results"][0]

    assert replay["verdict"] == "identical", replay
    assert replay["total_tokens"] == 0


def test_replay_all_after_stability_samples_is_identical_at_zero_tokens(rewind_settings):
    source = json.loads(command("rewind_run", "--temperature", "0.8", "--json"))
    command("rewind_stability", str(source["run"]), "-k", "3")
    assert LLMCacheEntry.objects.count() > 4  # the samples' answers are kept beside the first

    report = replay_all_json()  # raises CommandError (exit 1) if any replay diverged

    assert report["requested"] == 4
    assert {r["verdict"] for r in report["results"]} == {"identical"}
    assert sum(r["total_tokens"] for r in report["results"]) == 0


def test_a_new_fork_reads_the_sources_answers_and_new_keys_take_the_first_entry(
    rewind_settings,
):
    source = execute_run(create_run("research", temperature="0.9").pk)
    live = execute_run(create_fork(source, "plan", live=True).pk)
    # A cache-mode fork of the *source* reads the source's answers, not the live ones.
    fork = execute_run(create_fork(source, "plan").pk)
    assert fork.trajectory_sha256 == source.trajectory_sha256
    # A fork of the live run reads the live run's answers.
    again = execute_run(create_fork(live, "critique").pk)
    assert again.trajectory_sha256 == live.trajectory_sha256
    # A fresh run has no source: every call reads its key's first answer, the source's.
    fresh = execute_run(create_run("research", temperature="0.9").pk)
    assert fresh.trajectory_sha256 == source.trajectory_sha256
    assert sum(n.total_tokens for n in fresh.nodes.all()) == 0


NODES = st.sampled_from(ORDER)
OVERRIDES = st.sampled_from(
    [
        None,
        ("analyse", "args.cost_scale", "2.5"),
        ("analyse", "args.region", "east"),
        ("plan", "temperature", "0.5"),
    ]
)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("run"), st.sampled_from(["0", "0.7"])),
        st.tuples(st.just("live-fork"), st.integers(0, 5), NODES, OVERRIDES),
        st.tuples(st.just("fork"), st.integers(0, 5), NODES, OVERRIDES),
        st.tuples(st.just("sample"), st.integers(0, 5)),
    ),
    min_size=1,
    max_size=5,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(operations=OPERATIONS)
def test_any_sequence_of_runs_live_forks_and_samples_replays_identically(
    rewind_settings, operations
):
    """Property: whatever was run, forked live or sampled, replaying every completed run then
    gives "identical" for each, at 0 tokens."""
    made: list[Run] = [execute_run(create_run("research", temperature="0.7").pk)]
    for operation in operations:
        kind, *rest = operation
        if kind == "run":
            made.append(execute_run(create_run("research", temperature=rest[0]).pk))
            continue
        source = made[rest[0] % len(made)]
        if kind == "sample":
            made.append(execute_run(create_fork(source, "0", live=True).pk))
            continue
        node, override = rest[1], rest[2]
        if source.status != Run.Status.COMPLETED or not source.nodes.filter(name=node).exists():
            continue
        field, value = (
            (override[1], override[2]) if override and override[0] == node else (None, None)
        )
        made.append(
            execute_run(create_fork(source, node, field, value, live=kind == "live-fork").pk)
        )

    for run in made:
        if run.status != Run.Status.COMPLETED:
            continue
        verdict = replay_verdict(run, execute_run(create_replay(run).pk))
        assert verdict.verdict == "identical", (operations, run.pk, verdict)
        assert verdict.total_tokens == 0


def test_replay_all_exits_non_zero_when_a_replay_really_diverges(rewind_settings):
    """The property above could pass by never diverging at all: a deleted answer must show."""
    run = execute_run(create_run("research", temperature="0.7").pk)
    LLMCacheEntry.objects.filter(node_name="compose").delete()

    with pytest.raises(CommandError, match="1 of 1 replay"):
        command("rewind_replay", str(run.pk))
