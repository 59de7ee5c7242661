"""The task queue's side of a set of runs: a queued regression batch is one task,
``execute_batch_task``, whose worker does not execute the batch's runs itself but starts an
interpreter that imports the app as it is on disk now (``fresh``); ``enqueue_batch`` queues it
once the batch's rows commit."""

from __future__ import annotations

from django.db import transaction
from django.tasks import task

from runs.engine.execution.queue import reap_dead_runs
from runs.engine.run_sets.fresh import execute_in_fresh_process
from runs.models import Batch


@task()
def execute_batch_task(batch_id: int) -> str:
    """A regression replay's runs, in an interpreter started for them (``run_sets.fresh``):
    this worker may have imported the app before its code was edited, and must not run the
    old code as the new. One task for the batch; its runs stay ordinary runs."""
    reap_dead_runs()
    outcome = execute_in_fresh_process(batch_id)
    return outcome.reason or f"exited ({outcome.returncode})"


def enqueue_batch(batch: Batch) -> None:
    """Queue a regression batch as one task, once its rows commit."""
    transaction.on_commit(lambda: execute_batch_task.enqueue(batch.pk))
