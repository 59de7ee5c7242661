from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.analysis.batches.junit import junit_xml
from runs.engine.analysis.batches.regression import FAIL_ON, RegressionResult, regression_result
from runs.engine.analysis.noise import MAX_SAMPLES
from runs.engine.errors import RewindError
from runs.engine.execution.runner import LoadedApp
from runs.engine.run_sets.batches import Plan, make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.management.base import RewindCommand
from runs.management.batches import BatchExecution
from runs.management.run_sets import (
    add_output,
    add_runs,
    add_samples,
    read_limit,
    read_runs,
    read_samples,
    read_where,
)
from runs.models import Batch

BAD_INPUT = 2  # the exit status of a request that cannot be asked (1: the gate failed)


class Command(BatchExecution, RewindCommand):
    help = (
        "Regression replay: re-run recorded runs with the app's code as it is now. Each call "
        "whose request did not change is answered from the cache; each one the code changed "
        "goes to the configured provider, so only what the change alters costs tokens. Per run: "
        "the first step that differs, the steps whose code changed, each outcome before → "
        "after; per outcome the flip rate with a 95 % Wilson interval. A CI gate: exit 1 when "
        "--fail-on is met (default regress: an outcome that passed now fails, beyond noise "
        "with --samples), 2 on bad input, else 0. Stored and shown at /batches/<id>/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_runs(parser, pipeline="the completed root runs of this app", where=True, limit=True)
        add_samples(
            parser,
            default=0,
            help="stability samples per source run (live), so a flip is judged against noise",
        )
        parser.add_argument(
            "--fail-on",
            choices=FAIL_ON,
            default="regress",
            help="exit 1 when an outcome that passed fails (regress), any outcome flips "
            "(flip) or any step's output differs (diverge)",
        )
        self.add_batch_execution_arguments(parser)
        add_output(
            parser, json="print the result as JSON", junit="write JUnit XML: a testcase per run"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            self.check_batch_execution(options)
            if options["enqueue"] and options["junit"]:
                raise CommandError(
                    "--junit reports the replay's end, and with --enqueue nothing has run yet: "
                    "run without --enqueue (or read the batch's page when it is done)"
                )
            junit = self.junit_path(options["junit"])
            plan = plan_regression(self.request(options))
        except (CommandError, RewindError) as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        batch = make_batch(plan)
        if self.stderr.isatty():
            self.stderr.write(
                f"regression replay {batch.pk}: {len(plan.rows)} run(s) of {batch.pipeline} "
                f"with the code at {batch.code_label}"
            )
        interrupted = self.execute_regression(plan, batch, options)
        result = regression_result(batch)
        failures = result.failures(options["fail_on"])
        if junit is not None:
            junit.write_text(junit_xml(result, options["fail_on"], settings.REWIND_BASE_URL))
        if options["json"]:
            self.print_json(
                {
                    **result.as_json(),
                    "fail_on": options["fail_on"],
                    # queued: nothing is judged yet (rewind_show, or the batch's page)
                    "failed": None if options["enqueue"] else bool(failures),
                }
            )
        else:
            self.print_result(result, options["fail_on"], failures, queued=options["enqueue"])
        if interrupted:
            raise CommandError(f"interrupted: regression replay {batch.pk} is partly executed")
        if options["enqueue"]:
            return  # queued: nothing to judge yet (rewind_show, or the batch's page)
        if failures:
            raise CommandError(
                f"{len(failures)} of {len(result.runs)} run(s) fail --fail-on "
                f"{options['fail_on']} (first: run {failures[0][0].source.row.source_id}: "
                f"{failures[0][1][0]})"
            )

    def execute_regression(self, plan: Plan, batch: Batch, options: dict[str, Any]) -> bool:
        """Enqueued: one task, whose worker executes the batch in an interpreter started for it
        (``run_sets.fresh``: a worker up since before an edit never runs the old code as the
        new). Else in this process — it imported the code just now — with the app looked up and
        its version checked once (``plan``), or on ``--workers`` started now. True: Ctrl-C."""
        app = LoadedApp(plan.pipeline, plan.app, batch.code_version)  # used here only
        return self.execute_batch(batch_run_ids(batch), options, app=app, batch=batch)

    def request(self, options: dict[str, Any]) -> RegressionRequest:
        runs = tuple(self.get_run(value).pk for value in read_runs(options))
        limit = read_limit(options)
        return RegressionRequest(
            selection=Selection(runs=runs, pipeline=options["pipeline"], where=read_where(options)),
            samples=read_samples(options, low=0, high=MAX_SAMPLES, default=0),
            limit=limit or 0,
        )

    def junit_path(self, name: str) -> Path | None:
        """Where the JUnit file goes, checked before any run: its folder exists."""
        if not name:
            return None
        path = Path(name)
        if path.is_dir():
            raise CommandError(f"--junit names a folder, not a file: {name}")
        if not path.parent.is_dir():
            raise CommandError(f"--junit {name}: no folder {path.parent}")
        return path

    def print_result(
        self,
        result: RegressionResult,
        fail_on: str,
        failures: list[tuple[Any, list[str]]],
        queued: bool = False,
    ) -> None:
        batch = result.batch
        self.stdout.write(
            f"regression replay {batch.pk}: {len(result.runs)} run(s) of {batch.pipeline} "
            f"with the code at {batch.code_label}"
            + (f", {batch.samples} sample(s) each" if batch.samples else "")
        )
        for s in result.result.summary:
            low, high = s.interval
            rate = "—" if s.rate is None else f"{100 * s.rate:.1f} %"
            noise = f"; {s.beyond} beyond noise, {s.within} within" if batch.samples else ""
            self.stdout.write(
                f"  {s.outcome}: flipped {s.flipped}/{s.n} = {rate} "
                f"(95 % CI {100 * low:.1f}–{100 * high:.1f} %){noise}"
            )
        self.stdout.write(
            f"{'source':>6} {'run':>6}  {'status':<10} {'tokens':>6}  first divergence / outcomes"
        )
        for run in result.runs:
            row = run.source.row
            where = run.first_divergence
            what = f"{where['node']}({where['sequence_id']})" if where else "none"
            if run.code_changed:
                what += f" · code changed: {', '.join(run.code_changed)}"
            changes = "; ".join(
                f"{c.name}: {_text(c.as_json()['before'])} → {_text(c.as_json()['after'])}"
                + (" FLIPPED" if c.flipped else "")
                for c in run.source.outcomes
            )
            self.stdout.write(
                f"{row.source_id:>6} {row.fork_id or '-':>6}  {run.source.status:<10} "
                f"{run.source.tokens:>6}  {row.error or what}"
                + (f" · {changes}" if changes else "")
            )
        verdict = (
            "queued: nothing judged yet (rewind_show, or the batch's page)"
            if queued
            else f"FAIL (--fail-on {fail_on}): {len(failures)} run(s)"
            if failures
            else f"pass (--fail-on {fail_on})"
        )
        self.stdout.write(f"{result.regressions} regression(s); {verdict}")
        self.stdout.write(f"stored as batch {batch.pk}: /batches/{batch.pk}/")


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]
