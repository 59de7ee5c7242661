"""Secrets (issue 4, part 7): a unique canary API key is used for real — sent as a Bearer
header to the simulator served on loopback, in this process and by a real ``db_worker`` whose
environment carries it — and then looked for everywhere it must never be: every table of the
database (task rows included), the logs, the artifacts, every page and JSON response, and the
error messages of a provider that echoes the key back.
"""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib import admin
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.urls import reverse

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import LoopbackCall, closed_port_url, wait_for

CANARY = f"sk-canary-{uuid.uuid4().hex}"


@pytest.fixture
def canary(rewind_settings, monkeypatch, caplog) -> str:
    """The key in the environment, and every log record of this process captured."""
    monkeypatch.setenv("REWIND_API_KEY", CANARY)
    caplog.set_level(logging.DEBUG)
    return CANARY


def echo_key_401(call: LoopbackCall) -> tuple[int, Any]:
    """A provider that rejects the key and quotes it back, as real ones do."""
    header = call.headers.get("Authorization", "")
    return 401, {
        "error": {
            "message": f"Incorrect API key provided: {header}. You passed {header.split()[-1]}.",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }


def dump_database() -> str:
    """Every row of every table, as text (bytes decoded), in one string."""
    parts = []
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names()):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608
            for row in cursor.fetchall():
                for value in row:
                    if isinstance(value, (bytes, memoryview)):
                        value = bytes(value).decode("utf-8", "replace")
                    parts.append(f"{table}: {value}")
    return "\n".join(parts)


def every_page(client: Client) -> dict[str, bytes]:
    """Every page and JSON response there is for the runs in the database, admin included."""
    runs = list(Run.objects.order_by("pk"))
    urls = ["/runs/", "/runs/?status=failed", "/settings/", "/api/health"]
    for run in runs:
        urls += [
            f"/runs/{run.pk}/",
            f"/runs/{run.pk}/status/",
            f"/runs/{run.pk}/events/",  # every run here has finished: the stream ends
            f"/runs/{run.pk}/artifact/",
            f"/api/runs/{run.pk}",
        ]
        if run.pk != runs[0].pk:  # a run against itself is the picker's refusal (400)
            urls.append(f"/compare/{runs[0].pk}/{run.pk}/")
        for node in run.nodes.all():
            urls += [
                f"/runs/{run.pk}/nodes/{node.sequence_id}/",
                f"/runs/{run.pk}/nodes/{node.sequence_id}/fork/",
            ]
    for model in admin.site._registry:
        opts = model._meta
        urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        for pk in model.objects.values_list("pk", flat=True)[:20]:
            urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[pk]))
    pages = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 286, 404), (url, response.status_code)
        pages[url] = body_of(response)
        if url.endswith("/events/"):
            assert b"event: done" in pages[url], url
    return pages


async def _collect(chunks) -> bytes:
    return b"".join([chunk async for chunk in chunks])


def body_of(response) -> bytes:
    """The whole body, also of a stream (SSE is an async stream: consumed to its end)."""
    if not response.streaming:
        return response.content
    if response.is_async:
        return async_to_sync(_collect)(response.streaming_content)
    return b"".join(response.streaming_content)


def assert_nowhere(where: str, text: str) -> None:
    assert CANARY not in text, f"the key leaked into {where}"
    assert CANARY.removeprefix("sk-") not in text, f"part of the key leaked into {where}"


@pytest.mark.django_db(transaction=True)
def test_the_key_is_used_but_never_stored_logged_or_shown(
    canary, loopback_provider, db_workers, django_user_model, caplog, tmp_path
):
    provider = loopback_provider()
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.test"))

    # In this process: a run and a fork that call the provider with the key.
    run = execute_run(create_run("research").pk)
    fork = execute_run(create_fork(run, "analyse", "args.cost_scale", 1.5, from_text=False).pk)
    assert (run.status, fork.status) == ("completed", "completed"), (run.error, fork.error)
    sent = [c.headers.get("Authorization") for c in provider.chat_calls()]
    assert sent and set(sent) == {f"Bearer {canary}"}  # the key really was in play
    in_process_calls = len(sent)

    # Through a real worker whose environment carries the key: a fork and a new run made over
    # the JSON API, then a run against a provider that echoes the key back in its error.
    workers = db_workers(1, REWIND_API_KEY=canary, REWIND_LOG_LEVEL="DEBUG")
    api_fork = client.post(
        f"/api/runs/{run.pk}/forks",
        {"node": "analyse", "field": "args.cost_scale", "value": 1.7},
        content_type="application/json",
    )
    api_run = client.post(
        "/api/runs", {"inputs": {"region": "north"}}, content_type="application/json"
    )
    assert (api_fork.status_code, api_run.status_code) == (201, 201)
    queued = [api_fork.json()["run"], api_run.json()["run"]]
    wait_for(
        lambda: Run.objects.filter(pk__in=queued, status="completed").count() == 2,
        timeout=60,
        what="the worker's runs",
    )
    assert len(provider.chat_calls()) > in_process_calls  # the worker called it, with the key
    assert {c.headers.get("Authorization") for c in provider.chat_calls()} == {f"Bearer {canary}"}

    provider.answer = echo_key_401
    echoed_here = execute_run(create_run("research", {"region": "south"}).pk)
    echoed_worker = client.post(
        "/api/runs", {"inputs": {"region": "west"}}, content_type="application/json"
    ).json()["run"]
    wait_for(
        lambda: Run.objects.get(pk=echoed_worker).status == "failed",
        timeout=60,
        what="the echoing run to fail in the worker",
    )
    for failed in Run.objects.filter(pk__in=[echoed_here.pk, echoed_worker]):
        node = failed.nodes.get(status=Node.Status.FAILED)
        assert "HTTP 401" in node.error and "[redacted]" in node.error, node.error
        assert "[redacted]" in failed.error
    for worker in workers:
        worker.stop()

    # Where it must never be.
    responses = every_page(client)
    responses["POST /api/runs/<run>/forks"] = api_fork.content
    responses["POST /api/runs"] = api_run.content
    for url, body in responses.items():
        assert_nowhere(url, body.decode("utf-8", "replace"))
    assert_nowhere("the database", dump_database())
    assert_nowhere("this process's logs", caplog.text)
    for record in caplog.records:
        assert_nowhere(f"log record {record.name}", repr(record.__dict__))
    for worker in workers:
        assert_nowhere("the worker's log", worker.output())
    for path in Path(tmp_path).rglob("*"):
        if path.is_file() and "worker-" not in path.name:
            assert_nowhere(str(path), path.read_text(errors="replace"))
    assert CANARY not in json.dumps(Run.objects.get(pk=run.pk).provider)


