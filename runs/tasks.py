"""Background execution through Django's Tasks framework.

Work is enqueued only after the rows it reads have committed (``transaction.on_commit``):
a worker on another machine must never look for a run that does not exist yet.
"""

from __future__ import annotations

from django.db import transaction
from django.tasks import task

from runs.engine.runner import execute_run, mark_interrupted_runs
from runs.models import Run


@task()
def execute_run_task(run_id: int) -> str:
    # Every worker that picks up work also looks for runs whose worker died.
    mark_interrupted_runs()
    return execute_run(run_id).status


def enqueue_run(run: Run) -> None:
    transaction.on_commit(lambda: execute_run_task.enqueue(run.pk))
