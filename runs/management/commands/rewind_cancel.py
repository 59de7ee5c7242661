from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from runs.engine.execution.leases import cancel_run
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Cancel a queued or running run: a queued run is never started; a running one stops "
        "at once (the step in flight is recorded failed). Its finished steps stay, forkable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", help="id of the queued or running run to cancel")

    def handle(self, *args: Any, **options: Any) -> None:
        run = cancel_run(self.get_run(options["run"]), by="the command line (rewind_cancel)")
        self.stdout.write(f"run {run.pk} cancelled")
