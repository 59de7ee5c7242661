"""Streamed OpenAI and Anthropic calls record their usage (issue 42, item 4): through the real
SDKs, ``stream=True``, against the simulator served on loopback. Where the stream reports its
usage (OpenAI with ``include_usage``, the Responses API's ``response.completed``, Anthropic's
``message_start``/``message_delta``) the call records those numbers; where it does not (OpenAI
without ``include_usage``) Rewind counts the tokens and the call, its cache entry and the step's
page say they were counted. The request goes out as the app wrote it, the app gets the bytes
the provider sent, and a replay from the cache gives them back at zero tokens.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import anthropic
import openai
import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.calls.capture import counting, wire
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.engine.providers.simulator import SIMULATOR_MODEL, Simulator
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import closed_port_url

QUESTION = "Which region converts best, and why?"
KEY = "sk-test-0000000000000000000000"


def _url() -> str:
    return os.environ["STREAM_BASE_URL"]  # the simulator on loopback, ending in /v1


def _chat(include_usage: bool) -> list[str]:
    client = openai.OpenAI(base_url=_url(), api_key=KEY, max_retries=0)
    extra: dict[str, Any] = {"stream_options": {"include_usage": True}} if include_usage else {}
    chunks = client.chat.completions.create(
        model=SIMULATOR_MODEL, temperature=0, stream=True,
        messages=[{"role": "user", "content": QUESTION}], **extra,
    )  # fmt: skip
    return [chunk.model_dump_json() for chunk in chunks]  # every chunk as the app saw it


def _responses() -> list[str]:
    client = openai.OpenAI(base_url=_url(), api_key=KEY, max_retries=0)
    events = client.responses.create(model=SIMULATOR_MODEL, input=QUESTION, stream=True)
    return [event.model_dump_json() for event in events]


def _anthropic() -> list[str]:
    client = anthropic.Anthropic(base_url=_url().removesuffix("/v1"), api_key=KEY, max_retries=0)
    with client.messages.stream(
        model="claude-sim", max_tokens=200, messages=[{"role": "user", "content": QUESTION}]
    ) as events:
        return [event.model_dump_json() for event in events]


ASKS = {
    "chat_without_usage": lambda: _chat(False),
    "chat_with_usage": lambda: _chat(True),
    "responses": _responses,
    "anthropic": _anthropic,
}


def application(name: str):
    @action(reads=[], writes=["received"])
    def ask(state: State) -> State:
        return state.update(received=ASKS[name]())

    return ApplicationBuilder().with_actions(ask=ask).with_entrypoint("ask").build()


for _name in ASKS:
    globals()[f"streamed_{_name}"] = lambda n=_name: application(n)


@pytest.fixture
def simulator(rewind_settings, monkeypatch, db) -> Iterator[Any]:
    """The simulator served on loopback as the apps' endpoint; ``simulator.stop()`` stops it
    (the endpoint then names a closed port)."""
    monkeypatch.setenv("STREAM_BASE_URL", closed_port_url())
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        **{f"streamed_{n}": f"{__name__}.streamed_{n}" for n in ASKS},
    }
    registry._load.cache_clear()
    with ExitStack() as stack:
        sim = Simulator()
        monkeypatch.setenv("STREAM_BASE_URL", stack.enter_context(sim.serve()))
        sim.stop = stack.close  # closing twice is closing once
        yield sim
    registry._load.cache_clear()


def _recorded(name: str) -> tuple[Run, Node, dict[str, Any], LLMCacheEntry]:
    source = execute_run(create_run(f"streamed_{name}", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="ask")
    (call,) = step.calls
    entry = LLMCacheEntry.objects.get(pk=int(call["entry"].removeprefix("llm:")))
    return source, step, call, entry


def _replays_identical_at_zero_tokens(simulator: Any, source: Run, step: Node) -> None:
    """With the provider stopped, a replay gives the app the same chunks, costs nothing."""
    simulator.stop()
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    again = replay.nodes.get(name="ask")
    assert again.output["received"] == step.output["received"]  # chunk for chunk
    assert again.cache_source == "cache"
    assert (again.prompt_tokens, again.completion_tokens, again.total_tokens) == (0, 0, 0)
    assert again.calls[0]["total_tokens"] == 0 and not again.calls[0]["tokens_counted"]


def _stream_documents(entry: LLMCacheEntry) -> list[dict[str, Any]]:
    text = entry.response["text"]
    assert entry.response["headers"]["content-type"].startswith("text/event-stream")
    return wire.documents(text.encode(), "text/event-stream") or []


def test_a_chat_stream_without_include_usage_records_counted_tokens_and_says_so(
    simulator, client, django_user_model
):
    source, step, call, entry = _recorded("chat_without_usage")

    # The provider was asked exactly what the app asked: no stream_options slipped in.
    ((endpoint, sent),) = simulator.calls
    assert endpoint == "chat" and "stream_options" not in sent
    # The answer stored is the provider's own bytes: no usage chunk, no "usage": null.
    docs = _stream_documents(entry)
    assert docs and all("usage" not in d for d in docs)
    assert (
        entry.response["text"].encode()
        == Simulator().dispatch("POST", "/v1/chat/completions", json.dumps(sent).encode())[1]
    )

    answer = "".join(d["choices"][0]["delta"].get("content") or "" for d in docs if d["choices"])
    assert call["tokens_counted"] is True
    assert call["prompt_tokens"] == counting.prompt_tokens("chat/completions", sent) > 0
    assert call["completion_tokens"] == counting.count_tokens(answer) > 0
    assert call["total_tokens"] == call["prompt_tokens"] + call["completion_tokens"]
    assert step.total_tokens == call["total_tokens"]
    assert step.cost_usd is not None and step.cost_usd > 0  # read from the counted tokens
    assert entry.usage["counted"] is True

    user = django_user_model.objects.create_user("viewer", password="pw")
    client.force_login(user)
    page = client.get(f"/runs/{source.pk}/nodes/{step.sequence_id}/").content.decode()
    assert page.count('class="counted"') == 2, page  # the step's tokens and the call's

    _replays_identical_at_zero_tokens(simulator, source, step)


def test_a_chat_stream_with_include_usage_records_the_reported_numbers(simulator, client):
    source, step, call, entry = _recorded("chat_with_usage")
    docs = _stream_documents(entry)
    reported = docs[-1]["usage"]  # the chunk with no choices the option asks for
    assert docs[-1]["choices"] == [] and all(d["usage"] is None for d in docs[:-1])

    assert call["tokens_counted"] is False and "counted" not in entry.usage
    assert (call["prompt_tokens"], call["completion_tokens"], call["total_tokens"]) == (
        reported["prompt_tokens"], reported["completion_tokens"], reported["total_tokens"]
    )  # fmt: skip
    assert step.total_tokens == reported["total_tokens"] > 0

    _replays_identical_at_zero_tokens(simulator, source, step)


def test_a_responses_stream_records_the_usage_of_its_completed_event(simulator):
    source, step, call, entry = _recorded("responses")
    (done,) = [d for d in _stream_documents(entry) if d.get("type") == "response.completed"]
    reported = done["response"]["usage"]

    assert call["tokens_counted"] is False
    assert (call["prompt_tokens"], call["completion_tokens"], call["total_tokens"]) == (
        reported["input_tokens"], reported["output_tokens"], reported["total_tokens"]
    )  # fmt: skip
    assert call["total_tokens"] > 0

    _replays_identical_at_zero_tokens(simulator, source, step)


def test_an_anthropic_stream_records_its_reported_usage(simulator):
    source, step, call, entry = _recorded("anthropic")
    docs = _stream_documents(entry)
    (start,) = [d for d in docs if d["type"] == "message_start"]
    (delta,) = [d for d in docs if d["type"] == "message_delta"]
    # Streamed as the API streams: the input at the start, the output so far at the end.
    input_tokens = start["message"]["usage"]["input_tokens"]
    output_tokens = delta["usage"]["output_tokens"]
    assert input_tokens > 0 and output_tokens > start["message"]["usage"]["output_tokens"]

    assert call["tokens_counted"] is False
    assert (call["prompt_tokens"], call["completion_tokens"]) == (input_tokens, output_tokens)
    assert step.total_tokens == input_tokens + output_tokens

    _replays_identical_at_zero_tokens(simulator, source, step)


def test_an_anthropic_message_delta_with_cumulative_or_null_input_counts_keeps_the_input():
    """Today's API repeats the input counts in message_delta (cumulative), or sends them null."""
    fmt = wire.WireFormat("anthropic", "messages")
    start = {"type": "message_start", "message": {"model": "claude-x", "usage": {
        "input_tokens": 12, "cache_read_input_tokens": 30, "output_tokens": 1}}}  # fmt: skip
    for delta_usage in (
        {"input_tokens": None, "cache_read_input_tokens": None, "output_tokens": 9},
        {"input_tokens": 12, "cache_read_input_tokens": 30, "output_tokens": 9},
    ):
        delta = {"type": "message_delta", "delta": {}, "usage": delta_usage}
        body = "".join(f"data: {json.dumps(e)}\n\n" for e in (start, delta)).encode()
        usage = wire.usage_of(fmt, body, "text/event-stream")
        assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (42, 30, 9)
        assert usage.total_tokens == 51 and usage.reported and not usage.counted


