"""Leases: a running run's worker beats its heartbeat; a run whose heartbeat is older than
the lease belongs to a dead worker and is marked interrupted — a lease, not a guess."""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import DatabaseError, connection

from runs.engine.errors import RewindError
from runs.models import Run

logger = logging.getLogger("rewind.runner")


class Heartbeat:
    """Writes ``Run.heartbeat_at`` every lease/3 seconds while a run executes, even in the
    middle of a long provider call. A running run whose heartbeat is older than the lease
    belongs to a dead worker (``mark_interrupted_runs``) — a lease, not a guess.

    Between beats it reads the run's status every ``POLL_SECONDS``: once the run is
    cancelled (from the dashboard, the API or ``rewind_cancel``, in any process),
    ``cancelled`` holds why, and the run stops waiting for its steps
    (``runs.engine.execution.watch``). A read that fails (a busy database) is tried again
    at the next poll."""

    POLL_SECONDS = 0.25

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.interval = max(0.5, settings.REWIND_RUN_LEASE_SECONDS / 3)
        self.cancelled: str | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)

    def _beat(self) -> None:
        beaten = time.monotonic()
        try:
            while not self._stopped.wait(min(self.POLL_SECONDS, self.interval)):
                if time.monotonic() - beaten >= self.interval:
                    beaten = time.monotonic()
                    try:
                        Run.objects.beat(self.run_id)
                    except DatabaseError as exc:
                        logger.warning("run %s: heartbeat not written: %s", self.run_id, exc)
                if self.cancelled is None:
                    self._look()
        finally:
            connection.close()  # this thread's own connection

    def _look(self) -> None:
        try:
            found = Run.objects.status_of(self.run_id)
        except DatabaseError as exc:
            logger.debug("run %s: status not read (%s); reading it again", self.run_id, exc)
            return
        if found is not None and found[0] == Run.Status.CANCELLED:
            self.cancelled = found[1] or "cancelled"


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


def cancel_run(run: Run, by: str) -> Run:
    """Cancel a queued or running run (``by`` says who, in its error): a queued run is never
    started; a running one stops at once — its worker stops waiting for the step in flight,
    which is recorded failed and can write nothing more. Its finished steps stay: it can be
    forked from any of them."""
    if not Run.objects.cancel(run.pk, f"cancelled by {by}"):
        run.refresh_from_db()
        raise RunFinished(
            f"run {run.pk} is {run.status}; only a queued or running run can be cancelled"
        )
    run.refresh_from_db()
    return run


class RunFinished(RewindError):
    """The run has already finished: there is nothing to cancel."""
