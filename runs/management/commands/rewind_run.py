from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.execution.new_runs import create_run
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
            help="a pipeline input; for a Burr app a runtime input of the first turn, as "
            "app.run(inputs=...); repeatable",
        )
        parser.add_argument(
            "--turn",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="Burr apps: one more turn with this runtime input (a chat's next message); "
            "repeatable, one turn each",
        )
        parser.add_argument(
            "--halt-after",
            action="append",
            default=[],
            metavar="STEP",
            help="Burr apps: a turn ends after this action, as app.run(halt_after=...)",
        )
        parser.add_argument(
            "--halt-before",
            action="append",
            default=[],
            metavar="STEP",
            help="Burr apps: a turn ends before this action, as app.run(halt_before=...)",
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
            turns=[parse_pairs([turn], "--turn") for turn in options["turn"]],
            halt_after=options["halt_after"],
            halt_before=options["halt_before"],
            model=options["model"],
            temperature=options["temperature"],
            live=options["live"],
        )
        pipeline = get_pipeline(name)
        # A declared pipeline runs each node once; a Burr app's step count is not known ahead.
        total = len(pipeline.nodes) if not isinstance(pipeline, BurrApp) else None
        self.execute_and_report(run, options, total=total)
