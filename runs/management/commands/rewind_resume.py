from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.report import run_json
from runs.engine.runner import execute_run, mark_interrupted_runs, resume_run
from runs.management.base import RewindCommand, format_run
from runs.tasks import enqueue_run


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
        marked = mark_interrupted_runs()
        if options["run"] is None:
            self.stdout.write(
                f"marked interrupted: {', '.join(map(str, marked))}" if marked else "no dead runs"
            )
            return
        run = resume_run(self.get_run(options["run"]))
        if options["enqueue"]:
            enqueue_run(run)
        else:
            run = execute_run(run.pk, on_step=self.progress())
        data = run_json(run)
        if options["json"]:
            self.print_json(data)
        else:
            self.stdout.write(format_run(data))
        if not options["enqueue"] and run.status != run.Status.COMPLETED:
            raise CommandError(f"run {run.pk} {run.status}: {run.error}")
