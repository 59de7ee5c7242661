"""How the commands that make a set of runs (``rewind_batch``, ``rewind_regress``,
``rewind_stability``) execute them:
in this process one after another (the default), on N queue workers started for it
(``--workers N``), or handed to the task queue (``--enqueue``) — with a progress bar on a
terminal either way."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser
from django.db import close_old_connections, connection

from runs.engine.execution.runner import LoadedApp, execute_run
from runs.engine.execution.workers import run_on_workers
from runs.management.run_sets import add_execution, read_execution
from runs.models import Run
from runs.tasks import enqueue_run


class BatchExecution:
    """A mixin for ``RewindCommand``s that execute many runs."""

    stderr: Any
    from_shell: bool

    def add_batch_execution_arguments(self, parser: CommandParser) -> None:
        """``--workers N`` and ``--enqueue`` (``runs.management.run_sets``)."""
        add_execution(parser, noun="batch's runs", enqueued=" (the batch's page shows them)")

    def check_batch_execution(self, options: dict[str, Any]) -> None:
        """Before anything is written: the options agree (a refusal exits 2)."""
        read_execution(options)

    def execute_batch(self, ids: list[int], options: dict[str, Any]) -> bool:
        """Execute (or enqueue) the runs ``ids``; True when Ctrl-C interrupted them."""
        if options["enqueue"]:
            for run in Run.objects.filter(pk__in=ids):
                enqueue_run(run)
            return False
        if options["workers"] is not None:
            outcome = run_on_workers(
                ids,
                options["workers"],
                progress=self.progress_bar(len(ids)),
                quiet=self.from_shell,
            )
            return outcome.interrupted
        return self.execute_here(ids)

    def execute_here(self, ids: list[int], *, app: LoadedApp | None = None) -> bool:
        """Execute the batch's runs one after another in this process (``app``: their app as
        the caller resolved it, once); Ctrl-C withdraws those not started (cancelled) and
        returns True."""
        tick = self.progress_bar(len(ids))
        for index, pk in enumerate(ids):
            try:
                run = execute_run(pk, on_step=None, app=app)
            except KeyboardInterrupt:
                Run.objects.withdraw(ids[index:], "withdrawn: the batch was interrupted (Ctrl-C)")
                return True
            if tick is not None:
                tick(run)
            if not connection.in_atomic_block:  # a long batch: drop stale connections
                close_old_connections()
        return False

    def progress_bar(self, total: int):
        """A bar on a terminal (stderr) as each run of the batch finishes; silent otherwise."""
        if not self.stderr.isatty() or not total:
            return None
        done = [0]

        def tick(item: Any) -> None:
            run = getattr(item, "run", item)  # a worker's Done, or a run
            done[0] += 1
            filled = int(24 * done[0] / total)
            self.stderr.write(
                f"\r[{'#' * filled}{'.' * (24 - filled)}] {done[0]}/{total} "
                f"run {run.pk}: {run.status}   ",
                ending="" if done[0] < total else "\n",
            )
            self.stderr.flush()

        return tick
