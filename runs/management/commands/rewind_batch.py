from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import close_old_connections, connection

from runs.engine.analysis.batches import (
    BatchRequest,
    Selection,
    batch_result,
    batch_run_ids,
    make_batch,
    plan_batch,
)
from runs.engine.analysis.batches.request import parse_set, parse_where
from runs.engine.analysis.batches.results import BatchResult
from runs.engine.execution.runner import execute_run
from runs.engine.execution.workers import MAX_WORKERS, check_workers, run_on_workers
from runs.management.base import RewindCommand
from runs.models import Run
from runs.tasks import enqueue_run


class Command(RewindCommand):
    help = (
        "Batch counterfactual: apply one change (a step's field set to a value, or to each of "
        "several) to a selection of recorded runs — each fork an ordinary fork — and report, "
        "per source, each outcome before → after and whether it flipped; per outcome the flip "
        "rate with a 95 % Wilson interval. With --samples K each source is sampled K times "
        "and each flip judged beyond- or within-noise. Stored and shown at /batches/<id>/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", nargs="+", default=[], help="ids of the source runs")
        parser.add_argument(
            "--pipeline", default="", help="every completed root run of this pipeline"
        )
        parser.add_argument(
            "--where",
            nargs="+",
            action="extend",
            default=[],
            metavar="input.NAME=VALUE",
            help="narrow --pipeline to runs whose input NAME is VALUE (repeatable)",
        )
        parser.add_argument(
            "--node", required=True, help="the step to change (name, name#k or step number)"
        )
        parser.add_argument(
            "--set", required=True, metavar="FIELD=VALUE", help="the change, e.g. args.region=east"
        )
        parser.add_argument(
            "--values", nargs="+", default=[], help="more values of the same field, one fork each"
        )
        parser.add_argument(
            "--samples", type=int, default=0, help="stability samples per source run (live)"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help=f"run the batch on this many queue workers (1–{MAX_WORKERS}) started for it "
            "(default: in this process)",
        )
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help="hand the batch to the task queue and print it queued",
        )
        parser.add_argument("--json", action="store_true", help="print the batch as JSON")

    def request(self, options: dict[str, Any]) -> BatchRequest:
        """The one typed request the options describe (every refusal a one-line error)."""
        runs = tuple(self.get_run(value).pk for value in options["runs"])
        selection = Selection(
            runs=runs,
            pipeline=options["pipeline"],
            where=tuple(parse_where(text) for text in options["where"]),
        )
        field, value = parse_set(options["set"])
        return BatchRequest(
            selection=selection,
            node=options["node"],
            field=field,
            values=(value, *options["values"]),
            samples=options["samples"],
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["workers"] is not None:
            check_workers(options["workers"])
            if options["enqueue"]:
                raise CommandError("--workers or --enqueue, not both")
        batch = make_batch(plan_batch(self.request(options)))
        ids = batch_run_ids(batch)
        interrupted = False
        if options["enqueue"]:
            for run in Run.objects.filter(pk__in=ids):
                enqueue_run(run)
        elif options["workers"] is not None:
            outcome = run_on_workers(
                ids,
                options["workers"],
                progress=self.progress_bar(len(ids)),
                quiet=self.from_shell,
            )
            interrupted = outcome.interrupted
        else:
            interrupted = self.execute_here(ids)
        result = batch_result(batch)
        if options["json"]:
            self.print_json(result.as_json())
        else:
            self.print_result(result)
        if interrupted:
            raise CommandError(f"interrupted: batch {batch.pk} is partly executed")
        if not options["enqueue"]:
            bad = [s for s in result.sources if s.row.fork_id and not s.completed]
            if bad:
                raise CommandError(
                    f"{len(bad)} of {len(result.sources)} fork(s) did not complete "
                    f"(first: run {bad[0].row.fork_id} {bad[0].status})"
                )

    def execute_here(self, ids: list[int]) -> bool:
        """Execute the batch's runs one after another in this process; Ctrl-C withdraws
        those not started (cancelled) and returns True."""
        tick = self.progress_bar(len(ids))
        for index, pk in enumerate(ids):
            try:
                run = execute_run(pk, on_step=None)
            except KeyboardInterrupt:
                Run.objects.withdraw(ids[index:], "withdrawn: the batch was interrupted (Ctrl-C)")
                return True
            if tick is not None:
                tick(run)
            if not connection.in_atomic_block:  # a long batch: drop stale connections
                close_old_connections()
        return False

    def progress_bar(self, total: int):
        """A bar on a terminal (stderr) as each run of the batch finishes; silent otherwise."""
        if not self.stderr.isatty() or not total:
            return None
        done = [0]

        def tick(item: Any) -> None:
            run = getattr(item, "run", item)  # a worker's Done, or a run
            done[0] += 1
            filled = int(24 * done[0] / total)
            self.stderr.write(
                f"\r[{'#' * filled}{'.' * (24 - filled)}] {done[0]}/{total} "
                f"run {run.pk}: {run.status}   ",
                ending="" if done[0] < total else "\n",
            )
            self.stderr.flush()

        return tick

    def print_result(self, result: BatchResult) -> None:
        batch = result.batch
        values = ", ".join(json.dumps(v) for v in batch.values)
        self.stdout.write(
            f"batch {batch.pk}: {batch.field} = {values} at {batch.node}, "
            f"{len({s.row.source_id for s in result.sources})} source run(s) of {batch.pipeline}"
            + (f", {batch.samples} sample(s) each" if batch.samples else "")
        )
        for s in result.summary:
            low, high = s.interval
            rate = "—" if s.rate is None else f"{100 * s.rate:.1f} %"
            of_value = f" [{s.value}]" if result.several_values else ""
            noise = f"; {s.beyond} beyond noise, {s.within} within" if batch.samples else ""
            self.stdout.write(
                f"  {s.outcome}{of_value}: flipped {s.flipped}/{s.n} = {rate} "
                f"(95 % CI {100 * low:.1f}–{100 * high:.1f} %){noise}"
            )
        self.stdout.write(f"{'run':>6} {'fork':>6}  {'status':<10} {'tokens':>6}  outcomes")
        for source in result.sources:
            changes = "; ".join(
                f"{o.name}: {_text(o.as_json()['before'])} → {_text(o.as_json()['after'])}"
                + (" FLIPPED" if o.flipped else "")
                + (f" ({o.verdict})" if o.flipped and o.verdict else "")
                for o in source.outcomes
            )
            fork = source.row.fork_id or "-"
            self.stdout.write(
                f"{source.row.source_id:>6} {fork:>6}  {source.status:<10} {source.tokens:>6}  "
                f"{changes or source.row.error or '-'}"
            )
        self.stdout.write(f"stored as batch {batch.pk}: /batches/{batch.pk}/")


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]
