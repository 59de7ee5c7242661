"""``/api/health`` and ``/api/runs/<run>``: the same run object as ``rewind_run --json``,
404 for what does not exist, 401 (JSON, not a login page) for an anonymous caller of the run
endpoint, and never a key in a response.

Health is public; every run test signs in (``signed_in``), as a browser session would."""

from __future__ import annotations

import io
import json
import socket
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from runs.engine.analysis.report import run_json
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Run

CANARY = "sk-canary-3f9a1c7e5b2d4a60"


def closed_port_url() -> str:
    """A loopback base URL on which nothing listens (the port was bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def api_run(client: Client, run_id: int) -> dict[str, Any]:
    response = client.get(f"/api/runs/{run_id}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


def test_health(client):
    response = client.get("/api/health")  # anonymous: health needs no sign-in

    assert response.status_code == 200
    assert response.json() == {"service": "rewind", "status": "ok"}


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_health_only_answers_get(client, method):
    response = getattr(client, method)("/api/health")

    assert response.status_code == 405
    assert response["Allow"] == "GET"


@pytest.mark.django_db
def test_run_is_the_same_object_as_rewind_run_json(rewind_settings, signed_in):
    out = io.StringIO()
    call_command("rewind_run", "--json", stdout=out, stderr=io.StringIO())
    printed = json.loads(out.getvalue())

    assert api_run(signed_in, printed["run"]) == printed


@pytest.mark.django_db
def test_fork_is_the_same_object_as_rewind_fork_json(research_run, signed_in):
    out = io.StringIO()
    call_command(
        "rewind_fork",
        str(research_run.pk),
        "--node",
        "analyse",
        "--set",
        "args.cost_scale=3",
        "--json",
        stdout=out,
        stderr=io.StringIO(),
    )
    printed = json.loads(out.getvalue())

    data = api_run(signed_in, printed["run"])
    # rewind_fork says whether it made the fork or opened one, as POST .../forks answers.
    assert printed.pop("reused") is False
    assert data == printed
    assert data["fork"] == {"node": "analyse", "field": "args.cost_scale", "value": 3.0}


@pytest.mark.django_db
def test_run_and_fork_are_the_report_object(research_run, run_fork, signed_in):
    # What rewind_run/rewind_fork --json print is report.run_json(run); the API serves it too.
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")

    assert api_run(signed_in, research_run.pk) == json.loads(json.dumps(run_json(research_run)))
    data = api_run(signed_in, fork.pk)
    assert data == json.loads(json.dumps(run_json(fork)))
    assert data["fork"] == {"node": "analyse", "field": "args.cost_scale", "value": 3.0}
    assert data["parent"] == research_run.pk


@pytest.mark.django_db
def test_a_queued_run_reads_back_without_nodes(rewind_settings, signed_in):
    run = create_run("research")

    data = api_run(signed_in, run.pk)

    assert data["status"] == "queued"
    assert data["nodes"] == []
    assert data["artifact"] == {"path": None, "sha256": None}
    assert data["totals"] == {"total_tokens": 0, "cost_usd": 0.0, "live_nodes": 0}


@pytest.mark.django_db
def test_unknown_run_is_404(signed_in):
    last = Run.objects.order_by("-pk").first()
    missing = (last.pk if last else 0) + 1000

    assert signed_in.get(f"/api/runs/{missing}").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("run_id", ["abc", "-1", "1.5"])
def test_a_run_id_that_is_not_a_number_is_404(signed_in, run_id):
    assert signed_in.get(f"/api/runs/{run_id}").status_code == 404


@pytest.mark.django_db
def test_a_run_id_beyond_the_integer_range_is_404_not_500(signed_in):
    assert signed_in.get("/api/runs/99999999999999999999999").status_code == 404


@pytest.mark.django_db
def test_post_to_a_run_is_405(research_run, signed_in):
    assert signed_in.post(f"/api/runs/{research_run.pk}").status_code == 405


@pytest.mark.django_db
def test_the_api_key_is_never_in_the_response(rewind_settings, signed_in, monkeypatch):
    monkeypatch.setenv("REWIND_API_KEY", CANARY)
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error

    response = signed_in.get(f"/api/runs/{run.pk}")

    assert response.status_code == 200
    assert CANARY not in response.content.decode()
    assert CANARY not in json.dumps(run.provider)


@pytest.mark.django_db
def test_the_api_key_is_not_in_the_error_of_a_failed_run(serve_simulator, signed_in, monkeypatch):
    monkeypatch.setenv("REWIND_API_KEY", CANARY)
    serve_simulator(status=401)  # the provider refuses every call
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED

    text = signed_in.get(f"/api/runs/{run.pk}").content.decode()

    assert "plan" in json.loads(text)["error"]
    assert CANARY not in text


@pytest.mark.django_db
def test_a_password_in_the_base_url_is_not_in_the_error(rewind_settings, signed_in):
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url().replace(
        "http://", f"http://rewind:{CANARY}@"
    )
    rewind_settings.REWIND_LLM_MODEL = "some-model"
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED
    assert CANARY not in json.dumps(run.provider)  # the snapshot is stripped already

    text = signed_in.get(f"/api/runs/{run.pk}").content.decode()

    assert "cannot reach" in text
    assert CANARY not in text


# --- anonymous callers ----------------------------------------------------------------------


@pytest.mark.django_db
def test_an_anonymous_caller_gets_401_json_not_a_login_page(client, run_row):
    run = run_row()

    response = client.get(f"/api/runs/{run.pk}")

    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "sign in first"}
    assert "Location" not in response


@pytest.mark.django_db
def test_an_anonymous_caller_learns_nothing_about_which_runs_exist(client, run_row):
    run = run_row()

    known = client.get(f"/api/runs/{run.pk}")
    unknown = client.get(f"/api/runs/{run.pk + 1000}")

    assert known.status_code == unknown.status_code == 401
    assert known.content == unknown.content
