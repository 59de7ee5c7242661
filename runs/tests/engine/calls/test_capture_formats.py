"""LLM calls are recognised by their wire format, not only OpenAI's (issue 15, item 3): a
step calling Anthropic Messages (through the real ``anthropic`` SDK, on httpx2), Gemini or
Ollama — plain and streamed — is an ``llm`` step whose tokens are counted from the answer,
and replays at zero tokens with the provider stopped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import anthropic
import httpx
import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.calls.capture import wire
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.engine.providers.simulator import Simulator
from runs.models import Run
from runs.tests.conftest import closed_port_url

QUESTION = "Which region converts best?"


def _root() -> str:
    return os.environ["LLM_ROOT"]  # the loopback server, without /v1


def _anthropic(stream: bool) -> tuple[str, str]:
    client = anthropic.Anthropic(
        base_url=_root(), api_key="sk-ant-test-0000000000000000", max_retries=0
    )
    kwargs: dict[str, Any] = {
        "model": "claude-sim",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": QUESTION}],
        "extra_body": {"temperature": 0},
    }
    if stream:
        with client.messages.stream(**kwargs) as events:
            return "".join(events.text_stream), "messages"
    reply = client.messages.create(**kwargs)
    return reply.content[0].text, "messages"


def _gemini(stream: bool) -> tuple[str, str]:
    method = "streamGenerateContent" if stream else "generateContent"
    body = {"contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
            "generationConfig": {"temperature": 0}}  # fmt: skip
    url = f"{_root()}/v1beta/models/gemini-sim:{method}"
    reply = httpx.post(
        url,
        params={"alt": "sse"} if stream else {"key": "AIzaSyTEST0000000000000000000000000000"},
        json=body,
        timeout=5,
    )
    reply.raise_for_status()
    if not stream:
        return reply.json()["candidates"][0]["content"]["parts"][0][
            "text"
        ], f"models/gemini-sim:{method}"
    import json

    text = "".join(
        json.loads(line[5:])["candidates"][0]["content"]["parts"][0]["text"]
        for line in reply.text.splitlines()
        if line.startswith("data:")
    )
    return text, f"models/gemini-sim:{method}"


def _ollama(stream: bool) -> tuple[str, str]:
    import json

    body = {"model": "llama-sim", "messages": [{"role": "user", "content": QUESTION}],
            "stream": stream, "options": {"temperature": 0}}  # fmt: skip
    reply = httpx.post(f"{_root()}/api/chat", json=body, timeout=5)
    reply.raise_for_status()
    if not stream:
        return reply.json()["message"]["content"], "api/chat"
    lines = [json.loads(line) for line in reply.text.splitlines() if line.strip()]
    return "".join(line["message"]["content"] for line in lines), "api/chat"


FORMATS = {"anthropic": _anthropic, "gemini": _gemini, "ollama": _ollama}


def application(family: str, stream: bool):
    @action(reads=[], writes=["answer", "endpoint"])
    def ask(state: State) -> State:
        text, endpoint = FORMATS[family](stream)
        return state.update(answer=text, endpoint=endpoint)

    return ApplicationBuilder().with_actions(ask=ask).with_entrypoint("ask").build()


VARIANTS = {f"{f}_{'stream' if s else 'plain'}": (f, s) for f in FORMATS for s in (False, True)}
for _name, (_family, _stream) in VARIANTS.items():
    globals()[_name] = lambda f=_family, s=_stream: application(f, s)


@pytest.fixture
def served(rewind_settings, monkeypatch, db) -> Iterator[ExitStack]:
    monkeypatch.setenv("LLM_ROOT", closed_port_url().removesuffix("/v1"))
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        **{name: f"runs.tests.engine.calls.test_capture_formats.{name}" for name in VARIANTS},
    }
    registry._load.cache_clear()
    with ExitStack() as stack:
        url = stack.enter_context(Simulator().serve())
        monkeypatch.setenv("LLM_ROOT", url.removesuffix("/v1"))
        yield stack
    registry._load.cache_clear()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_wire_format_is_an_llm_call_with_its_tokens_and_replays_without_the_server(
    served, name
):
    family, stream = VARIANTS[name]
    source = execute_run(create_run(name, {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="ask")
    assert step.kind == "llm", step.calls
    (call,) = step.calls
    assert call["format"] == family and call["endpoint"] == step.output["endpoint"]
    assert call["prompt_tokens"] > 0 and call["completion_tokens"] > 0
    assert (
        call["total_tokens"]
        == call["prompt_tokens"] + call["completion_tokens"]
        == step.total_tokens
    )
    assert call["model_answered"], call
    assert step.output["answer"]

    served.close()
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert replay.nodes.get(name="ask").total_tokens == 0


@pytest.mark.parametrize(
    "family,endpoint,body,content_type,problem",
    [
        (
            "anthropic",
            "messages",
            b'{"type": "message", "usage": {}}',
            "application/json",
            "no content",
        ),
        (
            "gemini",
            "models/g:generateContent",
            b'{"candidates": []}',
            "application/json",
            "no candidates",
        ),
        ("ollama", "api/chat", b'{"model": "m", "done": true}', "application/json", "no message"),
        ("openai", "chat/completions", b"data: [DONE]\n\n", "text/event-stream", "no event"),
    ],
)
def test_an_answer_that_is_not_its_format_is_named(family, endpoint, body, content_type, problem):
    fmt = wire.WireFormat(family, endpoint)
    assert problem in (wire.invalid(fmt, body, content_type) or "")


def test_anthropic_usage_counts_cache_reads_as_input_and_cached():
    fmt = wire.WireFormat("anthropic", "messages")
    body = b'{"type": "message", "model": "claude-x", "content": [], "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 5}}'
    usage = wire.usage_of(fmt, body, "application/json")
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (100, 90, 5)
    assert usage.total_tokens == 105 and usage.model == "claude-x"
