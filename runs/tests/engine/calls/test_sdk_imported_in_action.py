"""Capture installed whatever the import order (``capture.imports``): an MCP SDK first imported
inside the action's body — after the capture was installed for the step — is captured on that
first run: its calls are recorded as the step's (no warning of a process started outside the
capture), and an unchanged replay answers them from the cache, ``identical``, without starting
the server or repeating its side effect.

Each command runs in a fresh ``manage.py`` subprocess, where nothing had imported ``mcp``
before the action did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runs.tests.helpers.late_import_apps import NOTES
from runs.tests.helpers.manage_py import command_environment, manage

PIPELINE = "late_mcp=runs.tests.helpers.late_import_apps.notes_application"


@pytest.fixture
def site(tmp_path) -> dict:
    env = command_environment(tmp_path / "db.sqlite3", tmp_path / "artifacts")
    env.update(
        {
            "REWIND_PIPELINES": PIPELINE,
            "MCP_NOTES_FILE": str(tmp_path / "notes.txt"),
            "MCP_STARTED_FILE": str(tmp_path / "started.txt"),
        }
    )
    migrated = manage(env, "migrate", "--no-input", "-v", "0")
    assert migrated.returncode == 0, migrated
    return env


def lines(path: str) -> list[str]:
    return Path(path).read_text().splitlines() if Path(path).exists() else []


def test_an_mcp_sdk_first_imported_inside_the_action_is_captured_and_replayed(site):
    recorded = manage(site, "rewind_run", "--pipeline", "late_mcp", "--json")
    assert recorded.returncode == 0, recorded
    source = json.loads(recorded.stdout)
    assert source["warnings"] == []  # the server's start was the MCP calls', not an escape
    (step,) = source["nodes"]
    assert step["kind"] == "tool"  # it made calls: the MCP requests, recorded as the step's
    assert step["fields"]["writes.answers"] == [f"noted: {text}" for text in NOTES]
    assert lines(site["MCP_NOTES_FILE"]) == list(NOTES)
    assert len(lines(site["MCP_STARTED_FILE"])) == 1

    replayed = manage(site, "rewind_replay", str(source["run"]), "--json")

    (result,) = json.loads(replayed.stdout)["results"]
    assert result["verdict"] == "identical", result
    assert replayed.returncode == 0, replayed
    assert lines(site["MCP_NOTES_FILE"]) == list(NOTES)  # the notes were not taken again
    assert len(lines(site["MCP_STARTED_FILE"])) == 1  # nor was the server started
