from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.batches.suite import build_suite
from runs.engine.analysis.export import build_export, write_export
from runs.management.base import RewindCommand
from runs.models import Batch


class Command(RewindCommand):
    help = (
        "Export a completed run as a test: a self-contained pytest file and a JSON fixture of "
        "its recorded responses. The test replays the run offline in a throwaway database and "
        "asserts its trajectory hash; with --against, also the fields the diff changes. With "
        "--batch, a finished batch as a regression suite: one test per source run asserting "
        "its outcomes after the change, every fork replayed offline from one fixture."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", nargs="?", help="id of the run to export")
        parser.add_argument(
            "--against",
            metavar="PARENT",
            help="id of a run to diff against (usually RUN's parent): it is replayed too, and "
            "the test asserts the fields that differ from it to RUN",
        )
        parser.add_argument(
            "--batch",
            metavar="BATCH",
            help="id of a finished batch to export as a regression suite (instead of RUN)",
        )
        parser.add_argument(
            "--out",
            required=True,
            metavar="DIR",
            help="folder to write the test and its fixture into (created if missing)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        out = Path(options["out"])
        if options["batch"] is not None:
            if options["run"] is not None or options["against"] is not None:
                raise CommandError("--batch exports a batch: name no RUN and no --against")
            suite = build_suite(self.get_batch(options["batch"]))
            test, fixture = write_export(suite, out)
            asserted = suite.tests - suite.skipped
            skipped = (
                f", {suite.skipped} skipped (the change did not apply, or the fork did not complete)"
                if suite.skipped
                else ""
            )
            self.stdout.write(
                f"wrote {test}\nwrote {fixture}\n{suite.tests} test(s), one per source run: "
                f"{asserted} asserting outcomes{skipped}\nrun it offline: pytest {out}"
            )
            return
        if options["run"] is None:
            raise CommandError("name the RUN to export (or --batch BATCH)")
        run = self.get_run(options["run"])
        against = self.get_run(options["against"]) if options["against"] is not None else None
        export = build_export(run, against)
        test, fixture = write_export(export, out)
        self.stdout.write(f"wrote {test}\nwrote {fixture}\nrun it offline: pytest {out}")

    def get_batch(self, value: str) -> Batch:
        if not re.fullmatch(r"[0-9]{1,18}", str(value)):
            raise CommandError(f"batch ids are numbers, got {value!r}")
        try:
            return Batch.objects.get(pk=int(value))
        except Batch.DoesNotExist:
            raise CommandError(f"no batch {value}") from None
