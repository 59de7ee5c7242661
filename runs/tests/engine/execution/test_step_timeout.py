"""The step timeout (issue 16, item 2): a step that hangs fails the run, naming the step, and
never writes anything afterwards; the limit is ``REWIND_STEP_TIMEOUT``, per pipeline
``REWIND_STEP_TIMEOUTS`` or a declared ``Pipeline``'s ``step_timeout``.

The hanging step waits on ``slow_apps.RELEASE``; each test lets it go at the end and waits
for its thread to end, so what the abandoned step tries to write is really tried. Timing is
never asserted: only what was written.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.core.exceptions import ImproperlyConfigured

from runs.engine.apps import registry
from runs.engine.apps.specs import Pipeline
from runs.engine.errors import PipelineError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import BurrState, Edge, Node, Run, ToolCacheEntry
from runs.tests.helpers import slow_apps

# Seconds: long enough for the quick steps on a loaded machine (the first step of a test
# process also imports the capture's adapters), far shorter than the hang (60 s).
TIMEOUT = 3
EXCEEDED = f"step `slow` exceeded the step timeout of {TIMEOUT} s"


@pytest.fixture
def slow_settings(rewind_settings) -> Iterator:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **slow_apps.APPS}
    rewind_settings.REWIND_STEP_TIMEOUT = TIMEOUT
    rewind_settings.REWIND_STEP_TIMEOUTS = {}
    registry._load.cache_clear()
    slow_apps.STARTED.clear()
    slow_apps.RELEASE.clear()
    yield rewind_settings
    slow_apps.RELEASE.set()  # never leave a step hanging
    registry._load.cache_clear()


def let_go(run: Run) -> None:
    """Release the abandoned step and wait until its thread has ended (it tried to write)."""
    slow_apps.RELEASE.set()
    for thread in threading.enumerate():
        if thread.name == f"run-{run.pk}-steps":
            thread.join(timeout=30)
            assert not thread.is_alive(), "the abandoned step's thread did not end"


def steps(run: Run) -> list[tuple[str, str]]:
    return list(run.nodes.order_by("sequence_id").values_list("name", "status"))


def state_rows(run: Run) -> list[tuple[int, str]]:
    rows = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
    return list(rows.values_list("sequence_id", "status"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("pipeline", ["sleeper", "async_sleeper"])
def test_a_step_that_outlasts_the_timeout_fails_the_run_naming_it(slow_settings, pipeline):
    run = execute_run(create_run(pipeline, {}).pk)

    assert run.status == Run.Status.FAILED
    assert run.error == EXCEEDED
    assert steps(run) == [("first", "completed"), ("slow", "failed")]
    slow = run.nodes.get(name="slow")
    assert slow.error == EXCEEDED
    assert slow.inputs["reads"] == {"a": 1}  # what the step started from
    assert state_rows(run) == [(0, "completed"), (1, "failed")]

    let_go(run)
    # The step went on and finished: nothing of it was written, and nothing after it ran.
    assert steps(run) == [("first", "completed"), ("slow", "failed")]
    assert state_rows(run) == [(0, "completed"), (1, "failed")]
    assert Edge.objects.filter(run=run).count() == 1
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED


@pytest.mark.django_db(transaction=True)
def test_an_abandoned_step_stores_no_cache_entry_and_no_artifact(slow_settings):
    run = execute_run(create_run("hanging", {}).pk)
    assert run.status == Run.Status.FAILED, run.error
    assert run.error == EXCEEDED
    entries = ToolCacheEntry.objects.count()  # the first step's

    let_go(run)
    assert ToolCacheEntry.objects.count() == entries
    assert not ToolCacheEntry.objects.filter(tool="slow").exists()
    assert steps(run) == [("start", "completed"), ("slow", "failed")]
    assert not (slow_settings.REWIND_ARTIFACT_DIR / f"{run.pk}.md").exists()


def test_inside_a_transaction_the_caller_keeps_its_connection(slow_settings, db):
    """A caller inside a transaction of its own (here: the test's) cannot take a fresh
    connection; the abandoned step's statements are refused on the shared one."""
    run = execute_run(create_run("sleeper", {}).pk)
    assert run.status == Run.Status.FAILED
    assert steps(run) == [("first", "completed"), ("slow", "failed")]

    let_go(run)
    assert steps(run) == [("first", "completed"), ("slow", "failed")]
    assert state_rows(run) == [(0, "completed"), (1, "failed")]


@pytest.mark.django_db(transaction=True)
def test_a_pipeline_may_set_its_own_step_timeout(slow_settings):
    slow_settings.REWIND_STEP_TIMEOUT = 3600
    run = execute_run(create_run("hanging_quick", {}).pk)
    let_go(run)
    assert run.status == Run.Status.FAILED
    assert run.error == EXCEEDED


@pytest.mark.django_db(transaction=True)
def test_a_registered_burr_app_gets_its_timeout_from_rewind_step_timeouts(slow_settings):
    slow_settings.REWIND_STEP_TIMEOUT = 3600
    slow_settings.REWIND_STEP_TIMEOUTS = {"sleeper": 2.5}
    run = execute_run(create_run("sleeper", {}).pk)
    let_go(run)
    assert run.status == Run.Status.FAILED
    assert run.error == "step `slow` exceeded the step timeout of 2.5 s"


@pytest.mark.django_db(transaction=True)
def test_steps_within_the_timeout_complete(slow_settings):
    slow_apps.RELEASE.set()  # slow returns at once
    run = execute_run(create_run("sleeper", {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    assert steps(run) == [("first", "completed"), ("slow", "completed"), ("last", "completed")]


@pytest.mark.django_db(transaction=True)
def test_a_timed_out_run_can_be_forked_at_the_step_that_hung(slow_settings):
    from runs.engine.forking.forks import create_fork

    run = execute_run(create_run("sleeper", {}).pk)
    let_go(run)  # from now on slow returns at once
    fork = execute_run(create_fork(run, "slow", None, None).pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert steps(fork) == [("first", "completed"), ("slow", "completed"), ("last", "completed")]
    assert fork.nodes.get(name="first").cache_source == Node.CacheSource.INHERITED


def test_a_declared_pipeline_refuses_a_step_timeout_that_is_not_positive():
    with pytest.raises(PipelineError, match="step_timeout"):
        Pipeline(
            name="p",
            description="",
            nodes=slow_apps.hanging.nodes,
            transitions=slow_apps.hanging.transitions,
            entrypoint="start",
            inputs={"n": 1},
            step_timeout=0,
        )


@pytest.mark.parametrize("value", ["research", "research=soon", "research=0", "=5", "a=nan"])
def test_rewind_step_timeouts_refuses_a_bad_entry(monkeypatch, value):
    from rewind_site.env import env_seconds

    monkeypatch.setenv("REWIND_STEP_TIMEOUTS", value)
    with pytest.raises(ImproperlyConfigured, match="REWIND_STEP_TIMEOUTS"):
        env_seconds("REWIND_STEP_TIMEOUTS", minimum=0.1, maximum=86400)


def test_rewind_step_timeouts_reads_seconds_per_pipeline(monkeypatch):
    from rewind_site.env import env_seconds

    monkeypatch.setenv("REWIND_STEP_TIMEOUTS", "research=30, chatbot=1.5")
    assert env_seconds("REWIND_STEP_TIMEOUTS", minimum=0.1, maximum=86400) == {
        "research": 30.0,
        "chatbot": 1.5,
    }
