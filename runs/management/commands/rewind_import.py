from __future__ import annotations

import time
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.imports.service import ImportReport, import_path, import_persister
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Import history Burr kept: a tracker directory (~/.burr, one project's or one app's "
        "directory, as .with_tracker('local') writes them) or, with --persister, the table a "
        "Burr state persister wrote. Each app becomes a run (steps, states, spans, LLM calls "
        "from GenAI spans, fork lineage, sub-applications). Importing again adds only what is "
        "new; --follow keeps watching and imports steps as they are written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", help="Burr's tracker directory (or a part of it)")
        parser.add_argument(
            "--pipeline",
            help="the registered app forks of these runs go through (default: the project's name)",
        )
        parser.add_argument("--project", help="the project these apps belong to (default: "
                            "the directory's name)")  # fmt: skip
        parser.add_argument("--app-id", help="import only this app")
        parser.add_argument(
            "--persister",
            metavar="URL",
            help="a Burr persister database instead of PATH: sqlite:///file.db or "
            "postgresql://user@host/db",
        )
        parser.add_argument("--table", default="burr_state", help="the persister's table")
        parser.add_argument(
            "--follow", action="store_true", help="keep watching PATH (Ctrl-C stops)"
        )
        parser.add_argument(
            "--interval", type=float, default=1.0, help="seconds between looks with --follow"
        )
        parser.add_argument(
            "--max-line",
            type=int,
            metavar="BYTES",
            help="the longest line of a log (or JSON file) read; a longer one is refused "
            "(default: 64 MiB)",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        path, persister = options["path"], options["persister"]
        if bool(path) == bool(persister):
            raise CommandError("give a tracker PATH or --persister URL (one of them)")
        if persister:
            if options["follow"]:
                raise CommandError("--follow watches a tracker directory, not a persister")
            report = import_persister(
                persister, options["table"], pipeline=options["pipeline"],
                app_id=options["app_id"],
            )  # fmt: skip
            return self._print(report, options["json"])
        if options["max_line"] is not None and options["max_line"] < 1:
            raise CommandError("--max-line must be at least 1 byte")
        kwargs = {k: options[k] for k in ("pipeline", "project", "app_id", "max_line")}
        if not options["follow"]:
            return self._print(import_path(path, **kwargs), options["json"])
        if options["interval"] <= 0:
            raise CommandError("--interval must be above 0 seconds")
        self._follow(path, kwargs, options["interval"], options["json"])

    def _follow(self, path: str, kwargs: dict, interval: float, as_json: bool) -> None:
        """Import, then look again every ``interval`` seconds; print what each look found."""
        first = True
        try:
            while True:
                report = import_path(path, following=True, **kwargs)
                if first or report.imported or report.updated or report.errors:
                    self._print(report, as_json)
                    self.stdout.flush()
                first = False
                time.sleep(interval)
        except KeyboardInterrupt:
            self.stderr.write("rewind_import: stopped following")

    def _print(self, report: ImportReport, as_json: bool) -> None:
        if as_json:
            self.print_json(report.as_json())
            return
        for kind, runs in (("imported", report.imported), ("updated", report.updated)):
            if runs:
                self.stdout.write(f"{kind} {len(runs)} run(s): {', '.join(map(str, runs))}")
        if report.skipped:
            self.stdout.write(f"{report.skipped} already imported, nothing new")
        for error in report.errors:
            self.stderr.write(f"error: {error}")
