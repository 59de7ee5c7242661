"""Leases: a running run's worker beats its heartbeat; a run whose heartbeat is older than
the lease belongs to a dead worker and is marked interrupted — a lease, not a guess."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import connection

from runs.engine.errors import RewindError
from runs.models import Run

logger = logging.getLogger("rewind.runner")


class Heartbeat:
    """Writes ``Run.heartbeat_at`` every lease/3 seconds while a run executes, even in the
    middle of a long provider call. A running run whose heartbeat is older than the lease
    belongs to a dead worker (``mark_interrupted_runs``) — a lease, not a guess."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.interval = max(0.5, settings.REWIND_RUN_LEASE_SECONDS / 3)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)

    def _beat(self) -> None:
        try:
            while not self._stopped.wait(self.interval):
                Run.objects.beat(self.run_id)
        finally:
            connection.close()  # this thread's own connection


def mark_interrupted_runs() -> list[int]:
    """Mark every running run whose worker stopped beating as ``interrupted``; never leave a
    run ``running`` forever. Its completed steps stay: it can be resumed or forked."""
    lease = settings.REWIND_RUN_LEASE_SECONDS
    ids = Run.objects.interrupt_stale(lease)
    if ids:
        logger.warning("marked runs %s interrupted: no heartbeat for %s s", ids, lease)
    return ids


def resume_run(run: Run) -> Run:
    """Queue an interrupted run again; it continues after its last completed step."""
    if not Run.objects.requeue(run.pk):
        run.refresh_from_db()
        raise RewindError(f"run {run.pk} is {run.status}; only an interrupted run can be resumed")
    run.refresh_from_db()
    return run
