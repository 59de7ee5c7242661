"""The one executor of sets of runs (``run_sets.execution.execute``): here in the order given
with the caller's app, Ctrl-C withdrawing what had not started, enqueued as a task per run or a
regression batch as one task, and the two ways at once refused."""

from __future__ import annotations

import os

import pytest
from django_tasks_db.models import DBTaskResult

from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import RewindError
from runs.engine.execution import runner
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import LoadedApp
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.execution import Execution, execute
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Run
from runs.tasks import execute_batch_task, execute_run_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(rewind_settings) -> list[int]:
    """Three queued runs of the demo pipeline."""
    return [create_run("research", {"region": r}).pk for r in ("west", "east", "north")]


@pytest.fixture
def lookups(monkeypatch) -> list[str]:
    """Every pipeline a run looks up for itself (the runner's ``get_pipeline``)."""
    seen: list[str] = []

    def counting(name: str):
        seen.append(name)
        return get_pipeline(name)

    monkeypatch.setattr(runner, "get_pipeline", counting)
    return seen


def test_here_executes_in_the_order_given_and_reports_each_with_this_pid(queued):
    order = [queued[2], queued[0], queued[1]]
    reported: list[tuple[int, int | None]] = []

    executed = execute(order, on_done=lambda run, pid: reported.append((run.pk, pid)))

    assert reported == [(pk, os.getpid()) for pk in order]
    assert list(executed.done) == order
    assert [run.pk for run in executed.runs(queued)] == queued
    assert {run.status for run in executed.done.values()} == {Run.Status.COMPLETED}
    assert not executed.interrupted and not executed.lost and not executed.withdrawn
    assert executed.queued == [] and executed.pids == []


def test_the_callers_app_is_handed_to_every_run_so_none_looks_it_up(queued, lookups):
    execute(queued[:1])
    assert lookups == ["research"]  # without an app: the run looks it up itself

    lookups.clear()
    executed = execute(queued[1:], app=LoadedApp("research", get_pipeline("research")))

    assert lookups == []
    assert {run.status for run in executed.done.values()} == {Run.Status.COMPLETED}


def test_ctrl_c_withdraws_the_runs_not_started_and_says_so(queued):
    def interrupt(run: Run, pid: int | None) -> None:
        raise KeyboardInterrupt

    executed = execute(queued, on_done=interrupt)

    assert executed.interrupted
    assert list(executed.done) == queued[:1]
    assert executed.withdrawn == queued[1:]
    statuses = dict(Run.objects.filter(pk__in=queued).values_list("pk", "status"))
    assert statuses == {
        queued[0]: Run.Status.COMPLETED,
        queued[1]: Run.Status.CANCELLED,
        queued[2]: Run.Status.CANCELLED,
    }
    assert "interrupted (Ctrl-C)" in Run.objects.get(pk=queued[2]).error


def test_enqueue_queues_one_task_per_run_in_the_order_given(
    queued, django_capture_on_commit_callbacks
):
    order = list(reversed(queued))
    with django_capture_on_commit_callbacks(execute=True):
        executed = execute(order, Execution(enqueue=True))

    assert executed.queued == order and not executed.done
    tasks = DBTaskResult.objects.order_by("enqueued_at", "id")
    assert [t.task_path for t in tasks] == [execute_run_task.module_path] * 3
    assert [t.args_kwargs["args"] for t in tasks] == [[pk] for pk in order]
    assert set(Run.objects.filter(pk__in=queued).values_list("status", flat=True)) == {
        Run.Status.QUEUED
    }


def test_enqueue_of_a_regression_batch_queues_the_batch_as_one_task(
    run_pipeline, django_capture_on_commit_callbacks
):
    sources = [run_pipeline("research", {"region": r}) for r in ("west", "east")]
    batch = make_batch(
        plan_regression(RegressionRequest(Selection(runs=tuple(r.pk for r in sources))))
    )
    ids = list(Run.objects.filter(parent__in=sources).values_list("pk", flat=True))
    assert len(ids) == 2

    with django_capture_on_commit_callbacks(execute=True):
        executed = execute(ids, Execution(enqueue=True), batch=batch)

    assert executed.queued == ids
    (task,) = DBTaskResult.objects.all()
    assert task.task_path == execute_batch_task.module_path
    assert task.args_kwargs["args"] == [batch.pk]


def test_workers_and_enqueue_at_once_are_refused():
    with pytest.raises(RewindError, match="choose one"):
        Execution(workers=1, enqueue=True)
