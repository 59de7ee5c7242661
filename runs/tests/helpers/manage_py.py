"""Rewind's commands run for real, as a user runs them: ``manage.py`` in a subprocess
(``manage``), in the environment of a user's shell over a database of the test's own
(``command_environment``: that database, the offline simulator, no key, and the ``broken``
pipeline below registered). Used by ``commands/test_command_errors.py`` and
``commands/test_command_unmigrated.py``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from runs.engine.apps.specs import Pipeline, ToolNode, chain
from runs.engine.providers.config import KEY_VARIABLES

PROJECT_ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 90  # seconds; a command that hangs fails its test instead of the suite


# --- a pipeline whose tool raises, for the subprocesses (REWIND_PIPELINES) ------------------


def _start(args: dict[str, Any], data_dir: Path) -> str:
    return args["kind"]


def _boom(args: dict[str, Any], data_dir: Path) -> Any:
    if args["kind"] == "runtime":
        raise RuntimeError("the tool broke unexpectedly")  # a bug: not a tool error
    raise ValueError("the tool refused its input")  # a tool error: fails the node


broken = Pipeline(
    name="broken",
    description="a tool that raises (test pipeline)",
    nodes=(
        ToolNode(name="start", reads=("kind",), args=lambda v: {"kind": v["kind"]}, run=_start),
        ToolNode(name="boom", reads=("start",), args=lambda v: {"kind": v["start"]}, run=_boom),
    ),
    transitions=chain("start", "boom"),
    entrypoint="start",
    inputs={"kind": "value"},
)


# --- running manage.py ------------------------------------------------------------------------


@dataclass
class Result:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (
            f"manage.py {' '.join(self.args)} → exit {self.returncode}\n"
            f"--- stderr ---\n{self.stderr}\n--- stdout ---\n{self.stdout[-2000:]}"
        )


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def command_environment(database: Path, artifacts: Path) -> dict[str, str]:
    """The environment of a user's shell: this database, the offline simulator, no key."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("REWIND_", "DJANGO_")) and name not in KEY_VARIABLES
    }
    env.update(
        {
            "DATABASE_URL": f"sqlite:///{database}",
            "DJANGO_SETTINGS_MODULE": "rewind_site.settings",
            "REWIND_ARTIFACT_DIR": str(artifacts),
            "REWIND_PIPELINES": f"broken={__name__}.broken",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def manage(env: dict[str, str], *args: str, **extra_env: str) -> Result:
    """``manage.py ARGS`` in a subprocess. One that hangs is stopped with SIGABRT, which makes
    Python print where every thread was (``PYTHONFAULTHANDLER``), and fails the test."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT,
        env={**env, **extra_env, "PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        try:
            stdout, stderr = process.communicate(timeout=10)
        finally:
            process.kill()
        pytest.fail(f"manage.py {' '.join(args)} hung for {TIMEOUT} s:\n{stderr}")
    return Result(args, process.returncode, stdout, stderr)
