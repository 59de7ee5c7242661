"""Issue 7, finding 4: a Rewind command that fails prints one line on stderr and exits non-zero —
no Burr "Oh no an error!" banner, no state dump, no traceback — unless ``--traceback`` or
``-v 3`` asks for them.

Every command runs for real, as a user runs it: ``manage.py`` in a subprocess, against its own
migrated SQLite file. The failure cases run concurrently (each in its own process) once per
module; each test then checks one of them.
"""

from __future__ import annotations

import io
import json
import logging
import socket
import sqlite3
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.tests.helpers.manage_py import Result, closed_port, command_environment, manage

# --- running manage.py ------------------------------------------------------------------------


def dead_provider() -> dict[str, str]:
    """A provider that refuses connections, and a model no cache entry was made for: every
    llm call misses the cache and fails at once."""
    return {
        "REWIND_LLM_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1",
        "REWIND_LLM_MODEL": f"dead-{uuid.uuid4().hex[:8]}",
        "REWIND_LLM_RETRIES": "0",
        "REWIND_LLM_TIMEOUT": "5",
    }


@dataclass
class Site:
    """A migrated database with a completed research run and a failed run of ``broken``."""

    root: Path
    env: dict[str, str]
    run: int = 0
    failed: int = 0
    analyse_output: dict[str, Any] = field(default_factory=dict)

    def manage(self, *args: str, **extra_env: str) -> Result:
        return manage(self.env, *args, **extra_env)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Site:
    root = tmp_path_factory.mktemp("cli")
    site = Site(root, command_environment(root / "db.sqlite3", root / "artifacts"))
    migrated = site.manage("migrate", "--no-input", "-v", "0")
    assert migrated.returncode == 0, migrated
    seeded = site.manage("rewind_run", "--json")
    assert seeded.returncode == 0, seeded
    data = json.loads(seeded.stdout)
    site.run = data["run"]
    (analyse,) = [n for n in data["nodes"] if n["name"] == "analyse"]
    site.analyse_output = analyse["fields"]["output"]
    failed = site.manage("rewind_run", "--pipeline", "broken", "--json")
    assert failed.returncode != 0, failed
    site.failed = json.loads(failed.stdout)["run"]
    return site


# --- the failure cases ------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    says: str  # the one line names this
    env: dict[str, str] | None = None  # extra environment (dead_provider() …)


def verify_mismatch(site: Site) -> str:
    """An analyse output that the verify step's independent recomputation disagrees with."""
    output = json.loads(json.dumps(site.analyse_output))
    output["groups"]["A"]["conversions"] += 1
    return json.dumps(output)


