"""A stuck step never holds a worker (issue 16, item 2), with a real ``manage.py db_worker``:
one worker, a run whose step hangs for a minute, and another run queued behind it. The worker
gives up on the hanging step — at its timeout, or when the run is cancelled from another
process — and executes the next run while the hanging step still sleeps in its thread.

Committed rows (``django_db(transaction=True)``): the worker is another process.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django_tasks_db.models import DBTaskResult

from runs.engine.apps import registry
from runs.engine.execution.leases import cancel_run
from runs.engine.execution.new_runs import create_run
from runs.models import Run
from runs.tasks import enqueue_run
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
    (worker,) = db_workers(1, REWIND_PIPELINES=SLEEPER, REWIND_STEP_TIMEOUT=TIMEOUT)
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
    db_workers(1, REWIND_PIPELINES=SLEEPER, REWIND_STEP_TIMEOUT="3600")
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
