"""Hermetic from process start (DESIGN.md, "Hermetic replays"): the guard is in place before the
registered app's module is imported, so a connection the app opened at import — a module-level
client written to by its background sender thread, a worker thread that connected as it
started — is known: a write on it while a step runs is noted on a recorded run, and refused on
an unchanged replay, naming the step, the endpoint and the line; the side effect is not
repeated.

Each command runs as a user runs it, ``manage.py`` in a fresh subprocess: a process where
nothing of the capture was installed before the app's module was imported.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from runs.tests.helpers.manage_py import PROJECT_ROOT, Result, command_environment, manage
from runs.tests.helpers.message_counters import LineCounter

APPS = ",".join(
    f"{name}=runs.tests.helpers.import_time_apps.{name}_application"
    for name in ("client", "worker")
)
# A user's own program: its client connects as its module is imported, before it even imports
# Rewind; the one line records it.
PROGRAM = textwrap.dedent(
    """
    from burr.core import ApplicationBuilder

    from runs.tests.helpers.import_time_apps import publish_event

    from runs.recording import rewind_hooks

    app = (
        ApplicationBuilder()
        .with_actions(publish_event=publish_event)
        .with_entrypoint("publish_event")
        .with_hooks(*rewind_hooks("client"))
        .build()
    )
    app.run(halt_after=["publish_event"])
    """
)


@dataclass
class Site:
    root: Path
    env: dict[str, str]
    events: LineCounter

    def manage(self, *args: str) -> Result:
        return manage(self.env, *args)

    def record(self, pipeline: str) -> dict:
        recorded = self.manage("rewind_run", "--pipeline", pipeline, "--json")
        assert recorded.returncode == 0, recorded
        return json.loads(recorded.stdout)

    def replay(self, run: int) -> tuple[Result, dict]:
        replayed = self.manage("rewind_replay", str(run), "--json")
        (result,) = json.loads(replayed.stdout)["results"]
        return replayed, result


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    root: Path = tmp_path_factory.mktemp("import-time")
    events = LineCounter()
    env = command_environment(root / "db.sqlite3", root / "artifacts")
    env.update({"REWIND_PIPELINES": APPS, "EVENTS_PORT": str(events.port)})
    made = Site(root, env, events)
    migrated = made.manage("migrate", "--no-input", "-v", "0")
    assert migrated.returncode == 0, migrated
    yield made
    events.close()


def test_a_client_connected_at_import_is_held_to_the_step_its_sender_works_for(site):
    before = site.events.reached(10**6, 0)
    source = site.record("client")
    assert site.events.reached(before + 1) == before + 1
    (warning,) = source["warnings"]
    port = site.events.port
    assert warning.startswith(
        f"publish_event wrote to a connection it had opened to 127.0.0.1:{port} outside capture"
    ), warning
    assert "in thread 'event-sender' outside the step" in warning
    assert "import_time_apps.py:" in warning  # the sender's line, in the app's code

    replayed, result = site.replay(source["run"])

    assert result["verdict"] == "failed", result
    assert replayed.returncode != 0
    assert site.events.reached(before + 2, 0.5) == before + 1  # the event was not sent again
    error = result["error"]
    assert f"127.0.0.1:{port} outside capture during a replay" in error, error
    assert "publish_event" in error and "event-sender" in error
    assert "import_time_apps.py:" in error


def test_a_worker_thread_started_at_import_is_held_to_the_step_it_serves(site):
    before = site.events.reached(10**6, 0)
    source = site.record("worker")
    assert site.events.reached(before + 1) == before + 1
    (warning,) = source["warnings"]
    assert warning.startswith("hand_job wrote to a connection it had opened to 127.0.0.1:")
    assert "in thread 'job-worker' outside the step" in warning

    replayed, result = site.replay(source["run"])

    assert result["verdict"] == "failed", result
    assert site.events.reached(before + 2, 0.5) == before + 1
    assert "outside capture during a replay" in result["error"]
    assert "hand_job" in result["error"] and "job-worker" in result["error"]


def test_a_program_recorded_with_rewind_hooks_knows_the_client_it_connected_first(site):
    before = site.events.reached(10**6, 0)
    script = site.root / "my_agent.py"
    script.write_text(PROGRAM)
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=site.root,
        env={**site.env, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert site.events.reached(before + 1) == before + 1
    with closing(sqlite3.connect(site.root / "db.sqlite3")) as db:
        run, warnings = db.execute(
            "SELECT id, warnings FROM runs_run WHERE pipeline = 'client' ORDER BY id DESC"
        ).fetchone()
    (warning,) = json.loads(warnings)
    assert warning.startswith("publish_event wrote to a connection it had opened to 127.0.0.1:")
    assert "in thread 'event-sender' outside the step" in warning

    _, result = site.replay(run)

    assert result["verdict"] == "failed", result
    assert site.events.reached(before + 2, 0.5) == before + 1
