"""One option vocabulary for the commands that run many runs.

``rewind_replay``, ``rewind_batch``, ``rewind_regress``, ``rewind_grid``, ``rewind_stability``
and ``rewind_bisect`` spell each idea one way: which runs (``--runs RUN ...``, ``--where``,
``--limit N``), samples (``--samples K``), execution (``--workers N``, ``--enqueue``) and output
(``--json``, ``--junit FILE``). Each command adds the groups it supports with the ``add_*``
functions here and reads them back with the ``read_*`` ones, so an idea has one spelling, one
help text and one refusal: a request that cannot be asked is one line and exit status 2 (as
argparse's own usage errors), before anything is written.

The spellings these commands had before — a positional run (``rewind_grid RUN``,
``rewind_bisect GOOD BAD``, ``rewind_replay RUN [RUN ...]``) and ``-k`` — still work, and
``--help`` says they are the old ones, kept until the next release.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.errors import RewindError
from runs.engine.execution.workers import MAX_WORKERS
from runs.engine.run_sets.requests import parse_where

BAD_INPUT = 2  # the exit status of a request that cannot be asked (1: it ran and failed)


def old_spelling(new: str) -> str:
    return f"the old spelling of {new}, kept until the next release"


def bad_input(message: str) -> CommandError:
    return CommandError(message, returncode=BAD_INPUT)


# --- which runs -------------------------------------------------------------------------------


def add_runs(
    parser: CommandParser,
    *,
    names: tuple[str, ...] = (),
    old_positional: bool = False,
    pipeline: str = "",
    where: bool = False,
    limit: bool = False,
) -> None:
    """``--runs`` (``names``: exactly these runs, e.g. ``("GOOD", "BAD")``; none: any number),
    the old positional spelling of it, and ``--pipeline`` (its help), ``--where``, ``--limit``."""
    exact = f" ({' then '.join(names)})" if len(names) > 1 else ""
    what = "the run" if len(names) == 1 else f"the {len(names)} runs" if names else "the runs"
    parser.add_argument(
        "--runs", nargs="+", default=[], metavar="RUN", help=f"ids of {what}{exact}"
    )
    if old_positional and names:
        for name in names:
            parser.add_argument(
                f"old_{name.lower()}",
                nargs="?",
                metavar=name,
                help=old_spelling(f"--runs {' '.join(names)}"),
            )
    elif old_positional:
        parser.add_argument(
            "old_runs", nargs="*", default=[], metavar="RUN", help=old_spelling("--runs")
        )
    if pipeline:
        parser.add_argument("--pipeline", default="", help=pipeline)
    if where:
        parser.add_argument(
            "--where",
            nargs="+",
            action="extend",
            default=[],
            metavar="input.NAME=VALUE",
            help="narrow --pipeline to its completed root runs whose input NAME is VALUE "
            "(repeatable; every one must hold)",
        )
    if limit:
        parser.add_argument(
            "--limit",
            type=int,
            default=None,
            metavar="N",
            help="the newest N runs of the selection",
        )


def read_runs(options: dict[str, Any], names: tuple[str, ...] = ()) -> list[str]:
    """The run ids given, by ``--runs`` or by the old positional spelling (the same runs
    both ways is fine; different ones is a refusal), and exactly ``len(names)`` of them
    when ``names`` are given."""
    new = [str(value) for value in options.get("runs") or []]
    if names:
        given = [options.get(f"old_{name.lower()}") for name in names]
        old = [str(value) for value in given if value is not None]
    else:
        old = [str(value) for value in options.get("old_runs") or []]
    if new and old and new != old:
        raise bad_input(
            f"--runs {' '.join(new)} and {' '.join(old)} (the old spelling) name different "
            "runs; give the runs once"
        )
    runs = new or old
    if names and len(runs) != len(names):
        wanted = " and ".join(names)
        if len(names) == 1:
            raise bad_input(f"give one run: --runs {names[0]}, got {len(runs)}")
        raise bad_input(
            f"give {len(names)} runs: --runs {' '.join(names)} ({wanted}), got {len(runs)}"
        )
    return runs


def read_where(options: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """``--where input.NAME=VALUE ...`` as (NAME, VALUE) pairs; a bad one is a refusal."""
    try:
        return tuple(parse_where(text) for text in options.get("where") or [])
    except RewindError as exc:
        raise bad_input(str(exc)) from None


def read_limit(options: dict[str, Any]) -> int | None:
    limit = options.get("limit")
    if limit is not None and limit < 1:
        raise bad_input(f"--limit must be at least 1, got {limit}")
    return limit


# --- samples ----------------------------------------------------------------------------------


def add_samples(
    parser: CommandParser,
    *,
    help: str,  # noqa: A002
    default: int | None = None,
    old_k: bool = False,
) -> None:
    """``--samples K`` (``default``; None: unset), and ``-k``, its old spelling, where a
    command had it."""
    parser.add_argument("--samples", type=int, default=default, metavar="K", help=help)
    if old_k:
        parser.add_argument(
            "-k", type=int, default=None, metavar="K", help=old_spelling("--samples")
        )


def read_samples(
    options: dict[str, Any], *, low: int, high: int, default: int | None = None
) -> int:
    """``--samples`` (or ``-k``) between ``low`` and ``high``; ``default`` when neither is
    given (None: one of them is required). A refusal names the option as it was written."""
    samples, k = options.get("samples"), options.get("k")
    if samples == default and k is not None:  # --samples not given (or given as its default)
        samples = None
    if samples is not None and k is not None and samples != k:
        raise bad_input(f"--samples {samples} and -k {k} (the old spelling) differ; give it once")
    value, spelled = (samples, "--samples") if samples is not None else (k, "-k")
    if value is None:
        if default is None:
            raise bad_input("give the number of samples: --samples K")
        return default
    if not low <= value <= high:
        raise bad_input(f"{spelled} must be between {low} and {high}, got {value}")
    return value


# --- execution --------------------------------------------------------------------------------


def add_execution(
    parser: CommandParser,
    *,
    noun: str = "runs",
    workers: bool = True,
    enqueue: bool = True,
    enqueued: str = "",
) -> None:
    """``--workers N`` and ``--enqueue`` (which of the two a command has: ``workers``,
    ``enqueue``; ``enqueued``: what ``--enqueue`` prints instead of a result)."""
    if workers:
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            metavar="N",
            help=f"execute the {noun} on N queue workers (db_worker processes, 1–{MAX_WORKERS}) "
            "started for them and stopped at the end; workers already serving the queue take "
            "part too (default: one after another in this process)",
        )
    if enqueue:
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help=f"hand the {noun} to the task queue (a worker executes them) and print them "
            f"queued{enqueued}",
        )


def read_execution(options: dict[str, Any]) -> int | None:
    """The worker count (None: in this process), checked against ``--enqueue``."""
    workers = options.get("workers")
    if workers is None:
        return None
    if not 1 <= workers <= MAX_WORKERS:
        raise bad_input(f"--workers must be between 1 and {MAX_WORKERS}, got {workers}")
    if options.get("enqueue"):
        raise bad_input("--workers or --enqueue, not both")
    return workers


# --- output -----------------------------------------------------------------------------------


def add_output(parser: CommandParser, *, json: str, junit: str = "") -> None:
    """``--json`` (``json``: what it prints) and, where a command has a verdict per run,
    ``--junit FILE`` (``junit``: what it writes)."""
    parser.add_argument("--json", action="store_true", help=json)
    if junit:
        parser.add_argument("--junit", metavar="FILE", default="", help=junit)
