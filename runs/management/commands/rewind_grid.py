from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.diff import diff_runs
from runs.engine.errors import RewindError
from runs.engine.execution.runner import LoadedApp
from runs.engine.run_sets.execution import execute
from runs.engine.run_sets.grids import make_grid, resolve_grid
from runs.management.base import RewindCommand
from runs.management.run_sets import add_output, add_runs, read_runs
from runs.models import Grid, Run
from runs.pages.grids import MatrixRow, build_matrix, load_grid


class Command(RewindCommand):
    help = (
        "What-if grid: fork one node of a run once per value of one field, replay each, and "
        "show which values change what: per step a letter, '=' for the parent's output and "
        "A, B, C… one per distinct other output (the grid page's letters). With --cross-field, "
        "each value's fork is forked again at the same step once per value of a second field "
        "(a fork changes one field), one row per pair. The grid is stored and shown on the "
        "dashboard at /grids/<id>/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        # One run, forked once per value: no --where/--limit (a grid has one source), no
        # --samples, and no --workers/--enqueue: the forks execute in order in this process,
        # each value's fork before the crossed forks that are forked from it.
        add_runs(parser, names=("RUN",), old_positional=True)
        parser.add_argument("--node", required=True, help="node to fork (name, name#k or step)")
        parser.add_argument("--field", required=True, help="the field to vary, e.g. args.region")
        parser.add_argument("--values", nargs="+", required=True, help="one fork per value")
        parser.add_argument(
            "--cross-field", default="", help="a second field of the same step to cross with"
        )
        parser.add_argument(
            "--cross-values",
            nargs="+",
            default=[],
            help="values of --cross-field: each value's fork is forked once per cross value",
        )
        add_output(parser, json="print the grid as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        (given,) = read_runs(options, ("RUN",))
        source = self.get_run(given)
        values, crossing = options["values"], options["cross_values"]
        if bool(options["cross_field"]) != bool(crossing):
            raise CommandError("--cross-field and --cross-values go together")
        if Grid.fork_count(len(values), len(crossing)) > Grid.MAX_VALUES:
            what = "--values" if not crossing else "--values × (1 + --cross-values)"
            raise CommandError(f"{what} makes at most {Grid.MAX_VALUES} forks")
        # Every value of both fields is checked before the first fork is written: a bad value
        # writes nothing. Then every fork and the grid are written together.
        plan = resolve_grid(
            source, options["node"], options["field"], values, options["cross_field"], crossing
        )
        grid, made = make_grid(plan)
        # Executed here one by one, in order: each value's fork before the forks of it.
        app = LoadedApp(source.pipeline, plan.firsts[0].pipeline)  # resolved once, by the plan
        executed = execute([run.pk for run in made], app=app)
        if executed.interrupted:
            raise KeyboardInterrupt  # the forks not started are withdrawn (cancelled)
        for why in executed.lost.values():
            raise RewindError(why)
        finished = executed.done
        rows, nodes_by_run = load_grid(grid)
        matrix = build_matrix(grid, rows, nodes_by_run, None)
        steps = [
            f"{c['name']}#{c['occurrence']}" if c["repeated"] else c["name"]
            for c in matrix["columns"]
        ]
        result = {
            "run": source.pk,
            "grid": grid.pk,
            "node": options["node"],
            "field": options["field"],
            "cross_field": options["cross_field"] or None,
            "steps": steps,
            "parent_letters": [c.letter for c in matrix["rows"][0].cells],
            "rows": [
                self.row(source, finished[r.run.pk], r, grid.crossed) for r in matrix["rows"][1:]
            ],
        }
        if options["json"]:
            self.print_json(result)
            return
        self.table(grid, source, matrix, steps)

    @staticmethod
    def row(source: Run, fork: Run, row: MatrixRow, crossed: bool) -> dict[str, Any]:
        diff = diff_runs(source, fork)
        executed = fork.nodes.exclude(cache_source="inherited")
        return {
            "value": row.label,
            "cross_value": None if not crossed or row.cross_as_parent else row.cross_label,
            "run": fork.pk,
            "parent": fork.parent_id,  # the source, or (a crossed cell) the value's fork
            "status": fork.status,
            "first_divergence": diff.first_divergence,
            "artifact_sha256": fork.artifact_sha256 or None,
            "artifact_differs": diff.artifact["differs"],
            "changed_nodes": [n["name"] for n in diff.nodes if not n["same"]],
            # Per step (``steps``): "=" the parent's output, A, B, C… one per distinct other
            # output of the step down the grid, "" failed or not reached.
            "letters": [c.letter for c in row.cells],
            "total_tokens": sum(n.total_tokens for n in executed),
            "error": fork.error or None,
        }

    def table(self, grid: Grid, source: Run, matrix: dict[str, Any], steps: list[str]) -> None:
        over = f"{grid.field} × {grid.cross_field}" if grid.crossed else grid.field
        self.stdout.write(f"grid over {over} at {grid.node} of run {source.pk}")
        self.stdout.write(
            "per step: = the parent's output; A, B, C… one letter per distinct other output "
            "(same letter, same output); x failed; - not reached"
        )
        labels = [self.label(row, grid.crossed) for row in matrix["rows"]]
        width = min(max(16, *(len(label) for label in labels)), 40)
        widths = [max(len(step), 1) for step in steps]
        head = " ".join(f"{step:<{w}}" for step, w in zip(steps, widths, strict=True))
        self.stdout.write(f"{'value':<{width}} {'run':>5}  {'status':<9} {'tokens':>6}  {head}")
        for label, row in zip(labels, matrix["rows"], strict=True):
            tokens = "" if row.is_parent else str(row.tokens)
            marks = " ".join(f"{cell.mark:<{w}}" for cell, w in zip(row.cells, widths, strict=True))
            self.stdout.write(
                f"{label[:width]:<{width}} {row.run.pk:>5}  {row.run.status:<9} {tokens:>6}  "
                f"{marks}".rstrip()
            )
        self.stdout.write(f"stored as grid {grid.pk}: /grids/{grid.pk}/")

    @staticmethod
    def label(row: MatrixRow, crossed: bool) -> str:
        text = f"(parent) {row.label}" if row.is_parent else row.label
        if crossed:
            text += f" × {row.cross_label}" + (" (parent's)" if row.cross_as_parent else "")
        return text
