from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.batches import batch_result, batch_run_ids
from runs.engine.analysis.batches.results import BatchResult
from runs.engine.analysis.noise import MAX_SAMPLES
from runs.engine.errors import RewindError
from runs.engine.execution.runner import LoadedApp
from runs.engine.run_sets.batches import make_batch, plan_batch
from runs.engine.run_sets.requests import BatchRequest, Selection, parse_set
from runs.management.base import RewindCommand
from runs.management.batches import BatchExecution
from runs.management.run_sets import (
    add_output,
    add_runs,
    add_samples,
    bad_input,
    read_limit,
    read_runs,
    read_samples,
    read_where,
)


class Command(BatchExecution, RewindCommand):
    help = (
        "Batch counterfactual: apply one change (a step's field set to a value, or to each of "
        "several) to a selection of recorded runs — each fork an ordinary fork — and report, "
        "per source, each outcome before → after and whether it flipped; per outcome the flip "
        "rate with a 95 % Wilson interval. With --samples K each source is sampled K times "
        "and each flip judged beyond- or within-noise. Stored and shown at /batches/<id>/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_runs(
            parser, pipeline="every completed root run of this pipeline", where=True, limit=True
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
        add_samples(parser, default=0, help="stability samples per source run (live)")
        self.add_batch_execution_arguments(parser)
        add_output(parser, json="print the batch as JSON")

    def request(self, options: dict[str, Any]) -> BatchRequest:
        """The one typed request the options describe (every refusal a one-line error)."""
        runs = tuple(self.get_run(value).pk for value in read_runs(options))
        selection = Selection(runs=runs, pipeline=options["pipeline"], where=read_where(options))
        field, value = parse_set(options["set"])
        return BatchRequest(
            selection=selection,
            node=options["node"],
            field=field,
            values=(value, *options["values"]),
            samples=read_samples(options, low=0, high=MAX_SAMPLES, default=0),
            limit=read_limit(options) or 0,
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            self.check_batch_execution(options)
            plan = plan_batch(self.request(options))
        except (CommandError, RewindError) as exc:  # nothing written: a request not askable
            raise bad_input(str(exc)) from None
        batch = make_batch(plan)
        app = LoadedApp(plan.pipeline, plan.app)  # resolved once, by the plan
        interrupted = self.execute_batch(batch_run_ids(batch), options, app=app, batch=batch)
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
