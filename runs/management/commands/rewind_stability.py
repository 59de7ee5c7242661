from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.noise import MAX_SAMPLES
from runs.engine.forking.forks import find_node
from runs.engine.run_sets.samples import make_samples
from runs.management.base import RewindCommand
from runs.management.batches import BatchExecution
from runs.management.run_sets import (
    add_execution,
    add_output,
    add_runs,
    add_samples,
    read_execution,
    read_runs,
    read_samples,
)
from runs.models import Node, Run


class Command(BatchExecution, RewindCommand):
    help = (
        "Hash stability: replay a run K times in live mode (cache reads skipped) from a node and "
        "report, per step, how many distinct output hashes came back — a number for "
        "'is my agent deterministic?'. Live replays cost tokens. The replays are recorded as "
        "the run's stability samples: its page /runs/<run>/stability/ shows them, and a diff "
        "of a fork against it says which changes are beyond that noise."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_runs(parser, names=("RUN",), old_positional=True)
        parser.add_argument("--node", help="replay from this node (default: the first step)")
        add_samples(parser, old_k=True, help=f"number of live replays (1-{MAX_SAMPLES})")
        add_execution(
            parser, noun="replays", enqueued=" (no distribution: the run's page shows it)"
        )
        add_output(parser, json="print the distribution as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        (given,) = read_runs(options, ("RUN",))
        k = read_samples(options, low=1, high=MAX_SAMPLES)
        read_execution(options)
        source = self.get_run(given)
        start = find_node(source, options["node"]) if options["node"] else None
        node = str(start.sequence_id) if start else "0"
        ids = [sample.pk for sample in make_samples(source, k, node)]
        interrupted = self.execute_batch(ids, options)
        if options["enqueue"]:
            self.report_queued(source, k, ids, options["json"])
            return
        hashes: dict[str, Counter] = {}
        for replay in Run.objects.filter(pk__in=ids).order_by("pk"):
            for step in replay.nodes.exclude(cache_source=Node.CacheSource.INHERITED):
                hashes.setdefault(step.name, Counter())[step.output_sha256 or "(failed)"] += 1
        original = {n.name: n.output_sha256 for n in source.nodes.all()}
        steps = [
            {
                "name": name,
                "distinct": len(counter),
                "same_as_source": counter.get(original.get(name, ""), 0),
                "hashes": dict(counter.most_common()),
            }
            for name, counter in hashes.items()
        ]
        result = {"run": source.pk, "k": k, "replays": ids, "steps": steps}
        if options["json"]:
            self.print_json(result)
        else:
            self.stdout.write(f"{k} live replay(s) of run {source.pk}: {', '.join(map(str, ids))}")
            for step in steps:
                self.stdout.write(
                    f"  {step['name']:<10} {step['distinct']} distinct hash(es); "
                    f"{step['same_as_source']}/{k} equal to the source"
                )
        if interrupted:
            raise CommandError(f"interrupted: the samples of run {source.pk} are partly executed")

    def report_queued(self, source: Run, k: int, ids: list[int], as_json: bool) -> None:
        if as_json:
            self.print_json({"run": source.pk, "k": k, "replays": ids, "queued": True, "steps": []})
            return
        self.stdout.write(
            f"{k} live replay(s) of run {source.pk} queued: {', '.join(map(str, ids))} "
            f"(/runs/{source.pk}/stability/ once a worker ran them)"
        )
