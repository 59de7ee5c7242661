from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from runs.engine.execution.leases import resume_run
from runs.management.base import RewindCommand
from runs.tasks import reap_dead_runs


class Command(RewindCommand):
    help = (
        "Resume an interrupted run after its last completed step (its worker died). "
        "Without RUN, only mark runs whose worker stopped beating as interrupted and list them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", nargs="?", help="id of the interrupted run to resume")
        parser.add_argument("--enqueue", action="store_true", help="hand it to the task queue")
        parser.add_argument("--json", action="store_true", help="print the run as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        marked = reap_dead_runs()
        if options["run"] is None:
            self.stdout.write(
                f"marked interrupted: {', '.join(map(str, marked))}" if marked else "no dead runs"
            )
            return
        self.execute_and_report(resume_run(self.get_run(options["run"])), options)
