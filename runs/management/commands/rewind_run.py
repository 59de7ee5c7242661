from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.pipeline import get_pipeline
from runs.engine.report import run_json
from runs.engine.runner import create_run, execute_run
from runs.management.base import RewindCommand, format_run
from runs.tasks import enqueue_run


def parse_pairs(pairs: list[str], option: str) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"{option} takes KEY=VALUE, got {pair!r}")
        parsed[key.strip()] = value
    return parsed


class Command(RewindCommand):
    help = "Run a pipeline to the end in this process and print the finished run."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--pipeline", default=None, help="registered pipeline (default: research)"
        )
        parser.add_argument(
            "--input",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a pipeline input; repeatable",
        )
        parser.add_argument("--model", help="model to request (default: REWIND_LLM_MODEL)")
        parser.add_argument(
            "--temperature", help="sampling temperature, 0 to 2 (default: REWIND_LLM_TEMPERATURE)"
        )
        parser.add_argument(
            "--live", action="store_true", help="skip cache reads (measures jitter)"
        )
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help="hand the work to the task queue (a worker runs it) and print the queued run",
        )
        parser.add_argument("--json", action="store_true", help="print the run as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        name = options["pipeline"] or settings.REWIND_DEFAULT_PIPELINE
        run = create_run(
            name,
            parse_pairs(options["input"], "--input"),
            model=options["model"],
            temperature=options["temperature"],
            live=options["live"],
        )
        if options["enqueue"]:
            enqueue_run(run)
        else:
            run = execute_run(run.pk, on_step=self.progress(len(get_pipeline(name).nodes)))
        data = run_json(run)
        if options["json"]:
            self.print_json(data)
        else:
            self.stdout.write(format_run(data))
        if run.status not in (run.Status.COMPLETED, run.Status.QUEUED):
            raise CommandError(f"run {run.pk} {run.status}: {run.error}")