def failure_cases(site: Site) -> dict[str, Case]:
    run, failed = str(site.run), str(site.failed)
    return {
        "tool raises an error": Case(("rewind_run", "--pipeline", "broken"), "the tool refused"),
        "tool raises a bug": Case(
            ("rewind_run", "--pipeline", "broken", "--input", "kind=runtime"),
            "the tool broke unexpectedly",
        ),
        "tool raises, --json": Case(
            ("rewind_run", "--pipeline", "broken", "--input", "kind=runtime", "--json"),
            "failed",
        ),
        "dead provider, new run": Case(
            ("rewind_run", "--input", "question=What is cheapest?"), "cannot reach", dead_provider()
        ),
        "dead provider, live fork": Case(
            # The run was the simulator's: the dead endpoint answers only when asked by name.
            ("rewind_fork", run, "--node", "critique", "--live", "--provider", "endpoint"),
            "cannot reach",
            dead_provider(),
        ),
        "live fork where another provider would answer": Case(
            ("rewind_fork", run, "--node", "critique", "--live"),
            "was answered by the offline simulator",
            dead_provider(),
        ),
        "verify mismatch via --set output": Case(
            ("rewind_fork", run, "--node", "analyse", "--set", f"output={verify_mismatch(site)}"),
            "verify",
        ),
        "unknown run (fork)": Case(("rewind_fork", "999999", "--node", "plan"), "999999"),
        "unknown run (replay)": Case(("rewind_replay", "999999"), "999999"),
        "unknown run (resume)": Case(("rewind_resume", "999999"), "999999"),
        "unknown node": Case(("rewind_fork", run, "--node", "nosuch"), "nosuch"),
        "--set without =": Case(
            ("rewind_fork", run, "--node", "plan", "--set", "nonsense"), "--set"
        ),
        "--set a field the node does not take": Case(
            ("rewind_fork", run, "--node", "research", "--set", "prompt=hi"), "prompt"
        ),
        "--set a bad temperature": Case(
            ("rewind_fork", run, "--node", "plan", "--set", "temperature=hot"), "temperature"
        ),
        "--enqueue a run with an unknown input": Case(
            ("rewind_run", "--enqueue", "--input", "nosuch=1"), "nosuch"
        ),
        "--enqueue a run with a bad temperature": Case(
            ("rewind_run", "--enqueue", "--temperature", "9"), "temperature"
        ),
        "--enqueue a fork with a bad override": Case(
            ("rewind_fork", run, "--node", "analyse", "--enqueue", "--set", "args.nosuch=1"),
            "nosuch",
        ),
        "unknown pipeline": Case(("rewind_run", "--pipeline", "nosuch"), "nosuch"),
        "replay of a failed run": Case(("rewind_replay", failed), "completed"),
        "replay with a bad --since": Case(("rewind_replay", "--since", "soon"), "--since"),
        "resume of a completed run": Case(("rewind_resume", run), "interrupted"),
        "diff, unknown second run": Case(("rewind_diff", run, "999999"), "999999"),
        "diff, ids that are not numbers": Case(("rewind_diff", "one", "two"), "numbers"),
        "grid, unknown field": Case(
            ("rewind_grid", run, "--node", "analyse", "--field", "args.nosuch", "--values", "1"),
            "nosuch",
        ),
        "grid, unknown run": Case(
            ("rewind_grid", "999999", "--node", "plan", "--field", "model", "--values", "m"),
            "999999",
        ),
        "stability, k out of range": Case(("rewind_stability", run, "-k", "0"), "-k"),
        "stability, unknown node": Case(
            ("rewind_stability", run, "--node", "nosuch", "-k", "1"), "nosuch"
        ),
        "verify against a dead provider": Case(("rewind_verify",), "failed", dead_provider()),
        "demo against a dead provider": Case(("rewind_demo", "--force"), "failed", dead_provider()),
        "bench against a dead provider": Case(
            ("rewind_bench", "--repeat", "1"), "failed", dead_provider()
        ),
        "a missing argument": Case(("rewind_fork", run), "--node"),
        "an argument of the wrong type": Case(("rewind_stability", run, "-k", "many"), "-k"),
        "a taken port": Case(("rewind_serve", "--port", "{taken}"), "already in use"),
    }


@pytest.fixture(scope="module")
def failures(site) -> dict[str, Result]:
    """Every failure case, run once, four processes at a time."""
    cases = failure_cases(site)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        taken = str(holder.getsockname()[1])

        def run(case: Case) -> Result:
            args = tuple(a.replace("{taken}", taken) for a in case.args)
            return site.manage(*args, **(case.env or {}))

        with ThreadPoolExecutor(max_workers=4) as pool:
            results = dict(zip(cases, pool.map(run, cases.values()), strict=True))
    return results


NOISE = ("Traceback", "Oh no an error", "State (at time of action)", "failed unexpectedly")


def assert_one_line_failure(result: Result, says: str = "") -> str:
    assert result.returncode != 0, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), result
    for noise in NOISE:
        assert noise not in result.stderr and noise not in result.stdout, result
    assert says in lines[0], result
    return lines[0]


CASES = list(
    failure_cases(Site(Path("."), {}, analyse_output={"groups": {"A": {"conversions": 0}}}))
)


@pytest.mark.parametrize("name", CASES)
def test_a_failure_is_one_line_and_a_non_zero_exit(name, site, failures):
    assert_one_line_failure(failures[name], failure_cases(site)[name].says)


def test_a_failed_run_still_prints_the_run_on_stdout(failures):
    result = failures["tool raises, --json"]

    data = json.loads(result.stdout)  # stdout stays the contract: one JSON object
    assert data["status"] == "failed" and "the tool broke unexpectedly" in data["error"]


def test_a_usage_error_exits_2(failures):
    assert failures["a missing argument"].returncode == 2
    assert failures["an argument of the wrong type"].returncode == 2


