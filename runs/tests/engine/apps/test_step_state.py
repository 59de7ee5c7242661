"""What a step did, not only what it declared (issue 15, item 7): its output is every key it
changed; an ``append`` to a key it does not read is an input it had, not non-determinism;
state beyond JSON goes through Burr's serde and comes back as its types on a fork; a value
nothing can store fails the step, naming the step and the key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from runs.engine.analysis.diff import diff_runs
from runs.engine.apps import registry
from runs.engine.apps.state import restored_state
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Node, Run
from runs.tests.helpers import state_apps
from runs.tests.helpers.state_apps import Outline

APPS = {
    name: f"runs.tests.helpers.state_apps.{name}"
    for name in ("undeclared", "appender", "typed", "unstorable")
}


@pytest.fixture
def apps(rewind_settings, db) -> Iterator[None]:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def run(name: str) -> Run:
    return execute_run(create_run(name, {}).pk)


def test_an_undeclared_write_is_the_steps_output_and_its_replay_is_not_called_identical(apps):
    source = run("undeclared")
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="answer")
    assert set(step.output) == {"content"} and step.output["content"].startswith("What time")

    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)
    assert verdict.verdict != "identical"
    diff = diff_runs(source, replay)
    assert diff.first_divergence["node"] == "answer"
    assert [f["path"] for f in diff.first_divergence["fields"]] == ["content"]
    assert "answer" in [n["node"] for n in diff.nondeterministic]


def test_an_append_to_a_key_not_read_is_an_input_not_nondeterminism(apps):
    source = run("appender")
    assert source.status == Run.Status.COMPLETED, source.error
    signed = source.nodes.get(name="sign")
    assert signed.inputs["prior"] == {"history": ["hello"]}
    assert signed.output == {"history": ["hello", "-- signed"]}

    fork = execute_run(create_fork(source, "greet", "state.greeting", "hi").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    diff = diff_runs(source, fork)
    assert diff.first_divergence["node"] == "greet"
    assert not diff.nondeterministic, diff.nondeterministic
    replay = execute_run(create_replay(source).pk)
    assert replay_verdict(source, replay).verdict == "identical"


def test_pydantic_dataclass_datetime_and_bytes_are_stored_and_come_back_as_their_types(apps):
    source = run("typed")
    assert source.status == Run.Status.COMPLETED, source.error
    extended = source.nodes.get(name="extend")
    assert extended.output["outline"]["__burr_serde__"] == "pydantic"
    assert extended.output["stamp"]["__burr_serde__"] == "rewind.dataclass"
    assert source.nodes.get(name="summarise").output == {"summary": "outreach: 2 sections"}

    replay = execute_run(create_replay(source).pk)
    assert replay_verdict(source, replay).verdict == "identical"
    # A fork of the second step starts from the stored state: the action asserts the types.
    fork = execute_run(create_fork(source, "summarise").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.nodes.get(name="summarise").output == {"summary": "outreach: 2 sections"}
    assert state_apps.Outline  # the module the stored class names is importable


def test_a_value_nothing_can_store_fails_the_step_naming_step_and_key(apps):
    failed = run("unstorable")
    assert failed.status == Run.Status.FAILED
    step = failed.nodes.get(name="tag")
    assert step.status == Node.Status.FAILED
    assert "state key 'tags' holds a builtins.set" in step.error
    assert failed.error.startswith("tag: ")


def test_a_custom_field_serde_is_used_to_store_and_restore_a_key(apps, rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "custom": "runs.tests.helpers.state_apps.custom",
    }
    registry._load.cache_clear()
    source = run("custom")
    assert source.status == Run.Status.COMPLETED, source.error
    assert source.nodes.get(name="use").output == {"said": "kept: hello"}
    fork = execute_run(create_fork(source, "use").pk)  # starts from the stored document
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.nodes.get(name="use").output == {"said": "kept: hello"}


def test_an_async_step_that_leaves_an_unstorable_value_fails_naming_the_key(apps, rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "unstorable_async": "runs.tests.helpers.state_apps.unstorable_async",
    }
    registry._load.cache_clear()
    failed = run("unstorable_async")
    assert failed.status == Run.Status.FAILED
    step = failed.nodes.get(name="tag")
    assert step.status == Node.Status.FAILED
    assert "state key 'tags' holds a builtins.set" in step.error


def test_restoring_a_stored_state_leaves_the_stored_values_as_they_were(apps):
    """Burr's pydantic deserialiser pops its markers from the dict it is given: restoring a
    run's inputs or a step's output must not change them for the next reader (the run that
    executed is returned with the inputs its forks copy)."""
    source = run("typed")
    stored = source.nodes.get(name="extend").output
    before = json.loads(json.dumps(stored))
    restored = restored_state(stored)
    assert isinstance(restored["outline"], Outline)
    assert stored == before
    assert source.inputs == Run.objects.get(pk=source.pk).inputs
