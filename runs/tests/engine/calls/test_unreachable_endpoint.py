"""A failed fork gives a hint (issue 16, item 9): when a step's call cannot connect, its error
names the endpoint it tried and where that URL came from — this process's environment, the
SDK's default because a variable is not set here, or the app's own code.
"""

from __future__ import annotations

import httpx
import pytest

from runs.engine.calls.capture import unreachable
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Node, Run
from runs.tests.helpers import transport_apps
from runs.tests.helpers.transport_apps import APPS

VARIANTS = ["httpx_sync_plain", "openai_sync_plain", "openai_async_plain", "requests_sync_plain",
            "aiohttp_async_plain", "urllib_sync_plain"]  # fmt: skip


@pytest.mark.parametrize("name", [v for v in VARIANTS if v in transport_apps.VARIANTS])
def test_a_call_that_cannot_connect_names_the_endpoint_and_the_variable(served_apps, name):
    served_apps(APPS)  # OPENAI_BASE_URL names a closed loopback port until started
    run = execute_run(create_run(name, {}).pk)

    assert run.status == Run.Status.FAILED
    step = run.nodes.get(name="ask")
    assert step.status == Node.Status.FAILED
    assert "the step's call to http://127.0.0.1:" in step.error, step.error
    assert "could not connect" in step.error
    assert "that URL comes from OPENAI_BASE_URL in this process's environment" in step.error
    assert transport_apps.CANARY not in step.error and transport_apps.CANARY not in run.error


def test_the_sdk_default_host_says_which_variable_is_not_set(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    error = httpx.ConnectError("[Errno -3] Temporary failure in name resolution")
    text = unreachable.describe("https://api.openai.com/v1/chat/completions?key=sk-x", error)
    assert text.startswith("the step's call to https://api.openai.com/v1/chat/completions could")
    assert "sk-x" not in text  # no query
    assert "OPENAI_BASE_URL is not set in this process's environment" in text


def test_a_url_of_the_apps_own_is_said_to_be_so(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    refused = ConnectionRefusedError(111, "refused")
    text = unreachable.describe("http://user:pw@10.0.0.9:8000/v1/x", refused)
    assert "http://10.0.0.9:8000/v1/x" in text and "pw" not in text
    assert "the app's own" in text


@pytest.mark.parametrize(
    "error,expected",
    [
        (httpx.ConnectError("x"), True),
        (ConnectionRefusedError(111, "refused"), True),
        (httpx.ReadTimeout("x"), False),
        (ValueError("x"), False),
    ],
)
def test_what_counts_as_not_connecting(error, expected):
    assert unreachable.is_unreachable(error) is expected
