"""Retries are part of the recording (issue 29, item 1): when a client retries — the openai and
anthropic SDKs retry 429s and 5xx twice by default, tenacity retries what it is told to, an
action loops by hand — every attempt is a call of its
own, in order. A failed attempt's answer (status and body) is recorded as what that attempt got
and is never served to a new run as an answer; a replay gives each attempt what it got, so the
client's retry logic takes the same path and the run replays identical, with the provider gone.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import anthropic
import httpx
import openai
import pytest
import tenacity
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import LLMCacheEntry, Run, ToolCacheEntry
from runs.tests.conftest import LoopbackCall, LoopbackProvider, closed_port_url

QUESTION = "Which region converts best?"


@action(reads=[], writes=["answer"])
def ask_with_sdk_retries(state: State) -> State:
    # The SDK's own retries (2 by default): a 500 or a 429 is asked again after a backoff.
    client = openai.OpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-0000")
    reply = client.chat.completions.create(
        model="rewind-sim-1", temperature=0, messages=[{"role": "user", "content": QUESTION}]
    )
    return state.update(answer=reply.choices[0].message.content)


@action(reads=[], writes=["answer"])
async def ask_async_with_sdk_retries(state: State) -> State:
    client = openai.AsyncOpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-0000")
    reply = await client.chat.completions.create(
        model="rewind-sim-1", temperature=0, messages=[{"role": "user", "content": QUESTION}]
    )
    return state.update(answer=reply.choices[0].message.content)


@action(reads=[], writes=["rate"])
def fetch_with_a_loop(state: State) -> State:
    # A tool an action retries by hand, as agent code often does.
    url = os.environ["OPENAI_BASE_URL"].removesuffix("/v1") + "/rates/eur"
    for attempt in range(3):
        answer = httpx.get(url, timeout=5)
        if answer.status_code == 200:
            return state.update(rate=answer.json()["rate"])
        time.sleep(0.4 * (attempt + 1))  # its own backoff
    raise RuntimeError(f"the rates service answered {answer.status_code} three times")


@action(reads=[], writes=["answer"])
def ask_anthropic_with_sdk_retries(state: State) -> State:
    # anthropic's SDK retries 429, 5xx and 529 (overloaded) twice by default, as openai's does.
    client = anthropic.Anthropic(
        base_url=os.environ["OPENAI_BASE_URL"].removesuffix("/v1"), api_key="sk-ant-test-0000"
    )
    reply = client.messages.create(
        model="rewind-sim-1", max_tokens=64, messages=[{"role": "user", "content": QUESTION}]
    )
    return state.update(answer=reply.content[0].text)


@tenacity.retry(
    stop=tenacity.stop_after_attempt(3),
    wait=tenacity.wait_exponential(multiplier=0.4, min=0.4),
    retry=tenacity.retry_if_exception_type(httpx.HTTPStatusError),
    reraise=True,
)
def _rate() -> float:
    url = os.environ["OPENAI_BASE_URL"].removesuffix("/v1") + "/rates/eur"
    return httpx.get(url, timeout=5).raise_for_status().json()["rate"]


@action(reads=[], writes=["rate"])
def fetch_with_tenacity(state: State) -> State:
    # The retry library agents reach for: a decorator, its own exponential backoff.
    return state.update(rate=_rate())


def sdk_application():
    builder = ApplicationBuilder().with_actions(ask=ask_with_sdk_retries)
    return builder.with_entrypoint("ask").build()


def async_sdk_application():
    builder = ApplicationBuilder().with_actions(ask=ask_async_with_sdk_retries)
    return builder.with_entrypoint("ask").build()


def loop_application():
    builder = ApplicationBuilder().with_actions(fetch=fetch_with_a_loop)
    return builder.with_entrypoint("fetch").build()


def anthropic_application():
    builder = ApplicationBuilder().with_actions(ask=ask_anthropic_with_sdk_retries)
    return builder.with_entrypoint("ask").build()


def tenacity_application():
    builder = ApplicationBuilder().with_actions(fetch=fetch_with_tenacity)
    return builder.with_entrypoint("fetch").build()


APPS = {
    "retrying_anthropic": f"{__name__}.anthropic_application",
    "retrying_tenacity": f"{__name__}.tenacity_application",
    "retrying_sdk": f"{__name__}.sdk_application",
    "retrying_async_sdk": f"{__name__}.async_sdk_application",
    "retrying_loop": f"{__name__}.loop_application",
}


@pytest.fixture
def apps(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def backoffs(monkeypatch) -> list[float]:
    """The sleeps that really waited a backoff (0.3 s or more) — the client's, on the thread of
    the step or its task — from here on: the real sleeps behind the capture's are counted."""
    from runs.engine.calls.capture import backoff

    slept: list[float] = []
    real, real_async = backoff._real_sleep, backoff._anyio_sleep

    def sleep(seconds: float) -> None:
        if seconds >= 0.3:
            slept.append(seconds)
        real(min(seconds, 0.01))

    async def anyio_sleep(seconds: float) -> None:
        if seconds >= 0.3:
            slept.append(seconds)
        await real_async(min(seconds, 0.01))

    monkeypatch.setattr(backoff, "_real_sleep", sleep)
    monkeypatch.setattr(backoff, "_anyio_sleep", anyio_sleep)
    return slept


