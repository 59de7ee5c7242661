"""``/api/health`` and ``/api/runs/<run>``: the same run object as ``rewind_run --json``,
404 for what does not exist, and never a key in a response."""

from __future__ import annotations

import io
import json
import socket
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from runs.engine.runner import create_run, execute_run
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
    response = client.get("/api/health")

    assert response.status_code == 200
    assert response.json() == {"service": "rewind", "status": "ok"}


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_health_only_answers_get(client, method):
    response = getattr(client, method)("/api/health")

    assert response.status_code == 405
    assert response["Allow"] == "GET"


@pytest.mark.django_db
def test_run_is_the_same_object_as_rewind_run_json(rewind_settings, client):
    out = io.StringIO()
    call_command("rewind_run", "--json", stdout=out, stderr=io.StringIO())
    printed = json.loads(out.getvalue())

    assert api_run(client, printed["run"]) == printed


@pytest.mark.django_db
def test_fork_is_the_same_object_as_rewind_fork_json(research_run, client):
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

    data = api_run(client, printed["run"])
    assert data == printed
    assert data["fork"] == {"node": "analyse", "field": "args.cost_scale", "value": 3.0}


@pytest.mark.django_db
def test_a_queued_run_reads_back_without_nodes(rewind_settings, client):
    run = create_run("research")

    data = api_run(client, run.pk)

    assert data["status"] == "queued"
    assert data["nodes"] == []
    assert data["artifact"] == {"path": None, "sha256": None}
    assert data["totals"] == {"total_tokens": 0, "cost_usd": 0.0, "live_nodes": 0}


@pytest.mark.django_db
def test_unknown_run_is_404(client):
    last = Run.objects.order_by("-pk").first()
    missing = (last.pk if last else 0) + 1000

    assert client.get(f"/api/runs/{missing}").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("run_id", ["abc", "-1", "1.5"])
def test_a_run_id_that_is_not_a_number_is_404(client, run_id):
    assert client.get(f"/api/runs/{run_id}").status_code == 404


@pytest.mark.django_db
def test_a_run_id_beyond_the_integer_range_is_404_not_500(client):
    assert client.get("/api/runs/99999999999999999999999").status_code == 404


@pytest.mark.django_db
def test_post_to_a_run_is_405(research_run, client):
    assert client.post(f"/api/runs/{research_run.pk}").status_code == 405


@pytest.mark.django_db
def test_the_api_key_is_never_in_the_response(rewind_settings, client, monkeypatch):
    monkeypatch.setenv("REWIND_API_KEY", CANARY)
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error

    response = client.get(f"/api/runs/{run.pk}")

    assert response.status_code == 200
    assert CANARY not in response.content.decode()
    assert CANARY not in json.dumps(run.provider)


@pytest.mark.django_db
def test_the_api_key_is_not_in_the_error_of_a_failed_run(serve_simulator, client, monkeypatch):
    monkeypatch.setenv("REWIND_API_KEY", CANARY)
    serve_simulator(status=401)  # the provider refuses every call
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED

    text = client.get(f"/api/runs/{run.pk}").content.decode()

    assert "plan" in json.loads(text)["error"]
    assert CANARY not in text


@pytest.mark.django_db
def test_a_password_in_the_base_url_is_not_in_the_error(rewind_settings, client):
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url().replace(
        "http://", f"http://rewind:{CANARY}@"
    )
    rewind_settings.REWIND_LLM_MODEL = "some-model"
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED
    assert CANARY not in json.dumps(run.provider)  # the snapshot is stripped already

    text = client.get(f"/api/runs/{run.pk}").content.decode()

    assert "cannot reach" in text
    assert CANARY not in text
