"""Batch replays (``rewind_replay``): one source at a time in this process, or on N queue
workers (``--workers N``, issue 17: ``runs.engine.execution.workers.run_on_workers``).

On workers, every replay row is made here first (``create_replay``: queued), then the batch is
executed by ``db_worker`` processes — the ones started for it and any other worker on the same
queue — and each replay is judged here as it finishes (``replay_verdict``). A Ctrl-C withdraws
the replays no worker took (``cancelled``), so a source the batch never reached leaves nothing
queued; a replay whose worker died is resumed once, then reported failed with the reason.

``batch_figure`` measures rewind_bench's figure: the throughput of cached replays on 2 queue
workers ÷ on 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runs.engine.execution.workers import MAX_WORKERS, Done, check_workers, run_on_workers

if TYPE_CHECKING:
    from runs.models import Run

__all__ = ["MAX_WORKERS", "check_workers", "replay_on_workers", "replay_source"]


def replay_source(
    source: Run, started: Callable[[int], None] | None = None, *, allow_network: bool = False
) -> dict[str, Any]:
    """Replay ``source`` unchanged to the end and judge it (``replay_verdict``)."""
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.replays import create_replay, replay_verdict

    replay = create_replay(source, allow_network=allow_network)
    if started is not None:
        started(replay.pk)
    return replay_verdict(source, execute_run(replay.pk))


def failed_result(run: int, replay: int | None, error: str) -> dict[str, Any]:
    """A ``replay_verdict``-shaped result for a replay no verdict could be given for."""
    return {
        "run": run,
        "replay": replay,
        "verdict": "failed",
        "first_divergence": None,
        "nodes": 0,
        "total_tokens": 0,
        "live_nodes": [],
        "trajectory_equal": False,
        "artifact_equal": False,
        "error": error,
        "nondeterministic": [],
        "code_changed": [],
        "escaped": [],
    }


@dataclass
class BatchOutcome:
    """``results`` in the order the sources were given (sources never replayed — Ctrl-C — are
    missing); ``pids`` every worker process the batch started."""

    results: list[dict[str, Any]]
    interrupted: bool = False
    pids: list[int] = field(default_factory=list)
    startup_s: float = 0.0
    work_s: float = 0.0


def replay_on_workers(
    sources: list[Run],
    workers: int,
    *,
    on_result: Callable[[dict[str, Any], int | None], None] | None = None,
    quiet: bool = False,
    allow_network: bool = False,
    judge: bool = True,
) -> BatchOutcome:
    """Replay ``sources`` on ``workers`` queue workers; ``on_result(result, pid)`` as each
    replay is judged (``pid`` of the worker process that executed it, ``None`` for a worker
    elsewhere). ``judge=False`` leaves the verdicts to the end (the bench times the workers)."""
    from runs.engine.execution.workers import check_queue
    from runs.engine.forking.replays import create_replay, replay_verdict

    check_workers(workers)
    check_queue()  # before any replay row is written
    replays = [create_replay(source, allow_network=allow_network) for source in sources]
    source_of = {replay.pk: source for replay, source in zip(replays, sources, strict=True)}
    results: dict[int, dict[str, Any]] = {}

    def judged(done: Done) -> dict[str, Any]:
        result = replay_verdict(source_of[done.run.pk], done.run)
        results[done.run.pk] = result
        return result

    def finished(done: Done) -> None:
        if judge:
            result = judged(done)
            if on_result is not None:
                on_result(result, done.pid)

    outcome = run_on_workers(list(source_of), workers, progress=finished, quiet=quiet)
    if not judge:
        for done in outcome.done.values():
            judged(done)
    interrupted = outcome.interrupted
    for pk, reason in outcome.lost.items():
        results[pk] = failed_result(source_of[pk].pk, pk, reason)
        if on_result is not None and not interrupted:
            try:
                on_result(results[pk], None)
            except KeyboardInterrupt:  # Ctrl-C while the last results are reported
                interrupted = True
    return BatchOutcome(
        results=[results[r.pk] for r in replays if r.pk in results],
        interrupted=interrupted,
        pids=outcome.pids,
        startup_s=outcome.startup_s,
        work_s=outcome.work_s,
    )