def flaky(failures: list[tuple[int, Any]]) -> LoopbackProvider:
    """A provider whose first calls to the chat endpoint or the rates tool fail as listed."""
    left = list(failures)

    def answer(call: LoopbackCall) -> tuple[Any, ...]:
        path = call.path.split("?")[0]
        if path.endswith(("/chat/completions", "/messages", "/rates/eur")):
            if left:
                return left.pop(0)
            if path.endswith("/rates/eur"):
                return 200, {"currency": "EUR", "rate": 1.0831}
        return provider.simulate(call)

    provider = LoopbackProvider(answer)
    return provider


SERVER_ERROR = (500, {"error": {"message": "upstream hiccup", "type": "server_error"}})
RATE_LIMITED = (429, {"error": {"message": "slow down", "type": "rate_limit"}})
OVERLOADED = (529, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})


@pytest.mark.parametrize(
    "app,failures,model",
    [
        ("retrying_sdk", [SERVER_ERROR], LLMCacheEntry),
        ("retrying_sdk", [RATE_LIMITED, SERVER_ERROR], LLMCacheEntry),
        ("retrying_async_sdk", [SERVER_ERROR], LLMCacheEntry),
        ("retrying_loop", [SERVER_ERROR, (503, b"<html>busy</html>")], ToolCacheEntry),
        ("retrying_anthropic", [OVERLOADED, SERVER_ERROR], LLMCacheEntry),
        ("retrying_tenacity", [SERVER_ERROR, RATE_LIMITED], ToolCacheEntry),
    ],
    ids=[
        "sdk-500",
        "sdk-429-then-500",
        "async-sdk-500",
        "loop-500-503",
        "anthropic-529-500",
        "tenacity-500-429",
    ],
)
def test_a_run_whose_client_retried_replays_identical_with_the_provider_gone(
    apps, monkeypatch, app, failures, model
):
    slept = backoffs(monkeypatch)
    provider = flaky(failures)
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = execute_run(create_run(app, {}).pk)
    assert len(slept) >= len(failures), slept  # recording: the client waited its backoff
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get()
    attempts = [c for c in step.calls if c["endpoint"] != "models"]
    assert [c["status"] for c in attempts] == [status for status, _ in failures] + [200]
    assert [c["occurrence"] for c in attempts] == list(range(len(failures) + 1))
    assert all(c["entry"] for c in attempts)  # each attempt names what it got
    failed = model.objects.filter(failed=True)
    assert failed.count() == len(failures)

    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())  # the provider is gone
    slept.clear()
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert slept == [], slept  # replaying: the failed attempts' backoffs did not wait
    assert replay_verdict(source, replay).verdict == "identical"
    replayed = [c for c in replay.nodes.get().calls if c["endpoint"] != "models"]
    assert [c["status"] for c in replayed] == [c["status"] for c in attempts]
    assert [c["entry"] for c in replayed] == [c["entry"] for c in attempts]
    assert replay.nodes.get().total_tokens == 0


def test_a_failed_attempt_is_never_served_to_a_new_run(apps, monkeypatch):
    provider = flaky([SERVER_ERROR])
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        first = execute_run(create_run("retrying_sdk", {}).pk)
        calls_before = len(provider.chat_calls())
        # A new run of the same question: its first attempt is not answered with the 500 the
        # first run got (that was what that attempt got, not an answer); it reads the 200.
        second = execute_run(create_run("retrying_sdk", {}).pk)
    assert first.status == second.status == Run.Status.COMPLETED
    attempts = [c for c in second.nodes.get().calls if c["endpoint"] == "chat/completions"]
    assert [c["status"] for c in attempts] == [200]
    assert attempts[0]["cache_source"] == "live"  # occurrence 0's only entry is the failure
    assert len(provider.chat_calls()) == calls_before + 1
    assert second.nodes.get().output == first.nodes.get().output
    failed = LLMCacheEntry.objects.get(failed=True)
    assert json.loads(failed.response["text"])["error"]["message"] == "upstream hiccup"


def test_burrs_shipped_chatbot_whose_openai_client_retried_replays_identical(
    rewind_settings, monkeypatch, tmp_path, db
):
    """Burr's multi-modal chatbot, unchanged, with the openai SDK users install today (its
    default 2 retries): the provider answers the first chat call 500 (planted), the SDK
    retries, the run completes; its replay with the provider gone is identical at 0 tokens."""
    from runs.tests.helpers.burr_examples import APPS as EXAMPLES
    from runs.tests.helpers.burr_examples import QUESTION as CAPITAL

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rewind-burr-apps")
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "chatbot": EXAMPLES["chatbot"],
    }
    registry._load.cache_clear()
    provider = flaky([SERVER_ERROR])
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = execute_run(create_run("chatbot", {"prompt": CAPITAL}, halt_after=["response"]).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    statuses = [c["status"] for n in source.nodes.all() for c in n.calls]
    assert statuses.count(500) == 1 and 200 in statuses  # the planted failure, then the retry

    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert sum(n.total_tokens for n in replay.nodes.all()) == 0
    registry._load.cache_clear()
