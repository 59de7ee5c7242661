from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.calls.keys import PROVIDER_IDENTITIES
from runs.engine.forking.forks import existing_fork, open_fork, preview_fork, resolve_fork
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Fork a finished run at a node with at most one changed field, replay the downstream "
        "steps in this process and print the fork. Without --set it is an unchanged replay. "
        "A fork made before (same step, --set value and mode) is printed instead of made "
        "again; --live always makes a new run."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", help="id of the run to fork")
        parser.add_argument(
            "--node",
            required=True,
            help="node to re-run: a name, name#k for its k-th run, or a step number",
        )
        parser.add_argument(
            "--set",
            metavar="FIELD=VALUE",
            help="the one override: prompt, model, temperature or output (llm nodes); "
            "args.NAME or output (tool nodes). output takes JSON.",
        )
        self.add_execution_arguments(parser, "fork")
        self.add_network_argument(parser)
        parser.add_argument(
            "--provider",
            choices=PROVIDER_IDENTITIES,
            help="what answers the fork's llm calls when it is not what answered the run: "
            "'simulator' lets the offline simulator answer a run made against an endpoint, "
            "'endpoint' the configured endpoint a simulator run (their answers are cached apart)",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="only show the dirty set: which steps would run live, at what projected token cost",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        source = self.get_run(options["run"])
        field = value = None
        if options["set"] is not None:
            field, sep, value = options["set"].partition("=")
            if not sep or not field.strip():
                raise CommandError(f"--set takes FIELD=VALUE, got {options['set']!r}")
            field = field.strip()
        # The request is resolved once: the preview and the fork take the same value.
        fork = resolve_fork(
            source, options["node"], field, value,
            live=options["live"], allow_network=options["allow_network"],
            provider=options["provider"],
        )  # fmt: skip
        if options["dry_run"]:
            existing = existing_fork(fork)
            preview = preview_fork(fork)
            # The same fork was made before: running this would open it, not make one.
            preview["opens"] = existing.pk if existing is not None else None
            self.show_preview(preview, options["json"])
            return
        opened = open_fork(fork)
        if not opened.reused:
            self.execute_and_report(opened.run, options, extra={"reused": False})
            return
        # The same fork was made before (open_fork's rule): print that run as it stands —
        # on stderr the notice, so that --json's stdout is the contract object alone.
        run = opened.run
        what = "replay" if run.override is None or run.replays_parent else "fork"
        again = (
            "it is still on its way; once it has finished, asking again replays anew"
            if what == "replay"
            else "--live makes a new run (it skips the cache)"
        )
        self.stderr.write(f"you already made this {what}: run {run.pk} ({run.status}); {again}")
        self.report(run, options, finished=False, extra={"reused": True})

    def show_preview(self, preview: dict[str, Any], as_json: bool) -> None:
        if as_json:
            self.print_json(preview)
            return
        if preview["inherited"]:
            self.stdout.write("inherited  " + ", ".join(preview["inherited"]))
        for step in preview["steps"]:
            will_be = step["will_be"] if step["exact"] else f"{step['will_be']} (expected)"
            self.stdout.write(
                f"{step['sequence_id']:>4}  {step['name']:<10} {step['kind']:<4}  "
                f"{will_be:<23} ~{step['projected_tokens']} tokens"
            )
        if preview["opens"] is not None:
            self.stdout.write(
                f"an identical fork was made before: this opens run {preview['opens']} "
                "instead of making one (--live makes a new run)"
            )
        miss = preview["first_miss"]
        self.stdout.write(
            f"{len(preview['live'])} step(s) live, ~{preview['projected_tokens']} tokens projected; "
            + (
                "exact: every step was walked through the cache"
                if preview["exact"]
                else f"exact up to {miss['name']} (step {miss['sequence_id']}), the first "
                "cache miss; the steps after it are expected"
            )
        )
