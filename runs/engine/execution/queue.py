"""The run queue, through Django's Tasks framework: ``execute_run_task`` (a queued run, executed
by whichever worker takes it), ``enqueue_run`` (once the run's rows commit: a worker on another
machine must never look for a run that does not exist yet), ``recycle`` (a worker that holds a
step it gave up on stops after its task) and ``reap_dead_runs`` (runs whose worker died).

``runs.tasks`` names every task of the app; the engine enqueues through this module, never
through ``runs.tasks``, which imports the engine.
"""

from __future__ import annotations

import logging
import signal

from django.db import transaction
from django.tasks import TaskResultStatus, task
from django.utils import timezone

from runs.engine.execution.leases import mark_interrupted_runs
from runs.engine.execution.runner import execute_run
from runs.models import Run

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
