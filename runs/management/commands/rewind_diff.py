from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from runs.engine.diff import diff_runs, format_diff
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = "Field-level diff of two runs: first divergence, per-node hashes, artifacts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run_a", help="id of the first run")
        parser.add_argument("run_b", help="id of the second run")
        parser.add_argument("--json", action="store_true", help="print the diff as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        result = diff_runs(self.get_run(options["run_a"]), self.get_run(options["run_b"]))
        if options["json"]:
            self.print_json(result)
        else:
            self.stdout.write(format_diff(result))
