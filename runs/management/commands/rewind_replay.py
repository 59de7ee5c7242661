from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime, parse_duration

from runs.engine.apps.registry import get_pipeline
from runs.engine.forking.replays import ReplayVerdict, create_replay
from runs.engine.run_sets.execution import Execution, execute
from runs.engine.run_sets.replays import replay_here, replay_on_workers, replay_source
from runs.engine.run_sets.requests import Selection
from runs.management.base import RewindCommand
from runs.management.run_sets import (
    add_execution,
    add_output,
    add_runs,
    bad_input,
    read_execution,
    read_limit,
    read_runs,
    read_where,
)
from runs.models import Run


def parse_since(value: str):
    """``7d``, ``12h``, ``30m`` or an ISO date/time."""
    units = {"d": "days", "h": "hours", "m": "minutes"}
    try:
        if value[-1:] in units and value[:-1].isdigit():
            return timezone.now() - timedelta(**{units[value[-1]]: int(value[:-1])})
        moment = parse_datetime(value) or parse_datetime(f"{value}T00:00:00")
        if moment is None:
            duration = parse_duration(value)
            if duration is None:
                raise ValueError(value)
            return timezone.now() - duration
    except (ValueError, OverflowError):
        raise CommandError(f"--since takes 7d, 12h, 30m or an ISO date, got {value!r}") from None
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


