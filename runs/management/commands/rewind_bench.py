from __future__ import annotations

import uuid
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.bench.anchor import anchor_figures
from runs.bench.batches import batch_figure, batch_figures
from runs.bench.bisect import bisect_figures
from runs.bench.capture import capture_figures
from runs.bench.imports import import_figures
from runs.bench.lists import list_figures
from runs.bench.measure import best_time, peak_memory
from runs.bench.memory import worker_memory_figure
from runs.bench.noise import noise_figures
from runs.bench.pages import live_latency_figure, run_page_figure
from runs.bench.pipelines import register
from runs.bench.recording import recording_figures
from runs.bench.redaction import redaction_figures
from runs.bench.regress import regress_figures
from runs.bench.replays import bytes_figure, diff_figures, replay_figures, whole_replay_figures
from runs.bench.storage import storage_figures
from runs.bench.transports import transport_figures
from runs.bench.values import values_figures
from runs.engine.analysis.diff import diff_runs
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.management.base import RewindCommand
from runs.models import Run


class Command(RewindCommand):
    help = (
        "Benchmark the engine: on the research pipeline a run whose every call misses the "
        "cache, an unchanged replay, a fork at analyse and a diff; the noise rule's false-alarm "
        "and miss rates on simulated cases; on the loop app (a plain "
        "Burr counter) a cached replay per step against bare Burr running the same app. "
        "Targets are ratios within one run (machines are noisy and shared), never absolute "
        "times. Makes runs in the configured database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--repeat", type=int, default=3, help="tries per measurement (best counts)"
        )
        parser.add_argument(
            "--batch-runs",
            type=int,
            default=40,
            help="recorded runs the batch-counterfactual figures fork (issue 17 asks for 200; "
            "the default keeps the bench short; 0 skips them)",
        )
        parser.add_argument(
            "--list-runs",
            type=int,
            default=50_000,
            help="runs seeded (as rows; rolled back on SQLite, committed, vacuumed and deleted "
            "after on PostgreSQL) for the list figures: "
            "the runs list with a 5,000-run lineage, the compare page, a middle page and a "
            "search, each beside the same page at 1,000 runs (at least 15,001; 0 skips them)",
        )
        parser.add_argument(
            "--scale-runs",
            type=int,
            default=0,
            help="with the list figures, grow the database on to this many runs (history older "
            "than the big lineage; one INSERT a stage) and measure the runs list's first and "
            "middle pages, the search and the compare page again, each against ≤ 0.150 s and "
            "beside the same page at 1,000 runs, with the query plans of a page that fails "
            "(issue 33: 1000000 on PostgreSQL; 0, the default, skips them)",
        )
        parser.add_argument(
            "--memory-replays",
            type=int,
            default=2000,
            help="cached replays a fresh worker process executes for the memory figure, beside "
            "bare Burr running the same actions as often in another (0 skips it)",
        )
        parser.add_argument(
            "--lists-only",
            action="store_true",
            help="only the list figures (a minute; the whole bench takes many)",
        )
        parser.add_argument(
            "--redaction-only",
            action="store_true",
            help="only the redaction figures: keying and redacting a captured request of 0.25 to "
            "1 MB dense with key-shaped tokens, 10,000 strings, credentials quoted in it, storing "
            "a 1 MB answer, and a 5 KB live call's overhead (seconds; issue 40)",
        )
        parser.add_argument(
            "--no-storage",
            action="store_true",
            help="leave out the storage figures (10,000 runs with and without pruning: minutes)",
        )
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        register()  # the bench's own apps (loop, relay, nine), here and in the workers it starts
        repeat = max(1, min(options["repeat"], 20))
        if options["lists_only"]:
            lists = list_figures(
                repeat, options["list_runs"] or 50_000, self.stderr.write, options["scale_runs"]
            )
            self._print({"figures": lists}, options)
            return
        if options["redaction_only"]:
            self._print({"figures": redaction_figures(repeat)}, options)
            return

        def cold_run() -> Run:
            # A question never asked before: every llm call misses the cache.
            question = (
                f"Which outreach policy is cheapest per conversion? (bench {uuid.uuid4().hex})"
            )
            return execute_run(create_run("research", {"question": question}).pk)

        cold_s, source = best_time(cold_run, repeat)
        if source.status != Run.Status.COMPLETED:  # nothing to replay or fork: say why
            raise CommandError(f"bench: run {source.pk} {source.status}: {source.error}")

        def replay_once() -> Run:
            return execute_run(create_replay(source).pk)

        replay_s, replay = best_time(replay_once, repeat)
        scales = iter(range(2, 2 + repeat))

        def fork_at_analyse() -> Run:
            # A new cost scale each try: analyse and everything downstream miss the cache.
            scale = str(next(scales) + 0.5)
            return execute_run(create_fork(source, "analyse", "args.cost_scale", scale).pk)

        fork_s, fork = best_time(fork_at_analyse, repeat)
        diff_s, _ = best_time(lambda: diff_runs(source, fork), repeat)
        # Memory in passes of their own: tracing inflates time, so no timing runs under it.
        cold_mem = peak_memory(cold_run)
        replay_mem = peak_memory(replay_once)
        loop_source = execute_run(create_run("loop", {}).pk)
        if loop_source.status != Run.Status.COMPLETED:
            raise CommandError(
                f"bench: run {loop_source.pk} {loop_source.status}: {loop_source.error}"
            )
        table = [
            *whole_replay_figures(source, repeat),
            *replay_figures(
                loop_source, lambda: execute_run(create_replay(loop_source).pk), repeat
            ),
            bytes_figure(source, replay_once),
            *(
                [worker_memory_figure(source, options["memory_replays"])]
                if options["memory_replays"] > 0
                else []
            ),
            *diff_figures(100_000, repeat),
            live_latency_figure(repeat),
            run_page_figure(repeat),
            *(
                list_figures(repeat, options["list_runs"], self.stderr.write, options["scale_runs"])
                if options["list_runs"] > 0
                else []
            ),
            batch_figure(repeat),
            *capture_figures(repeat),
            *redaction_figures(repeat),
            *transport_figures(repeat),
            *recording_figures(repeat),
            *anchor_figures(repeat, say=self.stderr.write),
            *values_figures(loop_source, repeat),
            *noise_figures(),
            *bisect_figures(),
            *import_figures(),
            *regress_figures(repeat),
            *(batch_figures(options["batch_runs"]) if options["batch_runs"] > 0 else []),
            *([] if options["no_storage"] else storage_figures(say=self.stderr.write)),
        ]
        figures = {
            "cold_run_s": round(cold_s, 4),
            "cached_replay_s": round(replay_s, 4),
            "fork_at_analyse_s": round(fork_s, 4),
            "diff_s": round(diff_s, 4),
            "replay_to_cold_ratio": round(replay_s / cold_s, 4) if cold_s else None,
            "fork_to_cold_ratio": round(fork_s / cold_s, 4) if cold_s else None,
            "diff_to_cold_ratio": round(diff_s / cold_s, 4) if cold_s else None,
            "cold_peak_bytes": cold_mem,
            "replay_peak_bytes": replay_mem,
            "replay_to_cold_memory_ratio": round(replay_mem / cold_mem, 4) if cold_mem else None,
            "replay_tokens": sum(n.total_tokens for n in replay.nodes.all()),
            "replay_identical": replay.trajectory_sha256 == source.trajectory_sha256,
            "repeat": repeat,
            "simulator": bool(source.provider.get("simulator")),
            "figures": table,
        }
        self._print(figures, options)

    def _print(self, figures: dict, options: dict[str, Any]) -> None:
        table = figures["figures"]
        if options["json"]:
            self.print_json(figures)
            return
        for name, value in figures.items():
            if name != "figures":
                self.stdout.write(f"{name:<30} {value}")
        self.stdout.write("")
        for row in table:
            verdict = {True: "PASS", False: "FAIL", None: "----"}[row["pass"]]
            if "goal" not in row:
                detail = row.get("note", "")
            elif row["goal"].endswith(" s"):  # a time goal: the time itself
                shown = f"{row['value']:.3f}" if row["value"] >= 0.01 else f"{row['value']:.6f}"
                detail = f"{shown} s (goal {row['goal']})"
            elif row["goal"].endswith(" KB"):  # a size goal: the size itself
                detail = f"{row['value']:.0f} KB (goal {row['goal']})"
            else:
                detail = f"{row['ratio']} (goal {row['goal']})"
            if row.get("mb_per_s") is not None and "goal" in row:  # a throughput beside it
                detail += f", {row['mb_per_s']} MB/s"
            self.stdout.write(f"{verdict}  {row['figure']}: {detail}")
