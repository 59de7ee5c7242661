"""A set's runs executed in this process, one after another, in the order given — what
``execution.execute`` does by default, and what a regression batch's fresh interpreter does
(``fresh``) — and ``Executed``, what happened to every run of a set, whichever way it ran."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import close_old_connections, connection

from runs.engine.errors import RewindError
from runs.engine.execution.runner import LoadedApp, execute_run
from runs.models import Run

OnDone = Callable[[Run, int | None], None]


@dataclass
class Executed:
    """What happened to a set's runs: ``done`` (id → the finished run, in the order they
    finished), ``lost`` (id → why it could not finish: its worker died twice), ``withdrawn``
    (never started: Ctrl-C), ``queued`` (handed to the task queue), ``pids`` (the worker
    processes started for the set), and the workers' ``startup_s`` and ``work_s``."""

    done: dict[int, Run] = field(default_factory=dict)
    lost: dict[int, str] = field(default_factory=dict)
    withdrawn: list[int] = field(default_factory=list)
    queued: list[int] = field(default_factory=list)
    interrupted: bool = False
    pids: list[int] = field(default_factory=list)
    startup_s: float = 0.0
    work_s: float = 0.0

    def runs(self, ids: list[int]) -> list[Run]:
        """The finished runs among ``ids``, in that order."""
        return [self.done[pk] for pk in ids if pk in self.done]


def execute_here(
    ids: list[int], *, app: LoadedApp | None = None, on_done: OnDone | None = None
) -> Executed:
    """Execute the queued runs ``ids`` here, in order; ``app``: their app as the set's planner
    resolved it (no run looks it up again); ``on_done(run, pid)`` as each finishes. Ctrl-C
    withdraws the runs not started (``cancelled``) and says so (``interrupted``); a run another
    process took first is ``lost``, with the reason, and the set goes on."""
    executed = Executed()
    pid = os.getpid()
    for index, pk in enumerate(ids):
        try:
            try:
                run = execute_run(pk, on_step=None, app=app)
            except RewindError as exc:  # another process took it first: not this set's to run
                executed.lost[pk] = str(exc)
                continue
            executed.done[pk] = run
            if on_done is not None:
                on_done(run, pid)
        except KeyboardInterrupt:
            rest = [p for p in ids[index:] if p not in executed.done]
            executed.withdrawn = Run.objects.withdraw(
                rest, "withdrawn: the batch was interrupted (Ctrl-C)"
            )
            executed.interrupted = True
            return executed
        if not connection.in_atomic_block:  # a long set: drop stale connections
            close_old_connections()
    return executed
