"""Background execution through Django's Tasks framework.

Work is enqueued only after the rows it reads have committed (``transaction.on_commit``):
a worker on another machine must never look for a run that does not exist yet.
"""

from __future__ import annotations

import logging
import signal

from django.db import transaction
from django.tasks import TaskResultStatus, task
from django.utils import timezone

from runs.engine.execution.leases import mark_interrupted_runs
from runs.engine.execution.runner import execute_run
from runs.models import Batch, Run

logger = logging.getLogger("rewind")


@task()
def execute_run_task(run_id: int) -> str:
    # Every worker that picks up work also looks for runs whose worker died.
    reap_dead_runs()
    status = execute_run(run_id).status
    recycle()
    return status


def recycle() -> bool:
    """Stop this queue worker once the task in hand is recorded, when a step it gave up on (a
    step timeout, a cancel) is still running in it: Python cannot stop that thread, and a
    pure-Python loop would keep the interpreter — the worker's next runs — for itself. The
    worker is asked to stop as SIGTERM asks it (it finishes this task, then exits 0); whatever
    supervises it starts a fresh one: ``rewind_serve``'s supervisor, ``rewind_replay
    --workers``' and ``rewind_batch --workers``' batches, systemd or Kubernetes for a
    ``db_worker`` deployment. Off with ``REWIND_RECYCLE_WORKERS=false``; not in a process that
    is no ``db_worker`` (a command executing runs itself, a test)."""
    from django.conf import settings

    from runs.engine.execution.watch import still_running

    threads = still_running()
    if not threads or not settings.REWIND_RECYCLE_WORKERS:
        return False
    handler = signal.getsignal(signal.SIGTERM)
    owner = getattr(handler, "__self__", None)
    if owner is None or not type(owner).__module__.startswith("django_tasks_db"):
        return False  # not a queue worker's main loop: nothing to stop
    logger.warning(
        "rewind: a step this worker gave up on is still running (%s): the worker stops after "
        "this task so that a fresh one takes its place",
        ", ".join(threads),
    )
    signal.raise_signal(signal.SIGTERM)
    return True


def enqueue_run(run: Run) -> None:
    transaction.on_commit(lambda: execute_run_task.enqueue(run.pk))


@task()
def execute_batch_task(batch_id: int) -> str:
    """A regression replay's runs, in an interpreter started for them (``run_sets.fresh``):
    this worker may have imported the app before its code was edited, and must not run the
    old code as the new. One task for the batch; its runs stay ordinary runs."""
    from runs.engine.run_sets.fresh import execute_in_fresh_process

    reap_dead_runs()
    outcome = execute_in_fresh_process(batch_id)
    return outcome.reason or f"exited ({outcome.returncode})"


def enqueue_batch(batch: Batch) -> None:
    """Queue a regression batch as one task, once its rows commit."""
    transaction.on_commit(lambda: execute_batch_task.enqueue(batch.pk))


def reap_dead_runs() -> list[int]:
    """Mark runs whose worker died as interrupted, and close their task rows: a worker killed
    with SIGKILL leaves its task ``RUNNING`` for ever, and the queue has no lease of its own."""
    from django_tasks_db.models import DBTaskResult

    run_ids = mark_interrupted_runs()
    if run_ids:
        DBTaskResult.objects.filter(
            status=TaskResultStatus.RUNNING,
            task_path=execute_run_task.module_path,
            args_kwargs__args__0__in=run_ids,
        ).update(status=TaskResultStatus.FAILED, finished_at=timezone.now())
    return run_ids


@task()
def bisect_task(
    good_id: int, bad_id: int, outcome: str, user_id: int, budget: int | None = None
) -> dict:
    """A bisect asked for on the compare page, in a worker: at most ``budget`` forks (None:
    the engine's default), each opened within the user's daily budget and executed here, one
    after another. The result is not stored: the page recomputes it from the forks
    (``bisect.replay``, with the same budget); what this returns (the result, or ``{"error"}``:
    a fork refused or failed) only tells the page why it stopped."""
    from django.contrib.auth import get_user_model

    from runs.budgets import open_within_budget
    from runs.engine.errors import RewindError
    from runs.engine.run_sets.bisect import bisect

    user = get_user_model().objects.get(pk=user_id)
    good, bad = Run.objects.get(pk=good_id), Run.objects.get(pk=bad_id)
    try:
        result = bisect(
            good,
            bad,
            outcome,
            opener=lambda fork: open_within_budget(user, fork, "this fork"),
            budget=budget,
        )
    except RewindError as exc:
        return {"error": str(exc)}
    return result.as_json()
