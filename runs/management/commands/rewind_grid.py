from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import transaction

from runs.engine.analysis.diff import diff_runs
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import make_fork, resolve_fork
from runs.management.base import RewindCommand
from runs.models import Grid


class Command(RewindCommand):
    help = (
        "What-if grid: fork one node of a run once per value of one field, replay each, and "
        "show which values change what (first divergence, artifact, tokens). The grid is "
        "stored and shown on the dashboard at /grids/<id>/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", help="id of the run to fork")
        parser.add_argument("--node", required=True, help="node to fork (name, name#k or step)")
        parser.add_argument("--field", required=True, help="the field to vary, e.g. args.region")
        parser.add_argument("--values", nargs="+", required=True, help="one fork per value")
        parser.add_argument("--json", action="store_true", help="print the grid as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        source = self.get_run(options["run"])
        if len(options["values"]) > Grid.MAX_VALUES:
            raise CommandError(f"--values takes at most {Grid.MAX_VALUES} values")
        # Validate every value before the first fork runs: a bad value writes nothing.
        forks = [
            resolve_fork(source, options["node"], options["field"], value)
            for value in options["values"]
        ]
        # Every fork and the grid are written together, then executed one by one.
        with transaction.atomic():
            made = [make_fork(request) for request in forks]
            grid = Grid.objects.record(
                source, forks[0].target, options["field"], options["values"], made
            )
        rows = []
        for value, queued in zip(options["values"], made, strict=True):
            fork = execute_run(queued.pk, on_step=None)
            diff = diff_runs(source, fork)
            first = diff["first_divergence"]
            executed = fork.nodes.exclude(cache_source="inherited")
            rows.append(
                {
                    "value": value,
                    "run": fork.pk,
                    "status": fork.status,
                    "first_divergence": first,
                    "artifact_sha256": fork.artifact_sha256 or None,
                    "artifact_differs": diff["artifact"]["differs"],
                    "changed_nodes": [n["name"] for n in diff["nodes"] if not n["same"]],
                    "total_tokens": sum(n.total_tokens for n in executed),
                    "error": fork.error or None,
                }
            )
        result = {
            "run": source.pk,
            "grid": grid.pk,
            "node": options["node"],
            "field": options["field"],
            "rows": rows,
        }
        if options["json"]:
            self.print_json(result)
            return
        self.stdout.write(f"grid over {options['field']} at {options['node']} of run {source.pk}")
        self.stdout.write(
            f"{'value':<16} {'fork':>5}  {'status':<9} {'tokens':>6}  artifact      changed steps"
        )
        for row in rows:
            sha = (row["artifact_sha256"] or "-")[:12]
            self.stdout.write(
                f"{str(row['value'])[:16]:<16} {row['run']:>5}  {row['status']:<9} {row['total_tokens']:>6}  "
                f"{sha:<12}  {', '.join(row['changed_nodes']) or '(none)'}"
            )
        self.stdout.write(f"stored as grid {grid.pk}: /grids/{grid.pk}/")
