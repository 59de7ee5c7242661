from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from runs.engine.retention import PruneRequest, plan_prune, prune
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Keep history bounded: remove the runs older than DAYS — each lineage (a run with its "
        "forks, replays and samples, and the sub-applications it spawned) whole, once every "
        "run in it is older — with their steps, states and edges, the batches and grids made "
        "only of them, then every cache entry and blob no remaining run refers to. Short "
        "transactions; --dry-run counts without deleting. Default DAYS: REWIND_RETENTION_DAYS."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=float,
            default=None,
            metavar="DAYS",
            help="remove lineages whose every run is older than DAYS "
            "(default: REWIND_RETENTION_DAYS)",
        )
        parser.add_argument(
            "--keep-outcome-failures",
            action="store_true",
            help="keep a lineage in which a run failed an outcome's check",
        )
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")
        parser.add_argument("--json", action="store_true", help="print what went as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["older_than"]
        if days is None:
            days = settings.REWIND_RETENTION_DAYS
        if days is None:
            raise CommandError(
                "give --older-than DAYS, or set REWIND_RETENTION_DAYS: nothing is removed "
                "without an age"
            )
        request = PruneRequest(days, keep_outcome_failures=options["keep_outcome_failures"])
        plan = plan_prune(request)
        report, record = prune(
            plan, dry_run=options["dry_run"], progress=self.progress_line(plan.runs)
        )
        data = {
            "dry_run": options["dry_run"],
            "older_than_days": days,
            "cutoff": plan.cutoff.isoformat(),
            "keep_outcome_failures": request.keep_outcome_failures,
            **report.as_json(),
            "prune": record.pk if record else None,
        }
        if options["json"]:
            self.print_json(data)
            return
        verb = "would remove" if options["dry_run"] else "removed"
        self.stdout.write(
            f"{verb} {report.runs} run(s) in {report.lineages} lineage(s) created before "
            f"{plan.cutoff:%Y-%m-%d %H:%M} UTC: {report.steps} step(s), {report.states} state "
            f"row(s), {report.batches} batch(es), {report.grids} grid(s), "
            f"{report.cache_entries} cache entr(y/ies), {report.blobs} blob(s) "
            f"({report.blob_bytes / 1e6:.1f} MB)"
            + (f"; kept {report.kept} old lineage(s) still referred to" if report.kept else "")
        )

    def progress_line(self, total: int):
        if not self.stderr.isatty() or not total:
            return None

        def show(done: int, total: int) -> None:
            self.stderr.write(f"\r{done}/{total} runs", ending="" if done < total else "\n")
            self.stderr.flush()

        return show
