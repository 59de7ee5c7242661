from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from runs.engine.analysis.report import run_json
from runs.management.base import RewindCommand, format_run


class Command(RewindCommand):
    help = (
        "Print a run: its steps, totals, outcomes and forks. --json prints the same object as "
        "rewind_run --json and GET /api/runs/<run>."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", help="id of the run to show")
        parser.add_argument("--json", action="store_true", help="print the run as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        data = run_json(self.get_run(options["run"]))
        if options["json"]:
            self.print_json(data)
        else:
            self.stdout.write(format_run(data))
