"""Issue 7, finding 8: a command on a database that is not migrated says, in one line, what to
run — never a ``no such table`` traceback — and never echoes a password from DATABASE_URL.

The commands run for real (``manage.py`` in a subprocess) against SQLite files of their own:
an empty file, a file migrated only part of the way, a file in a folder that does not exist;
and against a PostgreSQL URL on a closed loopback port (nothing listens; no server is used).
"""

from __future__ import annotations

import socket
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from runs.tests.helpers.manage_py import Result, closed_port, command_environment, manage

MIGRATE = "run `python manage.py migrate`"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


COMMANDS = {
    "rewind_run": ("rewind_run",),
    "rewind_run --json": ("rewind_run", "--json"),
    "rewind_run --enqueue": ("rewind_run", "--enqueue"),
    "rewind_fork": ("rewind_fork", "1", "--node", "plan"),
    "rewind_fork --dry-run": ("rewind_fork", "1", "--node", "plan", "--dry-run"),
    "rewind_replay": ("rewind_replay", "--all"),
    "rewind_diff": ("rewind_diff", "1", "2"),
    "rewind_grid": ("rewind_grid", "1", "--node", "plan", "--field", "model", "--values", "m"),
    "rewind_stability": ("rewind_stability", "1", "-k", "1"),
    "rewind_resume": ("rewind_resume",),
    "rewind_verify": ("rewind_verify",),
    "rewind_demo": ("rewind_demo",),
    "rewind_bench": ("rewind_bench", "--repeat", "1"),
    "rewind_serve": ("rewind_serve", "--port", "{port}"),  # refuses instead of serving
}


def run_all(env: dict[str, str]) -> dict[str, Result]:
    def one(args: tuple[str, ...]) -> Result:
        return manage(env, *(a.replace("{port}", str(free_port())) for a in args))

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(COMMANDS, pool.map(one, COMMANDS.values()), strict=True))


def assert_one_line(result: Result) -> str:
    assert result.returncode != 0, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result
    assert "Traceback" not in result.stderr + result.stdout, result
    assert "no such table" not in lines[0], result
    return lines[0]


@pytest.fixture(scope="module")
def empty_database(tmp_path_factory) -> tuple[Path, dict[str, Result]]:
    root = tmp_path_factory.mktemp("unmigrated")
    database = root / "db.sqlite3"
    database.touch()
    return database, run_all(command_environment(database, root / "artifacts"))


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_on_an_empty_database_says_to_migrate(command, empty_database):
    database, results = empty_database

    line = assert_one_line(results[command])

    assert line == f"CommandError: the database at {database} is not migrated: {MIGRATE}"


def test_nothing_was_written_to_the_empty_database(empty_database):
    database, _ = empty_database

    with closing(sqlite3.connect(database)) as db:
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert tables == []


def test_a_database_missing_some_migrations_names_them(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = command_environment(database, tmp_path / "artifacts")
    for step in (("migrate",), ("migrate", "runs", "0001")):  # e.g. after a pull
        partial = manage(env, *step, "--no-input", "-v", "0")
        assert partial.returncode == 0, partial

    for args in (("rewind_run",), ("rewind_diff", "1", "2")):
        line = assert_one_line(manage(env, *args))

        assert f"the database at {database} is missing" in line, line
        assert "runs.0002_provider_settings" in line and line.endswith(MIGRATE), line


def test_a_database_in_a_folder_that_does_not_exist(tmp_path):
    database = tmp_path / "no" / "such" / "folder" / "db.sqlite3"
    env = command_environment(database, tmp_path / "artifacts")

    line = assert_one_line(manage(env, "rewind_run"))

    assert line.startswith(f"CommandError: cannot open the database at {database}: "), line


def test_an_unreachable_postgresql_is_one_line_without_the_password(tmp_path):
    password = "s3cr3t-Passw0rd"
    env = command_environment(tmp_path / "unused.sqlite3", tmp_path / "artifacts")
    port = closed_port()
    env["DATABASE_URL"] = f"postgres://rewind:{password}@127.0.0.1:{port}/rewind"

    for args in (("rewind_run",), ("rewind_replay", "--all")):
        result = manage(env, *args)
        line = assert_one_line(result)

        assert line.startswith(
            f"CommandError: cannot connect to the database at postgresql://rewind@127.0.0.1:{port}/rewind: "
        ), line
        assert password not in result.stderr + result.stdout
