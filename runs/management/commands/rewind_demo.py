from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.management.base import RewindCommand
from runs.models import Run


class Command(RewindCommand):
    help = (
        "Seed the demo: a research run, a fork of it at analyse with cost_scale=3 and an "
        "unchanged replay. Does nothing if a completed research run already exists."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="seed again even if runs exist")

    def handle(self, *args: Any, **options: Any) -> None:
        existing = Run.objects.filter(pipeline="research", status=Run.Status.COMPLETED).first()
        if existing and not options["force"]:
            self.stdout.write(f"demo: runs exist already (e.g. run {existing.pk}); nothing seeded")
            return
        run = execute_run(create_run("research").pk)
        if run.status != Run.Status.COMPLETED:  # nothing to fork: say why, in one line
            raise CommandError(f"demo: run {run.pk} {run.status}: {run.error}")
        fork = execute_run(create_fork(run, "analyse", "args.cost_scale", "3").pk)
        replay = execute_run(create_replay(run).pk)
        self.stdout.write(
            f"demo: run {run.pk} ({run.status}), fork {fork.pk} at analyse with "
            f"args.cost_scale=3 ({fork.status}), unchanged replay {replay.pk} ({replay.status})"
        )
