"""A stream that ends before its format's end event is a failed call, never an answer (issue 29,
item 6): a proxy that drops the connection after one delta leaves a body that parses chunk by
chunk. The step fails with what arrived attached, nothing is cached, and a later run against a
working provider asks it again instead of being served the fragment.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from runs.engine.apps import registry
from runs.engine.calls.capture import wire
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.providers.simulator import Simulator
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import LoopbackCall, LoopbackProvider
from runs.tests.helpers.transport_apps import APPS, QUESTION

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


def sse(*events: Any, done: bool = False) -> bytes:
    lines = [f"data: {json.dumps(event)}\n\n" for event in events]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


def chat_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "rewind-sim-1",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }


# The fragment a dropped connection leaves: one delta, no finish_reason, no [DONE].
CUT_CHAT = sse(chat_chunk("The fu"))


def anthropic_events(stop: bool) -> bytes:
    events = [
        {"type": "message_start", "message": {"id": "m", "model": "claude-sim", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    ]
    if stop:
        events += [{"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]
    return sse(*events)


def gemini_chunks(finished: bool) -> bytes:
    last: dict[str, Any] = {"content": {"parts": [{"text": "lo"}], "role": "model"}}
    if finished:
        last["finishReason"] = "STOP"
    first = {"content": {"parts": [{"text": "Hel"}], "role": "model"}}
    return sse({"candidates": [first]}, {"candidates": [last]})


def ollama_lines(done: bool) -> bytes:
    lines = [{"model": "m", "message": {"role": "assistant", "content": "Hel"}, "done": False}]
    if done:
        lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def responses_events(completed: bool) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {"type": "response.output_text.delta", "delta": "Hel"},
    ]
    if completed:
        events.append({"type": "response.completed", "response": {"id": "r", "output": []}})
    return sse(*events)


@pytest.mark.parametrize(
    "family,endpoint,cut,whole,content_type",
    [
        ("openai", "chat/completions", CUT_CHAT, sse(chat_chunk("Hi", "stop")), SSE),
        ("openai", "completions", CUT_CHAT, sse(chat_chunk("Hi"), done=True), SSE),
        ("openai", "responses", responses_events(False), responses_events(True), SSE),
        ("anthropic", "messages", anthropic_events(False), anthropic_events(True), SSE),
        (
            "gemini",
            "models/g:streamGenerateContent",
            gemini_chunks(False),
            gemini_chunks(True),
            SSE,
        ),
        ("ollama", "api/chat", ollama_lines(False), ollama_lines(True), NDJSON),
    ],
    ids=["chat", "completions-done-only", "responses", "anthropic", "gemini", "ollama"],
)
def test_a_stream_without_its_end_event_is_named_and_one_with_it_is_an_answer(
    family, endpoint, cut, whole, content_type
):
    fmt = wire.WireFormat(family, endpoint)
    problem = wire.invalid(fmt, cut, content_type)
    assert problem is not None and ("before its end" in problem or "never finished" in problem)
    assert wire.invalid(fmt, whole, content_type) is None


@pytest.mark.parametrize(
    "path,body",
    [
        ("/v1/chat/completions", {"model": "rewind-sim-1", "stream": True}),
        ("/v1/responses", {"model": "rewind-sim-1", "stream": True}),
        ("/v1/messages", {"model": "claude-sim", "max_tokens": 50, "stream": True}),
        ("/v1beta/models/gemini-sim:streamGenerateContent?alt=sse", {}),
        ("/api/chat", {"model": "llama-sim"}),
    ],
    ids=["chat", "responses", "anthropic", "gemini", "ollama"],
)
def test_every_stream_the_simulator_sends_counts_as_finished(path, body):
    """The simulator's own streams end the way their formats end one: a whole recording is
    never mistaken for a cut one."""
    message = {"role": "user", "content": QUESTION}
    if "gemini" in path:
        body = {"contents": [{"role": "user", "parts": [{"text": QUESTION}]}]}
    elif "responses" in path:
        body = {**body, "input": QUESTION}
    else:
        body = {**body, "messages": [message]}
    status, streamed = Simulator().dispatch("POST", path, json.dumps(body).encode())
    assert status == 200 and isinstance(streamed, bytes), streamed
    fmt = wire.recognise("POST", path.split("?")[0], body)
    assert fmt is not None, path
    kind = NDJSON if fmt.family == "ollama" else SSE
    assert wire.invalid(fmt, streamed, kind) is None


@pytest.mark.parametrize("app", ["openai_sync_stream", "openai_async_stream", "httpx_sync_stream"])
def test_a_stream_cut_off_mid_answer_fails_the_step_and_is_never_served_to_a_later_run(
    rewind_settings, monkeypatch, db, app
):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    healthy = {"on": False}

    def answer(call: LoopbackCall) -> tuple[Any, ...]:
        if not healthy["on"] and call.path.endswith("/chat/completions"):
            return 200, CUT_CHAT, SSE  # the proxy dropped the connection after one delta
        status, body = provider.simulate(call)
        return (status, body, SSE) if isinstance(body, bytes) else (status, body)

    provider = LoopbackProvider(answer)
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        cut = execute_run(create_run(app, {}).pk)
        assert cut.status == Run.Status.FAILED, cut.status
        step = cut.nodes.get(name="ask")
        assert step.status == Node.Status.FAILED
        assert "stopped before its end (no finish_reason, no [DONE])" in step.error, step.error
        assert '"content": "The fu"' in step.raw_output  # what arrived, attached
        assert LLMCacheEntry.objects.count() == 0

        healthy["on"] = True  # a working provider: a new run asks it, not the cache
        again = execute_run(create_run(app, {}).pk)
    assert again.status == Run.Status.COMPLETED, again.error
    ask = again.nodes.get(name="ask")
    assert ask.cache_source == "live"
    assert ask.output["answer"] != "The fu" and len(ask.output["answer"]) > len("The fu")
    assert LLMCacheEntry.objects.count() == 1
    assert len(provider.chat_calls()) == 2
    registry._load.cache_clear()
