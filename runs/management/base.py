"""What every Rewind command shares: clear one-line errors, run lookup, terminal progress."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from runs.engine.errors import RewindError
from runs.models import Node, Run


class RewindCommand(BaseCommand):
    """Turns engine errors into ``CommandError``: one clear line and exit status 1."""

    def execute(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute(*args, **options)
        except RewindError as exc:
            raise CommandError(str(exc)) from None
        except KeyboardInterrupt:
            raise CommandError("interrupted") from None

    def get_run(self, value: str) -> Run:
        if not str(value).isdigit():
            raise CommandError(f"run ids are numbers, got {value!r}")
        try:
            return Run.objects.get(pk=int(value))
        except Run.DoesNotExist:
            raise CommandError(f"no run {value}") from None

    def add_execution_arguments(self, parser: CommandParser, noun: str = "run") -> None:
        """``--live``, ``--enqueue`` and ``--json``, shared by the commands that start work."""
        parser.add_argument(
            "--live", action="store_true", help="skip cache reads (measures jitter)"
        )
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help=f"hand the work to the task queue (a worker runs it) and print the queued {noun}",
        )
        parser.add_argument(
            "--json", action="store_true", help=f"print the {noun} as one JSON object"
        )

    def execute_and_report(
        self, run: Run, options: dict[str, Any], total: int | None = None
    ) -> None:
        """Run ``run`` here (or enqueue it with ``--enqueue``), print it, and exit non-zero
        if it did not complete."""
        from runs.engine.report import run_json
        from runs.engine.runner import execute_run
        from runs.tasks import enqueue_run

        if options["enqueue"]:
            enqueue_run(run)
        else:
            run = execute_run(run.pk, on_step=self.progress(total))
        data = run_json(run)
        if options["json"]:
            self.print_json(data)
        else:
            self.stdout.write(format_run(data))
        if not options["enqueue"] and run.status != Run.Status.COMPLETED:
            raise CommandError(f"run {run.pk} {run.status}: {run.error}")

    def print_json(self, value: Any) -> None:
        self.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    def progress(self, total: int | None = None):
        """A callback for ``execute_run(on_step=…)`` that prints each finished step on a
        terminal (stderr), and stays silent when output goes to a pipe or a file."""
        if not self.stderr.isatty():
            return None

        def report(node: Node) -> None:
            of = f"/{total}" if total else ""
            mark = "✓" if node.status == Node.Status.COMPLETED else "✗"
            self.stderr.write(
                f"  {mark} step {node.sequence_id + 1}{of} {node.name:<10} {node.cache_source:<12} "
                f"{node.total_tokens:>6} tokens  {node.latency_ms:>8.1f} ms"
            )
            self.stderr.flush()

        return report


def format_run(data: dict[str, Any]) -> str:
    """The human-readable form of ``run_json``."""
    lines = [
        f"run {data['run']}  {data['pipeline']}  {data['status']}"
        + (f"  (fork of {data['parent']} at {data['fork']['node']})" if data["fork"] else ""),
    ]
    if data["fork"] and data["fork"]["field"]:
        lines.append(
            f"override  {data['fork']['field']} = {json.dumps(data['fork']['value'])[:120]}"
        )
    elif data["fork"]:
        lines.append("override  none (unchanged replay)")
    lines.append(
        f"{'step':>4}  {'node':<10} {'kind':<4}  {'status':<9} {'source':<12} {'tokens':>6}  sha256"
    )
    for node in data["nodes"]:
        lines.append(
            f"{node['sequence_id']:>4}  {node['name']:<10} {node['kind']:<4}  {node['status']:<9} "
            f"{node['cache_source']:<12} {node['total_tokens']:>6}  {(node['output_sha256'] or '-')[:16]}"
        )
    totals = data["totals"]
    lines.append(
        f"totals    {totals['total_tokens']} tokens, ${totals['cost_usd']:.6f}, "
        f"{totals['live_nodes']} live node(s)"
        + ("  [offline simulator]" if data.get("simulator") else "")
    )
    if data["artifact"]["path"]:
        lines.append(f"artifact  {data['artifact']['path']}  sha256 {data['artifact']['sha256']}")
    if data.get("trajectory_sha256"):
        lines.append(f"trajectory sha256 {data['trajectory_sha256']}")
    if data.get("error"):
        lines.append(f"error     {data['error']}")
    return "\n".join(lines)
