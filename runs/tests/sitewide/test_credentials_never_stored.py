"""Credentials a run used never land in the database: the API key of the provider that answered
the demo ``research`` pipeline's runs and forks (in no row and no artifact), and credentials in
the base URL (in no row and in no refusal's message). ``test_secrets.py`` follows a key
everywhere else it could show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.apps import apps

from runs.engine.errors import ForkError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.models import Run
from runs.tests.conftest import closed_port_url

pytestmark = pytest.mark.django_db


# --- secrets --------------------------------------------------------------------------------


def database_dump() -> str:
    """Every row of every model of the runs app, as text."""
    rows = []
    for model in apps.get_app_config("runs").get_models():
        for values in model.objects.values():
            rows.append(json.dumps(values, default=str, ensure_ascii=False))
    return "\n".join(rows)


def test_the_api_key_never_lands_in_the_database(
    serve_simulator, rewind_settings, run_fork, monkeypatch
):
    canary = "sk-rewind-canary-7f3a9c1e5b"
    monkeypatch.setenv("REWIND_API_KEY", canary)
    serve_simulator()
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    fork = run_fork(run, "critique", "prompt", "List the weaknesses of this analysis.")
    assert fork.status == Run.Status.COMPLETED, fork.error
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url()
    failed = run_fork(run, "plan", "prompt", "Plan again.")
    assert failed.status == Run.Status.FAILED
    dump = database_dump()
    assert str(run.pk) in dump  # the dump really covers the rows
    assert canary not in dump
    for path in Path(rewind_settings.REWIND_ARTIFACT_DIR).iterdir():
        assert canary not in path.read_text(encoding="utf-8")


def test_credentials_in_the_base_url_never_land_in_the_database(
    research_run, run_fork, rewind_settings
):
    dead = closed_port_url().replace("http://", "http://rewind:pw-canary-93b1@")
    rewind_settings.REWIND_LLM_BASE_URL = dead
    rewind_settings.REWIND_LLM_MODEL = "rewind-sim-1"
    with pytest.raises(ForkError) as refused:  # the simulator's run, an endpoint configured
        create_fork(research_run, "plan", "prompt", "Plan again.")
    assert "127.0.0.1" in str(refused.value) and "pw-canary-93b1" not in str(refused.value)
    fork = run_fork(research_run, "plan", "prompt", "Plan again.", provider="endpoint")
    assert fork.status == Run.Status.FAILED
    assert "pw-canary-93b1" not in database_dump()