def test_counted_tokens_cover_tool_calls_and_every_choice():
    """A streamed tool call's name and arguments, and each of ``n`` choices, are output."""
    fmt = wire.WireFormat("openai", "chat/completions")
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {
            "name": "lookup", "arguments": '{"region": "EMEA"}'}}]}, "finish_reason": None}]},
        {"choices": [{"index": 1, "delta": {"content": "Hello there"}, "finish_reason": "stop"}]},
    ]  # fmt: skip
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"
    request = {"model": "m", "messages": [{"role": "user", "content": "hi", "name": "ana"}]}
    usage = counting.counted_usage(fmt, request, body, "text/event-stream", wire.Usage())
    assert usage is not None and usage.counted
    expected = counting.PER_TOOL_CALL + counting.count_tokens('lookup{"region": "EMEA"}Hello there')
    assert usage.completion_tokens == expected
    # hi, user, ana: one token each, with the message's framing, its name's and the reply's.
    assert usage.prompt_tokens == 3 + counting.PER_MESSAGE + counting.PER_NAME + counting.PER_REPLY
    assert counting.counted_usage(wire.WireFormat("anthropic", "messages"), request, body,
                                  "text/event-stream", wire.Usage()) is None  # fmt: skip


def test_a_legacy_completion_stream_without_usage_is_counted_too():
    fmt = wire.WireFormat("openai", "completions")
    chunk = {"choices": [{"index": 0, "text": "Paris is", "finish_reason": None}]}
    last = {"choices": [{"index": 0, "text": " the capital.", "finish_reason": "stop"}]}
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in (chunk, last)).encode()
    request = {"model": "m", "prompt": "The capital of France?", "stream": True}
    usage = counting.counted_usage(fmt, request, body, "text/event-stream", wire.Usage(model="m"))
    assert usage is not None and usage.counted and usage.model == "m"
    assert usage.prompt_tokens == counting.count_tokens("The capital of France?") == 5
    assert usage.completion_tokens == counting.count_tokens("Paris is the capital.") == 5
