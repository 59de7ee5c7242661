"""The app's background tasks, through Django's Tasks framework — where each is defined:

- ``execute_run_task``, ``enqueue_run``, ``recycle``, ``reap_dead_runs``: the run queue
  (``runs.engine.execution.queue``);
- ``execute_batch_task``, ``enqueue_batch``: a regression batch, executed by an interpreter
  started for it (``runs.engine.run_sets.queue``, ``fresh``);
- ``bisect_task``: a bisect asked for on the compare page, within the user's budget (here: it
  needs the app's users and budgets, which the engine does not know).

Work is enqueued only after the rows it reads have committed (``transaction.on_commit``).
"""

from __future__ import annotations

from django.tasks import task

from runs.engine.execution.queue import enqueue_run, execute_run_task, reap_dead_runs, recycle
from runs.engine.run_sets.queue import enqueue_batch, execute_batch_task
from runs.models import Run

__all__ = [
    "bisect_task",
    "enqueue_batch",
    "enqueue_run",
    "execute_batch_task",
    "execute_run_task",
    "reap_dead_runs",
    "recycle",
]


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
