"""Cancel (issue 16, item 2): a queued run is never started; a running one stops at once —
whatever its step is doing — and is ``cancelled``, its finished steps intact and forkable;
``cancelled`` is a finished status everywhere a status is read.

The executing run and the canceller are different threads with their own connections, as a
worker and the dashboard are different processes: these tests commit for real.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from runs.engine.apps import registry
from runs.engine.errors import RewindError
from runs.engine.execution.leases import (
    RunFinished,
    cancel_run,
    mark_interrupted_runs,
    resume_run,
)
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run, finish_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import replay_verdict
from runs.live.changes import Cursor
from runs.models import BurrState, Node, Run
from runs.tasks import execute_run_task
from runs.tests.helpers import slow_apps

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def slow_settings(rewind_settings) -> Iterator:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **slow_apps.APPS}
    rewind_settings.REWIND_STEP_TIMEOUT = 3600  # only the cancel stops the hanging step
    rewind_settings.REWIND_STEP_TIMEOUTS = {}
    registry._load.cache_clear()
    slow_apps.STARTED.clear()
    slow_apps.RELEASE.clear()
    yield rewind_settings
    slow_apps.RELEASE.set()
    registry._load.cache_clear()


def cancel_when_the_step_hangs(run_id: int) -> threading.Thread:
    """In another thread (its own connection): wait for the hanging step, then cancel the
    run with ``rewind_cancel``."""
    errors: list[BaseException] = []

    def cancel() -> None:
        try:
            assert slow_apps.STARTED.wait(30), "the slow step never started"
            call_command("rewind_cancel", str(run_id), stdout=open("/dev/null", "w"))
        except BaseException as exc:  # noqa: BLE001 — re-raised by the test
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=cancel, name="canceller")
    thread.errors = errors  # type: ignore[attr-defined]
    thread.start()
    return thread


def let_go(run: Run) -> None:
    slow_apps.RELEASE.set()
    for thread in threading.enumerate():
        if thread.name == f"run-{run.pk}-steps":
            thread.join(timeout=30)
            assert not thread.is_alive()


def steps(run: Run) -> list[tuple[str, str]]:
    return list(run.nodes.order_by("sequence_id").values_list("name", "status"))


@pytest.mark.parametrize("pipeline", ["sleeper", "async_sleeper"])
def test_cancelling_a_running_run_stops_it_at_once_and_keeps_its_finished_steps(
    slow_settings, pipeline
):
    run = create_run(pipeline, {})
    canceller = cancel_when_the_step_hangs(run.pk)
    run = execute_run(run.pk)  # returns although the step still hangs
    canceller.join(timeout=30)
    assert not canceller.errors

    assert run.status == Run.Status.CANCELLED
    assert run.error == "cancelled by the command line (rewind_cancel)"
    assert run.finished_at is not None
    assert steps(run) == [("first", "completed"), ("slow", "failed")]
    assert run.nodes.get(name="slow").error.startswith("cancelled while it ran")

    let_go(run)  # the step finishes after all: it writes nothing
    assert steps(run) == [("first", "completed"), ("slow", "failed")]
    rows = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
    assert list(rows.values_list("sequence_id", "status")) == [(0, "completed"), (1, "failed")]
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_a_cancelled_run_can_be_forked_from_its_finished_steps(slow_settings):
    run = create_run("sleeper", {})
    canceller = cancel_when_the_step_hangs(run.pk)
    run = execute_run(run.pk)
    canceller.join(timeout=30)
    let_go(run)  # from now on slow returns at once

    fork = execute_run(create_fork(run, "slow", "state.a", 41, from_text=False).pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert steps(fork) == [("first", "completed"), ("slow", "completed"), ("last", "completed")]
    assert fork.nodes.get(name="first").cache_source == Node.CacheSource.INHERITED
    assert fork.nodes.get(name="last").output == {"c": 43}


def test_a_queued_run_cancelled_is_never_started(slow_settings):
    run = create_run("sleeper", {})
    cancel_run(run, by="dev")
    assert execute_run_task.call(run.pk) == Run.Status.CANCELLED
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert run.started_at is None
    assert not run.nodes.exists()
    assert not slow_apps.STARTED.is_set()


def test_a_finished_run_cannot_be_cancelled(research_run):
    with pytest.raises(RunFinished, match=f"run {research_run.pk} is completed; only a queued"):
        cancel_run(research_run, by="dev")
    research_run.refresh_from_db()
    assert research_run.status == Run.Status.COMPLETED


def test_a_run_that_ends_after_its_cancel_stays_cancelled(run_row):
    run = run_row(status=Run.Status.RUNNING)
    cancel_run(run, by="dev")
    finish_run(run, Run.Status.COMPLETED)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert run.error == "cancelled by dev"


def test_a_cancelled_run_is_never_marked_interrupted_nor_resumed(run_row, settings):
    run = run_row(status=Run.Status.RUNNING, heartbeat_at=timezone.now() - timedelta(hours=1))
    cancel_run(run, by="dev")
    assert mark_interrupted_runs() == []
    with pytest.raises(RewindError, match="only an interrupted run can be resumed"):
        resume_run(run)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_cancelled_counts_as_finished(run_row):
    run = run_row(status=Run.Status.CANCELLED)
    assert run.is_finished
    assert Cursor(0, Run.Status.CANCELLED).finished  # live updates and the stream stop


def test_a_cancelled_replay_gets_the_failed_verdict_with_the_reason(research_run, run_row):
    replay = run_row(parent=research_run, status=Run.Status.CANCELLED, error="cancelled by dev")
    verdict = replay_verdict(research_run, replay)
    assert verdict.verdict == "failed"
    assert verdict.error == "cancelled by dev"
