"""How the commands that make a set of runs (``rewind_batch``, ``rewind_regress``,
``rewind_stability``) execute them, through ``run_sets.execution.execute``:
in this process one after another (the default), on N queue workers started for it
(``--workers N``), or handed to the task queue (``--enqueue``) — with a progress bar on a
terminal either way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.management.base import CommandParser

from runs.engine.execution.runner import LoadedApp
from runs.engine.run_sets.execution import Execution, execute
from runs.management.run_sets import add_execution, read_execution
from runs.models import Run

if TYPE_CHECKING:
    from runs.models import Batch


class BatchExecution:
    """A mixin for ``RewindCommand``s that execute many runs: their options turned into an
    ``Execution`` for ``run_sets.execution.execute``, the one executor, with a progress bar."""

    stderr: Any
    from_shell: bool

    def add_batch_execution_arguments(self, parser: CommandParser) -> None:
        """``--workers N`` and ``--enqueue`` (``runs.management.run_sets``)."""
        add_execution(parser, noun="batch's runs", enqueued=" (the batch's page shows them)")

    def check_batch_execution(self, options: dict[str, Any]) -> None:
        """Before anything is written: the options agree (a refusal exits 2)."""
        read_execution(options)

    def execution(self, options: dict[str, Any]) -> Execution:
        """Where the runs execute, as the options say (workers quiet under a shell)."""
        return Execution(
            workers=options["workers"], enqueue=options["enqueue"], quiet=self.from_shell
        )

    def execute_batch(
        self,
        ids: list[int],
        options: dict[str, Any],
        *,
        app: LoadedApp | None = None,
        batch: Batch | None = None,
    ) -> bool:
        """Execute (or enqueue) the runs ``ids``; True when Ctrl-C interrupted them. ``app``:
        their app as the caller resolved it, once (in this process only); ``batch``: the batch
        they make (a regression batch is enqueued as one task)."""
        how = self.execution(options)
        tick = self.progress_bar(len(ids)) if not how.enqueue else None
        executed = execute(ids, how, app=app if how.here else None, on_done=tick, batch=batch)
        return executed.interrupted

    def progress_bar(self, total: int):
        """A bar on a terminal (stderr) as each run of the batch finishes; silent otherwise."""
        if not self.stderr.isatty() or not total:
            return None
        done = [0]

        def tick(run: Run, pid: int | None = None) -> None:
            done[0] += 1
            filled = int(24 * done[0] / total)
            self.stderr.write(
                f"\r[{'#' * filled}{'.' * (24 - filled)}] {done[0]}/{total} "
                f"run {run.pk}: {run.status}   ",
                ending="" if done[0] < total else "\n",
            )
            self.stderr.flush()

        return tick
