"""``--json`` is only JSON (issue 16, item 14): an app's own ``print()`` goes to stderr, so
``rewind_run --json | jq`` works; a run id that only looks like a number is refused in one line
(``"²".isdigit()`` is true, ``int("²")`` fails)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from runs.engine.apps import registry
from runs.tests.conftest import PROJECT_ROOT, subprocess_database_url


@pytest.fixture
def printer(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "printer": "runs.tests.helpers.state_apps.printer",
    }
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def test_an_apps_print_goes_to_stderr_when_the_command_prints_json(printer, capsys):
    out = io.StringIO()
    call_command("rewind_run", "--pipeline", "printer", "--json", stdout=out)
    assert json.loads(out.getvalue())["status"] == "completed"
    captured = capsys.readouterr()
    assert "the app talks on stdout" not in captured.out
    assert "the app talks on stdout" in captured.err


@pytest.mark.django_db(transaction=True)
def test_from_a_shell_stdout_is_one_json_object(rewind_settings, tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DATABASE_URL": subprocess_database_url(),
        "REWIND_PIPELINES": "printer=runs.tests.helpers.state_apps.printer",
        "REWIND_ARTIFACT_DIR": str(tmp_path / "artifacts"),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "rewind_run", "--pipeline", "printer", "--json"],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pipeline"] == "printer"  # nothing before or after it
    assert "the app talks on stdout" in done.stderr


@pytest.mark.parametrize("run_id", ["²", "1²", "٣", "9" * 40])
def test_a_run_id_that_only_looks_like_a_number_is_one_line(db, run_id):
    with pytest.raises(CommandError, match="run ids are numbers"):
        call_command("rewind_diff", run_id, "1")


@pytest.mark.parametrize(
    "step", ["²", "critique#①", "critique#²", "4" * 4301, "analyse#" + "9" * 4301]
)
def test_a_step_that_only_looks_like_a_number_is_a_clear_error(research_run, step):
    from runs.engine.errors import ForkError
    from runs.engine.forking.forks import find_node

    with pytest.raises(ForkError, match="has no step"):
        find_node(research_run, step)


@pytest.mark.parametrize("step", ["²", "critique#①", "4" * 4301])
def test_the_api_answers_a_crafted_step_with_a_400(signed_in, research_run, step):
    response = signed_in.post(
        f"/api/runs/{research_run.pk}/forks",
        data=json.dumps({"node": step}),
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert "has no step" in response.json()["error"]