class Command(RewindCommand):
    help = (
        "Replay finished runs unchanged and check that each reproduces every output hash and "
        "its artifact at 0 tokens. Exits 1 if any is not identical (diverged, failed, not hermetic)."
    )

    allow_network = False  # --allow-network (set by handle)

    def add_arguments(self, parser: CommandParser) -> None:
        # No --samples (an unchanged replay is judged against its own recording, not noise)
        # and no --junit (its verdicts are identical or not; JUnit is rewind_regress's gate).
        add_runs(
            parser,
            old_positional=True,
            pipeline="only runs of this pipeline",
            where=True,
            limit=True,
        )
        parser.add_argument("--all", action="store_true", help="replay every completed run")
        parser.add_argument("--since", help="only runs created since: 7d, 12h, 30m or an ISO date")
        add_execution(parser, noun="replays", enqueued=" (no verdicts)")
        add_output(parser, json="print the results as JSON")
        self.add_network_argument(parser)

    def select(self, options: dict[str, Any]) -> list[Run]:
        given = read_runs(options)
        limit = read_limit(options)
        where = read_where(options)
        if given and options["all"]:
            raise bad_input("give run ids or --all, not both")
        if given and (options["pipeline"] or options["since"]):
            raise bad_input("give run ids or a selection (--pipeline, --since), not both")
        if given and limit is not None:
            raise bad_input("--limit narrows a selection; --runs names every run")
        if where and not options["pipeline"]:
            raise bad_input("--where narrows a --pipeline selection")
        if given:
            runs = [self.get_run(value) for value in given]
        elif options["all"] or options["pipeline"] or options["since"]:
            if options["pipeline"]:
                get_pipeline(options["pipeline"])  # a typo is an error, not "0/0 identical"
            query = Run.objects.filter(status=Run.Status.COMPLETED)
            if options["pipeline"]:
                query = query.filter(pipeline=options["pipeline"])
            if where:  # the root runs whose inputs match, as rewind_batch and rewind_regress
                roots = Selection(pipeline=options["pipeline"], where=where).queryset()
                query = query.filter(pk__in=roots.values("pk"))
            if options["since"]:
                query = query.filter(created_at__gte=parse_since(options["since"]))
            if limit is not None:  # the newest N, replayed oldest first
                runs = sorted(query.order_by("-id")[:limit], key=lambda run: run.pk)
            else:
                runs = list(query.order_by("id"))
            if not runs:
                raise CommandError("no completed run matches; nothing to replay")
        else:
            raise bad_input("give --runs RUN ..., --all, --pipeline or --since")
        not_done = [r.pk for r in runs if r.status != Run.Status.COMPLETED]
        if not_done:
            raise CommandError(f"only completed runs can be replayed; not completed: {not_done}")
        return runs

    def replay_one(self, run: Run) -> ReplayVerdict:
        """Replay one run to the end and judge it, in this process (``--workers 1``)."""
        return replay_source(run, allow_network=self.allow_network)

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = int(options.get("verbosity", 1))
        self.show_traceback = bool(options.get("traceback")) or self.verbosity >= 3
        self.quiet = not self.show_traceback
        self.allow_network = options["allow_network"]
        workers = read_execution(options)
        runs = self.select(options)
        if options["enqueue"]:
            self.enqueue(runs, options["json"])
            return
        results, interrupted = self.replay_all(runs, workers)
        if options["json"]:
            self.print_json(
                {
                    "results": [r.as_json() for r in results],
                    "interrupted": interrupted,
                    "requested": len(runs),
                }
            )
        else:
            self.print_table(results)
            if interrupted:
                self.stdout.write(f"interrupted: {len(results)} of {len(runs)} replayed")
        bad = [r for r in results if not r.identical]
        if bad or interrupted:
            raise CommandError(
                f"{len(bad)} of {len(results)} replay(s) not identical (diverged, failed or not hermetic)"
                + ("; interrupted" if interrupted else "")
            )

    def enqueue(self, runs: list[Run], as_json: bool) -> None:
        replays = [create_replay(run, allow_network=self.allow_network) for run in runs]
        execute([replay.pk for replay in replays], Execution(enqueue=True))
        queued = [
            {"run": run.pk, "replay": replay.pk, "status": replay.status}
            for run, replay in zip(runs, replays, strict=True)
        ]
        if as_json:
            self.print_json({"queued": queued})
        else:
            for item in queued:
                self.stdout.write(f"run {item['run']}: replay {item['replay']} queued")

    def replay_all(self, runs: list[Run], workers: int | None) -> tuple[list[ReplayVerdict], bool]:
        """Replay ``runs``: here one after the other, or on ``workers`` queue workers
        (``runs.engine.run_sets.replays``). Ctrl-C stops taking new ones, lets the ones in hand
        finish, and reports what finished."""
        results: list[ReplayVerdict] = []
        tty = self.stderr.isatty()

        def done(result: ReplayVerdict, pid: int | None) -> None:
            results.append(result)
            if tty:
                filled = int(24 * len(results) / len(runs))
                self.stderr.write(
                    f"\r[{'#' * filled}{'.' * (24 - filled)}] {len(results)}/{len(runs)} "
                    f"run {result.run}: {result.verdict}   ",
                    ending="",
                )
                self.stderr.flush()
            elif self.verbosity >= 2:
                where = f"worker pid {pid}" if pid is not None else "no worker of this batch"
                self.stderr.write(
                    f"run {result.run}: replay {result.replay} {result.verdict} ({where})"
                )

        if workers is not None:
            outcome = replay_on_workers(
                runs,
                workers,
                on_result=done,
                quiet=self.from_shell and self.quiet,
                allow_network=self.allow_network,
            )
            if tty:
                self.stderr.write("")
            return outcome.results, outcome.interrupted
        outcome = replay_here(runs, self.replay_one, on_result=done)
        if tty and runs:
            self.stderr.write("")
        return outcome.results, outcome.interrupted

    def print_table(self, results: list[ReplayVerdict]) -> None:
        self.stdout.write(
            f"{'run':>6} {'replay':>7}  {'verdict':<10} {'tokens':>6}  first divergence"
        )
        for r in results:
            first = r.first_divergence
            where = f"{first['node']} (step {first['sequence_id']})" if first else (r.error or "-")
            replay = "-" if r.replay is None else r.replay
            self.stdout.write(
                f"{r.run:>6} {replay:>7}  {r.verdict:<10} {r.total_tokens:>6}  {where}"
            )
            for escape in r.escaped:
                self.stdout.write(
                    f"{'':>16}not hermetic: {escape['node']} reached {escape['endpoint']} outside "
                    f"capture (from {escape['line']}), so its sameness proves nothing"
                )
            for step in r.code_changed:
                self.stdout.write(
                    f"{'':>16}code changed: {step['node']} (step {step['sequence_id']}) ran "
                    "another version of its action's source than the run replayed"
                )
            for step in r.nondeterministic:
                self.stdout.write(
                    f"{'':>16}non-deterministic code: {step['node']} (step {step['sequence_id']}) "
                    f"wrote different {', '.join(step['keys'])} from the same inputs, every call "
                    "answered from the cache"
                )
        same = sum(r.identical for r in results)
        self.stdout.write(f"{same}/{len(results)} identical")