@pytest.mark.django_db
def test_a_provider_error_that_quotes_the_key_is_redacted_before_it_is_recorded(
    canary, loopback_provider, caplog
):
    loopback_provider(echo_key_401)

    run = execute_run(create_run("research").pk)

    node = run.nodes.get(status=Node.Status.FAILED)
    assert "Incorrect API key provided: Bearer [redacted]" in node.error
    assert_nowhere("the node error", node.error + node.raw_output)
    assert_nowhere("the run error", run.error)
    assert_nowhere("the logs", caplog.text)
    assert_nowhere("the database", dump_database())


@pytest.mark.django_db
def test_a_non_json_body_that_quotes_the_key_is_redacted_in_the_raw_output(
    canary, loopback_provider
):
    loopback_provider(
        lambda call: (200, f"<html>proxy saw {call.headers['Authorization']}".encode())
    )

    run = execute_run(create_run("research").pk)

    node = run.nodes.get(status=Node.Status.FAILED)
    assert "not JSON" in node.error
    assert node.raw_output == "<html>proxy saw Bearer [redacted]"
    assert_nowhere("the database", dump_database())


@pytest.mark.django_db
@pytest.mark.parametrize("shape", ["unparseable", "valid-json"])
def test_model_output_that_quotes_the_key_fails_the_node_and_is_never_recorded(
    canary, loopback_provider, shape
):
    """A proxy (or a model) that echoes the key into the completion itself: the node fails,
    the raw output is kept redacted, and nothing is cached."""

    def echo_in_content(call: LoopbackCall):
        status, body = provider.simulate(call)
        message = body["choices"][0]["message"]
        if shape == "valid-json":
            answer = json.loads(message["content"])
            answer["objective"] = f"{answer['objective']} {call.headers['Authorization']}"
            message["content"] = json.dumps(answer)
        else:
            message["content"] = f"not json; {call.headers['Authorization']}"
        return status, body

    provider = loopback_provider(echo_in_content)

    run = execute_run(create_run("research").pk)

    assert run.status == Run.Status.FAILED
    node = run.nodes.get(status=Node.Status.FAILED)
    assert node.name == "plan"
    assert "contains the API key" in node.error
    assert "Bearer [redacted]" in node.raw_output
    assert not LLMCacheEntry.objects.exists()
    assert_nowhere("the database", dump_database())


@pytest.mark.django_db
def test_a_key_in_the_base_url_is_never_recorded_or_shown(
    rewind_settings, caplog, client, admin_user
):
    caplog.set_level(logging.DEBUG)
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url().replace(
        "http://", f"http://user:{CANARY}@"
    )
    rewind_settings.REWIND_LLM_MODEL = "m-1"

    run = execute_run(create_run("research").pk)

    assert run.status == Run.Status.FAILED
    assert "connection refused" in run.error
    client.force_login(admin_user)
    for url in ("/settings/", f"/runs/{run.pk}/", f"/api/runs/{run.pk}", "/runs/"):
        assert_nowhere(url, client.get(url).content.decode())
    assert_nowhere("the database", dump_database())
    assert_nowhere("the logs", caplog.text)


@pytest.mark.django_db
def test_command_errors_never_quote_the_key(canary, loopback_provider):
    loopback_provider(echo_key_401)

    with pytest.raises(CommandError) as caught:
        call_command("rewind_resume", "999")
    assert_nowhere("a command error", str(caught.value))

    run = execute_run(create_run("research").pk)
    with pytest.raises(CommandError) as caught:
        call_command("rewind_fork", str(run.pk), "--node", "plan", "--set", "temperature=-1")
    assert_nowhere("a command error", str(caught.value))
    assert_nowhere("a run error", run.error)


@pytest.mark.django_db
def test_the_settings_page_says_only_whether_a_key_is_set(canary, client, admin_user):
    client.force_login(admin_user)

    page = client.get("/settings/").content.decode()

    assert_nowhere("the settings page", page)
    assert "set" in page.lower()
