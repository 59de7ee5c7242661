"""A stuck step never holds a worker (issue 16, item 2; issue 34, item 6), with a real
``manage.py db_worker``: one worker, a run whose step hangs for a minute, and another run
queued behind it. The worker gives up on the hanging step — at its timeout, or when the run is
cancelled from another process — records it, and, since the step's thread still runs in it,
stops; the fresh worker its supervisor starts executes the next run. A step that spins the CPU
gets it back that way: the process that held it is gone.

Committed rows (``django_db(transaction=True)``): the worker is another process.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest
from django_tasks_db.models import DBTaskResult

from runs.engine.apps import registry
from runs.engine.execution import watch
from runs.engine.execution.leases import cancel_run
from runs.engine.execution.new_runs import create_run
from runs.models import Run
from runs.tasks import enqueue_run, recycle
from runs.tests.conftest import wait_for
from runs.tests.helpers import slow_apps

pytestmark = pytest.mark.django_db(transaction=True)

SLEEPER = "sleeper=runs.tests.helpers.slow_apps.sleeper"
# Long enough for a cold worker's first steps on a loaded machine (imports, connections),
# far shorter than the hang (60 s).
TIMEOUT = "10"


@pytest.fixture
def sleeper_settings(rewind_settings) -> Iterator:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **slow_apps.APPS}
    registry._load.cache_clear()
    yield rewind_settings
    registry._load.cache_clear()


def status(run: Run) -> str:
    return Run.objects.get(pk=run.pk).status


def test_a_worker_gives_up_a_hanging_step_at_its_timeout_and_runs_the_next(
    sleeper_settings, db_workers
):
    (worker,) = db_workers(
        1, supervised=True, REWIND_PIPELINES=SLEEPER, REWIND_STEP_TIMEOUT=TIMEOUT
    )
    stuck = create_run("sleeper", {})
    enqueue_run(stuck)
    behind = create_run("research")
    enqueue_run(behind)

    # The step hangs for 60 s; the worker is back long before that.
    wait_for(lambda: status(behind) == Run.Status.COMPLETED, timeout=50, what="the run behind")
    stuck.refresh_from_db()
    assert stuck.status == Run.Status.FAILED, worker.output()
    assert stuck.error == f"step `slow` exceeded the step timeout of {TIMEOUT} s"
    assert list(stuck.nodes.values_list("name", "status")) == [
        ("first", "completed"),
        ("slow", "failed"),
    ]
    tasks = dict(DBTaskResult.objects.values_list("args_kwargs__args__0", "status"))
    assert tasks == {stuck.pk: "SUCCESSFUL", behind.pk: "SUCCESSFUL"}


def test_cancelling_a_run_whose_step_hangs_frees_its_worker_at_once(sleeper_settings, db_workers):
    db_workers(1, supervised=True, REWIND_PIPELINES=SLEEPER, REWIND_STEP_TIMEOUT="3600")
    stuck = create_run("sleeper", {})
    enqueue_run(stuck)
    wait_for(lambda: stuck.nodes.filter(name="first").exists(), timeout=30, what="the first step")
    behind = create_run("research")
    enqueue_run(behind)

    cancel_run(stuck, by="dev")  # from this process, as the dashboard would

    wait_for(lambda: status(behind) == Run.Status.COMPLETED, timeout=45, what="the run behind")
    stuck.refresh_from_db()
    assert stuck.status == Run.Status.CANCELLED
    assert stuck.error == "cancelled by dev"
    assert stuck.nodes.get(name="first").status == "completed"
    assert not stuck.nodes.filter(name="last").exists()


SPINNER = "spinner=runs.tests.helpers.slow_apps.spinner"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (Linux /proc), or -1 once it is gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return -1.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_worker_whose_abandoned_step_spins_the_cpu_is_recycled(sleeper_settings, db_workers):
    workers = db_workers(1, supervised=True, REWIND_PIPELINES=SPINNER, REWIND_STEP_TIMEOUT="3")
    first = workers[0]
    stuck = create_run("spinner", {})
    enqueue_run(stuck)
    behind = create_run("research")
    enqueue_run(behind)

    wait_for(lambda: status(behind) == Run.Status.COMPLETED, timeout=60, what="the run behind")
    stuck.refresh_from_db()
    assert stuck.status == Run.Status.FAILED
    assert stuck.error == "step `slow` exceeded the step timeout of 3 s"
    # The worker that held the spinning step stopped once it had recorded it, and with it the
    # loop: it uses no CPU any more. The run behind ran in its replacement.
    wait_for(lambda: first.popen.poll() is not None, timeout=20, what="the first worker's exit")
    assert first.popen.returncode == 0, first.output()
    assert cpu_seconds(first.pid) == -1.0
    assert "the worker stops after this task" in first.output()
    assert len(workers) == 2 and workers[1].popen.poll() is None
    tasks = dict(DBTaskResult.objects.values_list("args_kwargs__args__0", "status"))
    assert tasks == {stuck.pk: "SUCCESSFUL", behind.pk: "SUCCESSFUL"}


def test_recycling_can_be_turned_off(sleeper_settings, db_workers):
    (worker,) = db_workers(
        1, REWIND_PIPELINES=SPINNER, REWIND_STEP_TIMEOUT="3", REWIND_RECYCLE_WORKERS="false"
    )
    stuck = create_run("spinner", {})
    enqueue_run(stuck)
    wait_for(lambda: status(stuck) == Run.Status.FAILED, timeout=60, what="the timeout")
    time.sleep(1.5)
    assert worker.popen.poll() is None  # kept (its CPU still held by the loop)
    assert "stops after this task" not in worker.output()


def test_a_process_that_is_no_queue_worker_is_never_stopped(sleeper_settings):
    slow_apps.RELEASE.clear()
    thread = threading.Thread(target=slow_apps.hang, daemon=True)
    thread.start()
    watch._abandoned.append(thread)
    try:
        assert watch.still_running() == [thread.name]
        assert recycle() is False  # this test process: its SIGTERM handler is nobody's loop
    finally:
        slow_apps.RELEASE.set()
        thread.join(5)
    assert watch.still_running() == []
