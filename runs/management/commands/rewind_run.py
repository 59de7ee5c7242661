from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.pipeline import get_pipeline
from runs.engine.runner import create_run
from runs.management.base import RewindCommand


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
        self.add_execution_arguments(parser, "run")

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
        self.execute_and_report(run, options, total=len(get_pipeline(name).nodes))
