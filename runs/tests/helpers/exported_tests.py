"""Running an exported suite as a user would (``run_pytest``: plain ``pytest DIR`` in a
subprocess with none of Rewind's configuration) and editing its fixture (``fixture_of``,
``rewrite``); ``export_error``: ``rewind_export``'s one-line refusal. Used by
``engine/analysis/test_export.py`` (a run exported) and ``engine/analysis/test_batch_suite.py``
(a batch exported as a regression suite).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def run_pytest(directory: Path, home: Path, *options: str) -> subprocess.CompletedProcess:
    """``pytest DIRECTORY [OPTIONS]`` as a user would run it, in an environment with nothing
    of Rewind's configuration: no settings module, no database URL, no Rewind or OpenAI
    variables."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("REWIND_", "DJANGO_", "OPENAI_", "PYTEST_"))
        and name not in ("DATABASE_URL", "SECRET_KEY")
    }
    env["HOME"] = str(home)  # Burr's example factories keep a tracker under ~/.burr
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(directory), "-q", "-p", "no:cacheprovider", *options],
        cwd=directory.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def passes(directory: Path, home: Path, tests: int) -> None:
    result = run_pytest(directory, home)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert f"{tests} passed" in result.stdout, result.stdout


def fails(directory: Path, home: Path) -> str:
    result = run_pytest(directory, home)
    assert result.returncode == 1, result.stdout[-4000:] + result.stderr[-4000:]
    return result.stdout


def fixture_of(directory: Path) -> tuple[Path, dict[str, Any]]:
    (path,) = directory.glob("*.json")
    return path, json.loads(path.read_text())


def rewrite(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False))


def export_error(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("rewind_export", *args, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message
