"""What every Rewind command shares: one-line errors, run lookup, terminal progress.

A command run from a shell that fails prints exactly one line on stderr and exits non-zero:
engine errors, a failed run, a database that is not migrated or cannot be reached, a bad
argument, even a bug. Burr's error banner, its state dump and the engine's tracebacks are
held back for the duration of the command; ``--traceback`` or ``-v 3`` shows everything.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import traceback
from contextlib import ExitStack, redirect_stdout
from typing import Any

from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
    SystemCheckError,
)
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from runs.engine.errors import RewindError
from runs.engine.telemetry import otlp
from runs.models import Node, Run

MIGRATE = "run `python manage.py migrate`"


def one_line(message: str) -> str:
    """``message`` on one line: its lines joined with "; "."""
    return "; ".join(line.strip() for line in str(message).splitlines() if line.strip())


def database_location(alias: str = DEFAULT_DB_ALIAS) -> str:
    """Where the database is, for a person: the SQLite file, or ``vendor://user@host:port/name``.
    Never the password."""
    connection = connections[alias]
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return str(db["NAME"])
    user = f"{db['USER']}@" if db.get("USER") else ""
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"{connection.vendor}://{user}{db.get('HOST') or 'localhost'}{port}/{db['NAME']}"


def without_password(text: str, alias: str = DEFAULT_DB_ALIAS) -> str:
    password = connections[alias].settings_dict.get("PASSWORD")
    return text.replace(password, "***") if password else text


def unapplied_migrations(alias: str = DEFAULT_DB_ALIAS) -> tuple[list[str], bool]:
    """The migrations the database still needs, and whether it has any applied at all."""
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[alias])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    pending = [f"{m.app_label}.{m.name}" for m, backwards in plan if not backwards]
    return pending, bool(executor.loader.applied_migrations)


def migration_problem(alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """One line saying what to run if the database is not (fully) migrated, else None."""
    pending, any_applied = unapplied_migrations(alias)
    if not pending:
        return None
    where = database_location(alias)
    if not any_applied:
        return f"the database at {where} is not migrated: {MIGRATE}"
    named = ", ".join(pending[:3]) + (", …" if len(pending) > 3 else "")
    return f"the database at {where} is missing {len(pending)} migration(s) ({named}): {MIGRATE}"


def database_problem(exc: DatabaseError, alias: str = DEFAULT_DB_ALIAS) -> str:
    """One line for a database error: what to run when the schema is missing, otherwise where
    the database is and what it said (never the password)."""
    connection = connections[alias]
    where = database_location(alias)
    said = without_password(one_line(str(exc)) or type(exc).__name__, alias)
    if connection.connection is None:  # it never opened
        verb = "open" if connection.vendor == "sqlite" else "connect to"
        return f"cannot {verb} the database at {where}: {said}"
    try:
        problem = migration_problem(alias)
    except DatabaseError:
        problem = None
    return problem or f"database error at {where}: {said}"


class HeldLogs(logging.Handler):
    """Holds the records the ``rewind`` loggers emit while a command runs."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class QuietLogs:
    """For the duration of a command run from a shell: Burr's loggers are silent (its error
    banner, state dump and traceback), and what the ``rewind`` loggers say is held back —
    written after the command succeeds, without tracebacks; dropped when it fails, since its
    one-line error says what failed. Everything is restored afterwards, so the logging of
    whatever else runs in the process (the dashboard, a worker) is its own."""

    SILENT = ("burr",)
    HELD = "rewind"

    def __enter__(self) -> QuietLogs:
        self.levels = {name: logging.getLogger(name).level for name in self.SILENT}
        for name in self.SILENT:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        held = logging.getLogger(self.HELD)
        self.saved = (held.handlers[:], held.propagate)
        self.handler = HeldLogs()
        held.handlers, held.propagate = [self.handler], False
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)
        held = logging.getLogger(self.HELD)
        held.handlers, held.propagate = self.saved
        if exc_type is None:
            for record in self.handler.records:
                record.exc_info = record.exc_text = record.stack_info = None
                held.handle(record)
        return False