# --- asked for: the traceback -----------------------------------------------------------------


@pytest.mark.parametrize("flag", [("--traceback",), ("-v", "3")])
def test_traceback_or_verbosity_3_shows_the_tracebacks(site, flag):
    result = site.manage("rewind_run", "--pipeline", "broken", "--input", "kind=runtime", *flag)

    assert result.returncode != 0, result
    assert "Traceback" in result.stderr, result
    assert "RuntimeError: the tool broke unexpectedly" in result.stderr, result
    assert "Oh no an error" in result.stderr, result  # Burr's own report is not hidden then
    assert "failed unexpectedly" in result.stderr, result  # nor the engine's


@pytest.mark.parametrize("flag", [("--traceback",), ("-v", "3")])
def test_traceback_shows_where_an_engine_error_came_from(site, flag):
    result = site.manage("rewind_fork", str(site.run), "--node", "nosuch", *flag)

    assert result.returncode != 0, result
    assert "Traceback" in result.stderr and "nosuch" in result.stderr, result


def test_traceback_of_an_unknown_run(site):
    result = site.manage("rewind_diff", str(site.run), "999999", "--traceback")

    assert result.returncode != 0 and "Traceback" in result.stderr, result


# --- success stays quiet; what the engine logs still reaches a person ------------------------


def test_a_command_that_succeeds_over_failed_runs_prints_no_banner(site):
    """Stability over a dead provider: the live replays fail, the command reports them."""
    result = site.manage(
        "rewind_stability", str(site.run), "--node", "compose", "-k", "1", **dead_provider()
    )

    for noise in NOISE:
        assert noise not in result.stderr, result
    if result.returncode:
        assert len(result.stderr.splitlines()) == 1, result
    else:
        assert result.stderr == "", result


def test_warnings_are_written_after_a_command_that_succeeds(site):
    """The engine's warnings are held while the command runs, then written (without
    tracebacks) when it succeeds: here the run whose worker stopped beating."""
    stale = site.manage("rewind_run", "--pipeline", "broken", "--json")
    run = json.loads(stale.stdout)["run"]
    with closing(sqlite3.connect(site.root / "db.sqlite3")) as db, db:
        db.execute(
            "UPDATE runs_run SET status = 'running', heartbeat_at = '2000-01-01 00:00:00' "
            "WHERE id = ?",
            (run,),
        )

    result = site.manage("rewind_resume")

    assert result.returncode == 0, result
    assert f"marked interrupted: {run}" in result.stdout, result
    assert f"marked runs [{run}] interrupted" in result.stderr, result
    assert "Traceback" not in result.stderr, result


# --- in this process: logging is restored, code sees real exceptions -------------------------


def test_quiet_logs_restore_the_logging_of_the_process():
    from runs.management.base import QuietLogs

    rewind, burr = logging.getLogger("rewind"), logging.getLogger("burr")
    before = (rewind.handlers[:], rewind.propagate, burr.level)

    with pytest.raises(RuntimeError), QuietLogs():
        logging.getLogger("rewind.runner").warning("held, then dropped")
        raise RuntimeError

    assert (rewind.handlers, rewind.propagate, burr.level) == before


def test_held_records_are_written_without_their_traceback(caplog):
    from runs.management.base import QuietLogs

    caplog.set_level(logging.WARNING, logger="rewind")
    with QuietLogs():
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("rewind.runner").exception("run 1 failed unexpectedly")
        assert caplog.records == []  # held while the command runs

    (record,) = caplog.records
    assert record.getMessage() == "run 1 failed unexpectedly" and record.exc_info is None


def test_from_code_an_unexpected_error_is_not_disguised(monkeypatch):
    """``call_command`` callers (tests, scripts) get the real exception, not a one-liner."""

    def broken_diff(a, b, **kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr("runs.management.commands.rewind_diff.diff_runs", broken_diff)
    monkeypatch.setattr("runs.management.base.RewindCommand.get_run", lambda self, value: value)

    with pytest.raises(ZeroDivisionError):
        call_command("rewind_diff", "1", "2", stdout=io.StringIO())


def test_from_code_engine_errors_are_command_errors():
    with pytest.raises(CommandError, match="run ids are numbers"):
        call_command("rewind_diff", "x", "y", stdout=io.StringIO())
