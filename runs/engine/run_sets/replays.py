"""Batch replays (``rewind_replay``): unchanged replays of finished runs, judged as each one
finishes — a set of runs executed by ``execution.execute`` like every other.

In this process (``replay_here``), each source's replay is made just before it executes, so a
Ctrl-C leaves nothing queued for a source the batch never reached. On N queue workers
(``replay_on_workers``), every replay row is made here first (``create_replay``: queued), then
the set is executed by ``db_worker`` processes — the ones started for it and any other worker on
the same queue — and each replay is judged here as it finishes (``replay_verdict``). A Ctrl-C
withdraws the replays no worker took (``cancelled``); a replay whose worker died is resumed
once, then reported failed with the reason.

rewind_bench's ``batch_figure`` (``runs.bench.batches``) times ``replay_on_workers``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import close_old_connections, connection

from runs.engine.forking.replays import ReplayVerdict, create_replay, replay_verdict
from runs.engine.run_sets.execution import Execution, execute

if TYPE_CHECKING:
    from runs.models import Run

__all__ = ["BatchOutcome", "replay_here", "replay_on_workers", "replay_source"]

OnResult = Callable[[ReplayVerdict, int | None], None]


@dataclass
class BatchOutcome:
    """``results`` in the order the sources were given (sources never replayed — Ctrl-C — are
    missing); ``pids`` every worker process the batch started."""

    results: list[ReplayVerdict]
    interrupted: bool = False
    pids: list[int] = field(default_factory=list)
    startup_s: float = 0.0
    work_s: float = 0.0


def replay_source(
    source: Run, started: Callable[[int], None] | None = None, *, allow_network: bool = False
) -> ReplayVerdict:
    """Replay ``source`` unchanged to the end, in this process, and judge it. A Ctrl-C while it
    runs is raised again (``KeyboardInterrupt``) once the executor has withdrawn it."""
    replay = create_replay(source, allow_network=allow_network)
    if started is not None:
        started(replay.pk)
    executed = execute([replay.pk])
    if executed.interrupted:
        raise KeyboardInterrupt
    if replay.pk in executed.lost:
        return ReplayVerdict.failed(source.pk, replay.pk, executed.lost[replay.pk])
    return replay_verdict(source, executed.done[replay.pk])


def replay_here(
    sources: list[Run],
    replay_one: Callable[[Run], ReplayVerdict],
    on_result: OnResult | None = None,
) -> BatchOutcome:
    """Replay ``sources`` one after the other in this process (``replay_one``: usually
    ``replay_source``); Ctrl-C stops before the next source and reports what finished."""
    results: list[ReplayVerdict] = []
    pid = os.getpid()
    try:
        for source in sources:
            result = replay_one(source)
            results.append(result)
            if on_result is not None:
                on_result(result, pid)
            if not connection.in_atomic_block:  # a long batch: drop stale connections
                close_old_connections()
    except KeyboardInterrupt:
        return BatchOutcome(results=results, interrupted=True)
    return BatchOutcome(results=results)


def replay_on_workers(
    sources: list[Run],
    workers: int,
    *,
    on_result: OnResult | None = None,
    quiet: bool = False,
    allow_network: bool = False,
    judge: bool = True,
) -> BatchOutcome:
    """Replay ``sources`` on ``workers`` queue workers; ``on_result(result, pid)`` as each
    replay is judged (``pid`` of the worker process that executed it, ``None`` for a worker
    elsewhere). ``judge=False`` leaves the verdicts to the end (the bench times the workers)."""
    from runs.engine.execution.workers import check_queue

    how = Execution(workers=workers, quiet=quiet)  # a bad number: refused before the queue
    check_queue()  # before any replay row is written
    replays = [create_replay(source, allow_network=allow_network) for source in sources]
    source_of = {replay.pk: source for replay, source in zip(replays, sources, strict=True)}
    results: dict[int, ReplayVerdict] = {}

    def judged(run: Run) -> ReplayVerdict:
        results[run.pk] = replay_verdict(source_of[run.pk], run)
        return results[run.pk]

    def finished(run: Run, pid: int | None) -> None:
        if judge:
            result = judged(run)
            if on_result is not None:
                on_result(result, pid)

    executed = execute(list(source_of), how, on_done=finished)
    if not judge:
        for run in executed.done.values():
            judged(run)
    interrupted = executed.interrupted
    for pk, reason in executed.lost.items():
        results[pk] = ReplayVerdict.failed(source_of[pk].pk, pk, reason)
        if on_result is not None and not interrupted:
            try:
                on_result(results[pk], None)
            except KeyboardInterrupt:  # Ctrl-C while the last results are reported
                interrupted = True
    return BatchOutcome(
        results=[results[r.pk] for r in replays if r.pk in results],
        interrupted=interrupted,
        pids=executed.pids,
        startup_s=executed.startup_s,
        work_s=executed.work_s,
    )
