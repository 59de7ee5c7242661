from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.noise import make_samples
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import find_node
from runs.management.base import RewindCommand
from runs.models import Node


class Command(RewindCommand):
    help = (
        "Hash stability: replay a run K times in live mode (cache reads skipped) from a node and "
        "report, per step, how many distinct output hashes came back — a number for "
        "'is my agent deterministic?'. Live replays cost tokens. The replays are recorded as "
        "the run's stability samples: its page /runs/<run>/stability/ shows them, and a diff "
        "of a fork against it says which changes are beyond that noise."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", help="id of the run to replay")
        parser.add_argument("--node", help="replay from this node (default: the first step)")
        parser.add_argument("-k", type=int, required=True, help="number of live replays (1-50)")
        parser.add_argument("--json", action="store_true", help="print the distribution as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        source = self.get_run(options["run"])
        k = options["k"]
        if not 1 <= k <= 50:
            raise CommandError(f"-k must be between 1 and 50, got {k}")
        start = find_node(source, options["node"]) if options["node"] else None
        node = str(start.sequence_id) if start else "0"
        hashes: dict[str, Counter] = {}
        runs = []
        for sample in make_samples(source, k, node):
            replay = execute_run(sample.pk)
            runs.append(replay.pk)
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
        result = {"run": source.pk, "k": k, "replays": runs, "steps": steps}
        if options["json"]:
            self.print_json(result)
            return
        self.stdout.write(f"{k} live replay(s) of run {source.pk}: {', '.join(map(str, runs))}")
        for step in steps:
            self.stdout.write(
                f"  {step['name']:<10} {step['distinct']} distinct hash(es); "
                f"{step['same_as_source']}/{k} equal to the source"
            )