class RewindCommand(BaseCommand):
    """Turns every failure into ``CommandError``: one clear line and exit status 1.

    Run from a shell, a command also refuses a database that is not migrated (one line saying
    what to run), and keeps Burr's and the engine's tracebacks off stderr unless ``--traceback``
    or ``-v 3`` asks for them. Called from code (``call_command``), only engine errors are
    converted; anything else propagates as it is, and logging is left alone.
    """

    # The commands that serve (``rewind_serve``) keep the process's logging as configured.
    quiet_logs = True
    requires_migrations_checks = True

    @property
    def from_shell(self) -> bool:
        return getattr(self, "_called_from_command_line", False)

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        """A usage error from a shell is one line too (argparse prints the usage first)."""
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        programmatic = parser.error

        def error(message: str) -> None:
            if not parser.called_from_command_line:
                programmatic(message)
            parser.exit(2, f"{parser.prog}: error: {one_line(message)} (see --help)\n")

        parser.error = error  # type: ignore[method-assign]
        return parser

    def check_migrations(self) -> None:
        """From a shell, a database that is not migrated is one line saying what to run
        (Django's own check only prints a notice and lets the command fail later)."""
        if not self.from_shell:
            return
        problem = migration_problem()
        if problem:
            raise CommandError(problem)

    def execute(self, *args: Any, **options: Any) -> Any:
        show_traceback = bool(options.get("traceback"))
        verbose = show_traceback or int(options.get("verbosity", 1)) >= 3
        quiet = self.from_shell and self.quiet_logs and not verbose
        try:
            with ExitStack() as stack:
                if quiet:
                    stack.enter_context(QuietLogs())
                if options.get("json"):
                    # Stdout carries the JSON alone: what the app itself prints (a print() in
                    # an action) goes to stderr. The command's own stdout was bound before.
                    stack.enter_context(redirect_stdout(sys.stderr))
                if self.from_shell:
                    # The runs' traces leave before the interpreter's shutdown begins (where
                    # the exporter may no longer start the thread its flush needs).
                    stack.callback(otlp.close)
                return super().execute(*args, **options)
        except SystemCheckError:
            raise  # formats itself
        except (Exception, KeyboardInterrupt) as exc:
            error = self.as_command_error(exc)
            if error is None or show_traceback:
                raise
            if verbose and self.from_shell:
                self.stderr.write("".join(traceback.format_exception(exc)).rstrip("\n"))
            raise error from (exc if verbose else None)

    def as_command_error(self, exc: BaseException) -> CommandError | None:
        """The one-line ``CommandError`` for ``exc``; None to let it propagate as it is."""
        if isinstance(exc, CommandError):
            return CommandError(one_line(str(exc)), returncode=exc.returncode)
        if isinstance(exc, RewindError):
            return CommandError(one_line(str(exc)))
        if isinstance(exc, KeyboardInterrupt):
            return CommandError("interrupted")
        if not self.from_shell:
            return None  # called from code: the caller sees the real exception
        if isinstance(exc, DatabaseError):
            return CommandError(database_problem(exc))
        return CommandError(f"{type(exc).__name__}: {one_line(str(exc))} (--traceback shows where)")

    def get_run(self, value: str) -> Run:
        if not re.fullmatch(r"[0-9]{1,18}", str(value)):  # not isdigit(): "²" is a digit
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

    def add_network_argument(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--allow-network",
            action="store_true",
            help="let replayed steps reach the network where no call was recorded (by default "
            "a replay is hermetic: such a connection fails the step, naming it)",
        )

    def execute_and_report(
        self,
        run: Run,
        options: dict[str, Any],
        total: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Run ``run`` here (or enqueue it with ``--enqueue``), print it (with ``extra`` in
        its JSON), and exit non-zero if it did not complete."""
        from runs.engine.execution.runner import execute_run
        from runs.tasks import enqueue_run

        if options["enqueue"]:
            enqueue_run(run)
        else:
            run = execute_run(run.pk, on_step=self.progress(total))
        self.report(run, options, finished=not options["enqueue"], extra=extra)

    def report(
        self,
        run: Run,
        options: dict[str, Any],
        *,
        finished: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Print ``run`` (``--json``: the contract object alone, plus ``extra``); exit
        non-zero if it was meant to be ``finished`` and did not complete."""
        from runs.engine.analysis.report import run_json

        data = {**run_json(run), **(extra or {})}
        if options["json"]:
            self.print_json(data)
        else:
            self.stdout.write(format_run(data))
        if finished and run.status != Run.Status.COMPLETED:
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


def format_outcome(outcome: dict[str, Any]) -> str:
    """``best_group = "A"  pass`` / ``fail (is not …)`` / ``missing: …``."""
    verdict = {True: "pass", False: "fail", None: ""}[outcome["pass"]]
    value = "—" if outcome.get("missing") else json.dumps(outcome["value"], ensure_ascii=False)
    why = f" ({outcome['why']})" if outcome.get("why") else ""
    return f"{outcome['name']} = {value[:120]}  {verdict}{why}".rstrip()


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
    if data.get("imported_from"):
        origin = data["imported_from"]
        lines.append(f"imported  {origin['project']}/{origin['app_id']} from {origin['path']}")
    if data.get("spawned_by"):
        lines.append(
            f"spawned   by run {data['spawned_by']['run']} at step {data['spawned_by']['sequence_id']}"
        )
    width = max([10, *(len(node["name"]) for node in data["nodes"])])
    lines.append(
        f"{'step':>4}  {'node':<{width}} {'kind':<4}  {'status':<9} {'source':<12} {'tokens':>6}  sha256"
    )
    for node in data["nodes"]:
        lines.append(
            f"{node['sequence_id']:>4}  {node['name']:<{width}} {node['kind']:<4}  {node['status']:<9} "
            f"{node['cache_source']:<12} {node['total_tokens']:>6}  {(node['output_sha256'] or '-')[:16]}"
        )
    totals = data["totals"]
    # null: a step was answered by a model with no price (runs/engine/calls/pricing.py); never $0.
    cost = "cost unknown" if totals["cost_usd"] is None else f"${totals['cost_usd']:.6f}"
    lines.append(
        f"totals    {totals['total_tokens']} tokens, {cost}, "
        f"{totals['live_nodes']} live node(s)"
        + ("  [offline simulator]" if data.get("simulator") else "")
    )
    if data["artifact"]["path"]:
        lines.append(f"artifact  {data['artifact']['path']}  sha256 {data['artifact']['sha256']}")
    if data.get("trajectory_sha256"):
        lines.append(f"trajectory sha256 {data['trajectory_sha256']}")
    for outcome in data.get("outcomes") or []:
        lines.append(f"outcome   {format_outcome(outcome)}")
    if data.get("children"):
        lines.append("forks     " + ", ".join(f"run {pk}" for pk in data["children"]))
    if data.get("error"):
        lines.append(f"error     {data['error']}")
    return "\n".join(lines)
