from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from runs.engine.analysis.export import build_export, write_export
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Export a completed run as a test: a self-contained pytest file and a JSON fixture of "
        "its recorded responses. The test replays the run offline in a throwaway database and "
        "asserts its trajectory hash; with --against, also the fields the diff changes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", help="id of the run to export")
        parser.add_argument(
            "--against",
            metavar="PARENT",
            help="id of a run to diff against (usually RUN's parent): it is replayed too, and "
            "the test asserts the fields that differ from it to RUN",
        )
        parser.add_argument(
            "--out",
            required=True,
            metavar="DIR",
            help="folder to write the test and its fixture into (created if missing)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run = self.get_run(options["run"])
        against = self.get_run(options["against"]) if options["against"] is not None else None
        export = build_export(run, against)
        out = Path(options["out"])
        test, fixture = write_export(export, out)
        self.stdout.write(f"wrote {test}\nwrote {fixture}\nrun it offline: pytest {out}")
