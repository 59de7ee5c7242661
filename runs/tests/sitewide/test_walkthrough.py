"""README, "Use Rewind with your own Burr app": the walkthrough is a script a newcomer pastes
(``docs/walkthrough.sh``) and its program is a file (``docs/my_agent.py``); the README shows
both as they are, and this test runs exactly that script, in a fresh shell, on Burr's
multi-modal chatbot as it ships inside ``apache-burr``.

The script runs in a temp directory laid out like the project (``manage.py`` and ``docs/``
linked, ``.venv/bin/python`` a wrapper of this interpreter) over a database that the demo
has already filled, so run ids 1 and 2 are taken and the script must use the ids it is
given. The simulator it starts listens on a free loopback port; any other connection goes to a
proxy on a closed port.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from runs.tests.conftest import PROJECT_ROOT, closed_port_url

SCRIPT = PROJECT_ROOT / "docs" / "walkthrough.sh"
PROGRAM = PROJECT_ROOT / "docs" / "my_agent.py"
README = PROJECT_ROOT / "README.md"

# What the developer's shell may hold that would point the script somewhere else.
SCRUBBED = ("DATABASE_URL", "REWIND_", "OPENAI_", "ANTHROPIC_", "DJANGO_SETTINGS_MODULE")


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def test_the_readme_shows_the_script_and_the_program_as_they_are():
    readme = README.read_text()

    assert SCRIPT.read_text() in fenced(readme, "sh")
    assert PROGRAM.read_text() in fenced(readme, "python")


def test_the_script_hard_codes_no_run_id():
    script = SCRIPT.read_text()

    assert not re.search(r"rewind_(fork|diff|replay)\s+\d", script)
    assert 'rewind_fork "$RUN"' in script and 'rewind_diff "$RUN" "$FORK"' in script


@pytest.fixture
def project(tmp_path) -> Path:
    """A directory laid out like the project: where a newcomer pastes the script."""
    (tmp_path / "manage.py").symlink_to(PROJECT_ROOT / "manage.py")
    (tmp_path / "docs").symlink_to(PROJECT_ROOT / "docs")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return tmp_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def shell_env(project: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    dead_proxy = closed_port_url().removesuffix("/v1")
    return {
        **env,
        "HOME": str(project),  # the chatbot's factory keeps Burr's tracker under ~/.burr
        "PYTHONPATH": str(PROJECT_ROOT),  # docs/my_agent.py imports runs as the venv would
        "REWIND_ARTIFACT_DIR": str(project / "artifacts"),
        "REWIND_SIMULATOR_PORT": str(port),
        "HTTP_PROXY": dead_proxy,
        "HTTPS_PROXY": dead_proxy,
        "NO_PROXY": "127.0.0.1,localhost",
    }


def run(project: Path, env: dict[str, str], *command: str) -> subprocess.CompletedProcess:
    """A command in the project directory, in a process group of its own: whatever it left
    running (the simulator, if the script failed half-way) is stopped with it."""
    process = subprocess.Popen(
        command,
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=600)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def manage(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    database = {"DATABASE_URL": f"sqlite:///{project / 'walkthrough.sqlite3'}"}
    return run(project, {**env, **database}, ".venv/bin/python", "manage.py", *args)


def test_the_walkthrough_script_runs_in_a_fresh_shell(project):
    port = free_port()
    env = shell_env(project, port)
    # The demo came first and took run ids 1 to 3 (the old walkthrough forked run 1).
    seeded = manage(project, env, "migrate", "--verbosity", "0")
    assert seeded.returncode == 0, seeded.stderr
    seeded = manage(project, env, "rewind_demo")
    assert seeded.returncode == 0, seeded.stderr

    # What a newcomer does, with every failing command stopping it.
    done = run(project, env, "bash", "-e", "-o", "pipefail", str(project / "docs/walkthrough.sh"))

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    source = int(re.search(r"^recorded run (\d+)$", done.stdout, re.M).group(1))
    fork = int(re.search(r"^forked run (\d+)$", done.stdout, re.M).group(1))
    assert source > 3 and fork > source  # not the demo's ids
    assert "the chatbot answered with: image" in done.stdout  # "Draw a cat", drawn
    assert f"sqlite:///{project}/walkthrough.sqlite3" in done.stdout  # how to serve them
    with socket.socket() as probe:  # the script stopped its simulator
        assert probe.connect_ex(("127.0.0.1", port)) != 0

    # The fork diverged where it was made, and its diff says so.
    diff = manage(project, env, "rewind_diff", str(source), str(fork), "--json")
    assert json.loads(diff.stdout)["first_divergence"]["node"] == "decide_mode"
    assert "decide_mode" in done.stdout.split(f"forked run {fork}")[1]

    # The program's run was recorded beside them, as a run of the registered app.
    with sqlite3.connect(project / "walkthrough.sqlite3") as db:
        chatbot = db.execute(
            "SELECT id, status, parent_id FROM runs_run WHERE pipeline = 'chatbot' AND id > ? "
            "ORDER BY id",
            [fork],
        ).fetchall()
    program = chatbot[0]  # then the script's replays
    assert program[1:] == ("completed", None)

    # The script replayed every run, the demo's three and its own three, with the simulator
    # stopped: each identical to its source (which needs 0 tokens and no live step).
    assert re.search(r"^6/6 identical$", done.stdout, re.M), done.stdout[-2000:]
