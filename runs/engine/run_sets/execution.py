"""How a set of runs executes: the one executor of batches, regression replays, grids, stability
samples, bisect probes and batch replays.

``execute(ids, how)`` takes runs already made (``queued``) and executes them:

- **here** (``Execution()``, the default): in this process, one after another, in the order
  given (a crossed grid's second fork follows its first; a bisect probe follows the one before);
  ``app``, the set's app as its planner resolved it once, is handed to each run so none looks
  it up again. Ctrl-C withdraws the runs not started (``cancelled``) and says so
  (``interrupted``);
- **on N workers** (``Execution(workers=N)``): ``execution.workers.run_on_workers`` starts N
  queue workers for the set, every one a fresh interpreter;
- **enqueued** (``Execution(enqueue=True)``): handed to the task queue once their rows commit —
  each run as a task, except a regression batch's, which is one task whose worker executes the
  batch in an interpreter started for it (``run_sets.fresh``: a long-lived worker never runs
  old code as new). Nothing is waited for.

Whichever way, ``on_done(run, pid)`` is called in this process as each run finishes (``pid``:
the process that executed it; ``None`` for a worker elsewhere), and ``Executed`` accounts for
every run: done, lost (with the reason: its worker died twice, or another process took it
first), withdrawn, or queued.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.engine.errors import RewindError
from runs.engine.execution.queue import enqueue_run
from runs.engine.execution.runner import LoadedApp
from runs.engine.execution.workers import check_workers, run_on_workers
from runs.engine.run_sets.here import Executed, OnDone, execute_here
from runs.engine.run_sets.queue import enqueue_batch
from runs.models import Batch, Run

__all__ = ["HERE", "Executed", "Execution", "execute"]


@dataclass(frozen=True)
class Execution:
    """Where a set's runs execute: here (neither set), on ``workers`` queue workers started for
    it, or ``enqueue``d; ``quiet``: the workers' own logging kept off a terminal."""

    workers: int | None = None
    enqueue: bool = False
    quiet: bool = False

    def __post_init__(self) -> None:
        if self.workers is not None and self.enqueue:
            raise RewindError("--workers and --enqueue ask for two ways at once: choose one")
        if self.workers is not None:
            check_workers(self.workers)

    @property
    def here(self) -> bool:
        return self.workers is None and not self.enqueue


HERE = Execution()


def execute(
    ids: list[int],
    how: Execution = HERE,
    *,
    app: LoadedApp | None = None,
    on_done: OnDone | None = None,
    batch: Batch | None = None,
) -> Executed:
    """Execute the queued runs ``ids`` the way ``how`` says (see the module); ``batch``: the
    batch they belong to, when they are one (a regression batch is enqueued as one task)."""
    if how.enqueue:
        return _enqueue(ids, batch)
    if how.workers is not None:
        return _on_workers(ids, how, on_done)
    return execute_here(ids, app=app, on_done=on_done)


def _on_workers(ids: list[int], how: Execution, on_done: OnDone | None) -> Executed:
    def finished(done) -> None:
        if on_done is not None:
            on_done(done.run, done.pid)

    outcome = run_on_workers(ids, how.workers or 1, progress=finished, quiet=how.quiet)
    return Executed(
        done={pk: done.run for pk, done in outcome.done.items()},
        lost=dict(outcome.lost),
        withdrawn=list(outcome.withdrawn),
        interrupted=outcome.interrupted,
        pids=list(outcome.pids),
        startup_s=outcome.startup_s,
        work_s=outcome.work_s,
    )


def _enqueue(ids: list[int], batch: Batch | None) -> Executed:
    if batch is not None and batch.is_regression:
        enqueue_batch(batch)  # one task: a fresh interpreter for the batch
    else:
        runs = Run.objects.in_bulk(ids)
        for pk in ids:  # in the order given
            enqueue_run(runs[pk])
    return Executed(queued=list(ids))
