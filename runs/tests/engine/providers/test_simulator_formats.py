"""The offline simulator's other wire formats: Anthropic Messages, Gemini generateContent
and Ollama's native API.

Each format is driven over raw HTTP with ``httpx``, in-process (the simulator's
transport) and over loopback (``Simulator.serve`` on 127.0.0.1, port 0); Anthropic's also
through the real ``anthropic`` SDK. Every format answers through the chat core, so the
same model, messages and temperature get the text and token counts that
``/chat/completions`` gives. Nothing goes further than 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import httpx2
import pytest
from pydantic import BaseModel

from runs.engine.providers.simulator import SIMULATOR_MODEL, Simulator, SimulatorOptions

IN_PROCESS_ROOT = "http://simulator.invalid"  # never resolved: the transport answers
PROMPT = "Group A spent 344.75 on 26 calls and group B 120.5 on 7; which outreach worked?"
SYSTEM = "You are a concise analyst."
MODEL = "sim-model"
ZERO = {"temperature": 0}
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
    "required": ["city"],
}


class Rig:
    """One simulator and a raw ``httpx`` client on it, in-process or over loopback."""

    def __init__(self, simulator: Simulator, root: str, in_process: bool) -> None:
        self.simulator, self.root, self.in_process = simulator, root, in_process
        transport = simulator.transport() if in_process else None
        self.http = httpx.Client(base_url=root, transport=transport, timeout=10)

    def post(self, path: str, body: Any, **kw: Any) -> httpx.Response:
        return self.http.post(path, json=body, **kw)

    def chat_answer(self, messages: list[dict], model: str = MODEL, **kw: Any) -> dict:
        """What ``/chat/completions`` answers for this conversation (the reference)."""
        body = {"model": model, "messages": messages, **kw}
        response = self.post("/v1/chat/completions", body)
        assert response.status_code == 200, response.text
        return response.json()

    def anthropic(self) -> anthropic.Anthropic:
        http_client = (
            httpx2.Client(transport=self.simulator.transport(httpx2)) if self.in_process else None
        )
        return anthropic.Anthropic(
            base_url=self.root, api_key="x", max_retries=0, timeout=10, http_client=http_client
        )

    def async_anthropic(self) -> anthropic.AsyncAnthropic:
        http_client = (
            httpx2.AsyncClient(transport=self.simulator.transport(httpx2))
            if self.in_process
            else None
        )
        return anthropic.AsyncAnthropic(
            base_url=self.root, api_key="x", max_retries=0, timeout=10, http_client=http_client
        )


@pytest.fixture(params=["in-process", "loopback"])
def rig(request) -> Iterator[Any]:
    """``rig(**SimulatorOptions)`` builds a :class:`Rig`, once per transport; every server
    it started is stopped at the end."""
    servers = []
    rigs: list[Rig] = []

    def build(**options: Any) -> Rig:
        simulator = Simulator(SimulatorOptions(**options))
        if request.param == "in-process":
            rigs.append(Rig(simulator, IN_PROCESS_ROOT, in_process=True))
            return rigs[-1]
        cm = simulator.serve()
        url = cm.__enter__()
        servers.append(cm)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        rigs.append(Rig(simulator, url.removesuffix("/v1"), in_process=False))
        return rigs[-1]

    yield build
    for r in rigs:
        r.http.close()
    for cm in servers:
        cm.__exit__(None, None, None)


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def conversation() -> list[dict]:
    """A chat-completions conversation: a system message, then the user's question."""
    return [{"role": "system", "content": SYSTEM}, user(PROMPT)]


def chat_text(answer: dict) -> str:
    return answer["choices"][0]["message"]["content"]


def sse(response: httpx.Response) -> list[tuple[str | None, Any]]:
    """A ``text/event-stream`` body as ``(event name or None, parsed data)`` pairs."""
    assert response.headers["content-type"].startswith("text/event-stream")
    events = []
    for block in response.text.split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
        events.append((name, json.loads("\n".join(data))))
    return events


def ndjson(response: httpx.Response) -> list[dict]:
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert response.text.endswith("\n")
    return [json.loads(line) for line in response.text.splitlines() if line]


# -- Anthropic Messages --------------------------------------------------------------------


def messages_body(**kw: Any) -> dict:
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": SYSTEM,
        "messages": [user(PROMPT)],
        **ZERO,
        **kw,
    }


def test_anthropic_message_is_chats_text_with_chats_usage(rig):
    r = rig()
    reference = r.chat_answer(conversation(), **ZERO)
    response = r.post("/v1/messages", messages_body())
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        "application/json"
    )
    message = response.json()
    assert set(message) == {
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
    }
    assert message["id"].startswith("msg_") and message["type"] == "message"
    assert message["role"] == "assistant" and message["model"] == MODEL
    assert message["stop_reason"] == "end_turn" and message["stop_sequence"] is None
    assert message["content"] == [{"type": "text", "text": chat_text(reference)}]
    for number in ("344.75", "26", "120.5", "7"):
        assert number in message["content"][0]["text"]
    assert message["usage"] == {
        "input_tokens": reference["usage"]["prompt_tokens"],
        "output_tokens": reference["usage"]["completion_tokens"],
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    assert r.post("/v1/messages", messages_body()).json() == message  # deterministic at 0
    counted = r.post(
        "/v1/messages/count_tokens", {"model": MODEL, "system": SYSTEM, "messages": [user(PROMPT)]}
    )
    assert counted.json() == {"input_tokens": message["usage"]["input_tokens"]}


def test_anthropic_blocks_read_like_strings(rig):
    r = rig()
    plain = r.post("/v1/messages", messages_body()).json()
    blocks = messages_body(
        system=[{"type": "text", "text": SYSTEM}],
        messages=[{"role": "user", "content": [{"type": "text", "text": PROMPT}]}],
    )
    assert r.post("/v1/messages", blocks).json() == plain
    # tools may come along: a request they do not fit is answered in text
    tools = [{"name": "get_weather", "description": "Weather", "input_schema": WEATHER_SCHEMA}]
    answered = r.post("/v1/messages", messages_body(tools=tools, tool_choice={"type": "none"}))
    assert answered.json()["content"][0]["type"] == "text"


def test_anthropic_jitters_above_zero(rig):
    r = rig()
    texts = {
        r.post("/v1/messages", messages_body(temperature=0.9)).json()["content"][0]["text"]
        for _ in range(6)
    }
    assert len(texts) > 1
    no_temperature = {k: v for k, v in messages_body().items() if k != "temperature"}
    ids = {r.post("/v1/messages", no_temperature).json()["id"] for _ in range(3)}
    assert len(ids) == 3  # an absent temperature is Anthropic's default, 1


def test_anthropic_stream_is_the_real_event_sequence(rig):
    r = rig()
    plain = r.post("/v1/messages", messages_body()).json()
    events = sse(r.post("/v1/messages", messages_body(stream=True)))
    names = [name for name, _ in events]
    assert all(data["type"] == name for name, data in events)  # every event is named
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert set(names[3:-3]) == {"content_block_delta"} and len(names) > 8
    start = events[0][1]["message"]
    assert start["id"] == plain["id"] and start["content"] == [] and start["stop_reason"] is None
    assert start["usage"]["input_tokens"] == plain["usage"]["input_tokens"]
    assert events[1][1] == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert all(d["type"] == "text_delta" for d in deltas)
    assert "".join(d["text"] for d in deltas) == plain["content"][0]["text"]
    delta = events[-2][1]
    assert delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert delta["usage"] == {"output_tokens": plain["usage"]["output_tokens"]}
    assert events[-1][1] == {"type": "message_stop"}


def test_anthropic_tool_use_and_tool_result(rig):
    r = rig()
    tools = [
        {"name": "get_weather", "description": "Current weather", "input_schema": WEATHER_SCHEMA},
        {"name": "send_email", "description": "Send an email", "input_schema": {"type": "object"}},
    ]
    ask = [user("What is the weather in Paris right now?")]
    message = r.post("/v1/messages", messages_body(messages=ask, tools=tools)).json()
    assert message["stop_reason"] == "tool_use"
    (block,) = message["content"]
    assert block["type"] == "tool_use" and block["id"].startswith("toolu_")
    assert block["name"] == "get_weather" and block["input"]["city"] == "Paris"

    events = sse(r.post("/v1/messages", messages_body(messages=ask, tools=tools, stream=True)))
    start = next(data for name, data in events if name == "content_block_start")
    assert start["content_block"] == {**block, "input": {}}
    partial = "".join(
        data["delta"]["partial_json"] for name, data in events if name == "content_block_delta"
    )
    assert json.loads(partial) == block["input"]
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"

    result = {"type": "tool_result", "tool_use_id": block["id"], "content": '{"temp_c": 21.5}'}
    follow = ask + [
        {"role": "assistant", "content": message["content"]},
        {"role": "user", "content": [result]},
    ]
    answer = r.post("/v1/messages", messages_body(messages=follow, tools=tools)).json()
    assert answer["stop_reason"] == "end_turn"
    assert "21.5" in answer["content"][0]["text"] and "get_weather" in answer["content"][0]["text"]
    forced = r.post(
        "/v1/messages",
        messages_body(
            messages=ask, tools=tools, tool_choice={"type": "tool", "name": "send_email"}
        ),
    ).json()
    assert forced["content"][0]["name"] == "send_email"


def test_anthropic_errors_in_anthropic_shape(rig):
    def error_of(response: httpx.Response, status: int, kind: str) -> str:
        assert response.status_code == status, response.text
        body = response.json()
        assert body["type"] == "error" and set(body["error"]) == {"type", "message"}
        assert body["error"]["type"] == kind
        return body["error"]["message"]

    r = rig()
    no_max = {k: v for k, v in messages_body().items() if k != "max_tokens"}
    assert "max_tokens" in error_of(r.post("/v1/messages", no_max), 400, "invalid_request_error")
    wrong_role = messages_body(messages=[{"role": "system", "content": "x"}])
    assert "role" in error_of(r.post("/v1/messages", wrong_role), 400, "invalid_request_error")
    hot = messages_body(temperature=1.5)
    assert "temperature" in error_of(r.post("/v1/messages", hot), 400, "invalid_request_error")
    bad_json = r.http.post("/v1/messages", content=b"{nope")
    error_of(bad_json, 400, "invalid_request_error")
    error_of(r.http.get("/v1/messages"), 405, "invalid_request_error")
    for status, kind in ((429, "rate_limit_error"), (500, "api_error"), (529, "overloaded_error")):
        failing = rig(status=status)
        error_of(failing.post("/v1/messages", messages_body()), status, kind)
        error_of(failing.post("/v1/messages", messages_body(stream=True)), status, kind)
    schema = {"type": "json_schema", "schema": {"type": "object"}}
    strict = rig(reject_response_format=True)
    refused = strict.post("/v1/messages", messages_body(output_config={"format": schema}))
    assert "response_format" in error_of(refused, 400, "invalid_request_error")


def test_anthropic_applies_the_simulator_options(rig):
    other = rig(substitute_model="other-7b").post("/v1/messages", messages_body()).json()
    assert other["model"] == "other-7b"
    garbled = rig(garbage=True).post("/v1/messages", messages_body()).json()
    assert garbled["content"][0]["text"].startswith("<<garbled output>>")
    empty = rig(empty=True)
    assert empty.post("/v1/messages", messages_body()).json()["content"] == [
        {"type": "text", "text": ""}
    ]
    events = sse(empty.post("/v1/messages", messages_body(stream=True)))
    assert "content_block_delta" not in [name for name, _ in events]
    assert events[-2][1]["usage"]["output_tokens"] >= 1


# -- Anthropic through the real SDK ----------------------------------------------------------

SDK_ZERO = {"extra_body": ZERO}  # anthropic 2.x has no ``temperature`` keyword any more


def sdk_call(**kw: Any) -> dict:
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": SYSTEM,
        "messages": [user(PROMPT)],
        **SDK_ZERO,
        **kw,
    }


def test_the_anthropic_sdk_parses_messages_and_streams(rig):
    r = rig()
    client = r.anthropic()
    reference = r.chat_answer(conversation(), **ZERO)
    message = client.messages.create(**sdk_call())
    assert isinstance(message, anthropic.types.Message)
    assert message.content[0].type == "text" and message.content[0].text == chat_text(reference)
    assert message.usage.input_tokens == reference["usage"]["prompt_tokens"]
    assert message.usage.output_tokens == reference["usage"]["completion_tokens"]
    assert message.usage.cache_read_input_tokens == 0 and message.stop_reason == "end_turn"
    assert message.model == MODEL and message.id.startswith("msg_")

    with client.messages.stream(**sdk_call()) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed == message.content[0].text
    assert final.content[0].text == message.content[0].text
    assert final.usage.input_tokens == message.usage.input_tokens
    assert final.usage.output_tokens == message.usage.output_tokens
    assert final.stop_reason == "end_turn"

    raw = list(client.messages.create(**sdk_call(), stream=True))
    assert [e.type for e in raw[:2]] == ["message_start", "content_block_start"]
    assert raw[-2].type == "message_delta" and raw[-1].type == "message_stop"
    assert raw[-2].usage.output_tokens == message.usage.output_tokens
    text = "".join(e.delta.text for e in raw if e.type == "content_block_delta")
    assert text == message.content[0].text

    counted = client.messages.count_tokens(model=MODEL, system=SYSTEM, messages=[user(PROMPT)])
    assert counted.input_tokens == message.usage.input_tokens
    assert [name for name, _ in r.simulator.calls][-4:] == [
        "messages",
        "messages",
        "messages",
        "count_tokens",
    ]
    assert len(r.simulator.requests) == 1  # only the reference reached /chat/completions


def test_the_anthropic_sdk_tools_structured_output_and_errors(rig):
    client = rig().anthropic()
    tools = [
        {"name": "get_weather", "description": "Current weather", "input_schema": WEATHER_SCHEMA}
    ]
    ask = [user("What is the weather in Paris right now?")]
    message = client.messages.create(**sdk_call(messages=ask, tools=tools))
    assert message.stop_reason == "tool_use" and message.content[0].input["city"] == "Paris"
    with client.messages.stream(**sdk_call(messages=ask, tools=tools)) as stream:
        assert stream.get_final_message().content[0].input == message.content[0].input
    result = {"type": "tool_result", "tool_use_id": message.content[0].id, "content": "21.5 C"}
    follow = ask + [message.to_param(), {"role": "user", "content": [result]}]
    answer = client.messages.create(**sdk_call(messages=follow, tools=tools))
    assert "21.5" in answer.content[0].text

    class Verdict(BaseModel):
        winner: str
        cost_per_call: float

    parsed = client.messages.parse(**sdk_call(), output_format=Verdict)
    assert isinstance(parsed.parsed_output, Verdict)

    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**sdk_call(messages=[{"role": "system", "content": "x"}]))
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    with pytest.raises(anthropic.RateLimitError):
        rig(status=429).anthropic().messages.create(**sdk_call())
    with pytest.raises(anthropic.InternalServerError):
        with rig(status=529).anthropic().messages.stream(**sdk_call()) as stream:
            stream.get_final_message()


def test_the_async_anthropic_sdk_streams_like_the_sync_one(rig):
    r = rig()
    plain = r.anthropic().messages.create(**sdk_call())

    async def run() -> tuple[str, int]:
        client = r.async_anthropic()
        async with client.messages.stream(**sdk_call()) as stream:
            text = "".join([piece async for piece in stream.text_stream])
            final = await stream.get_final_message()
        await client.close()
        return text, final.usage.output_tokens

    assert asyncio.run(run()) == (plain.content[0].text, plain.usage.output_tokens)


def test_the_anthropic_sdk_answers_the_same_in_process_and_served():
    simulator = Simulator()
    in_process = Rig(simulator, IN_PROCESS_ROOT, True).anthropic()
    with simulator.serve() as url:
        served = anthropic.Anthropic(
            base_url=url, api_key="x", max_retries=0, timeout=10
        )  # the served ``/v1`` URL too: ``/v1/v1/messages`` still ends in ``/v1/messages``
        answers = [c.messages.create(**sdk_call()).model_dump() for c in (in_process, served)]
    assert answers[0] == answers[1]


# -- Gemini ----------------------------------------------------------------------------------


def gemini_body(**kw: Any) -> dict:
    return {
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "generationConfig": {"temperature": 0, "maxOutputTokens": 512},
        **kw,
    }


def gemini_text(answer: dict) -> str:
    return answer["candidates"][0]["content"]["parts"][0]["text"]


GENERATE = f"/v1beta/models/{MODEL}:generateContent"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent"


def test_gemini_generate_content_is_chats_text_with_chats_usage(rig):
    r = rig()
    reference = r.chat_answer(conversation(), **ZERO)
    response = r.post(GENERATE, gemini_body())
    assert response.status_code == 200
    answer = response.json()
    (candidate,) = answer["candidates"]
    assert candidate["content"] == {"parts": [{"text": chat_text(reference)}], "role": "model"}
    assert candidate["finishReason"] == "STOP"
    usage = answer["usageMetadata"]
    assert usage["promptTokenCount"] == reference["usage"]["prompt_tokens"]
    assert usage["candidatesTokenCount"] == reference["usage"]["completion_tokens"]
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]
    assert answer["modelVersion"] == MODEL
    assert r.post(GENERATE, gemini_body()).json() == answer  # deterministic at 0
    snake = {
        "system_instruction": {"parts": [{"text": SYSTEM}]},
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "generation_config": {"temperature": 0},
    }
    assert r.post(GENERATE, snake).json() == answer  # proto field names are accepted too
    counted = r.post(
        f"/v1beta/models/{MODEL}:countTokens",
        {
            "contents": gemini_body()["contents"],
            "systemInstruction": gemini_body()["systemInstruction"],
        },
    )
    assert counted.json()["totalTokens"] == usage["promptTokenCount"]
    hot = gemini_body(generationConfig={"temperature": 1.2})
    assert len({gemini_text(r.post(GENERATE, hot).json()) for _ in range(6)}) > 1


def test_gemini_streams_as_sse_and_as_a_json_array(rig):
    r = rig()
    plain = r.post(GENERATE, gemini_body()).json()
    events = sse(r.post(STREAM + "?alt=sse", gemini_body()))
    assert all(name is None for name, _ in events) and len(events) > 3  # data: lines only
    chunks = [data for _, data in events]
    text = "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks)
    assert text == plain["candidates"][0]["content"]["parts"][0]["text"]
    assert all("finishReason" not in c["candidates"][0] for c in chunks[:-1])
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"] == plain["usageMetadata"]
    assert all(
        c["usageMetadata"]["promptTokenCount"] == plain["usageMetadata"]["promptTokenCount"]
        for c in chunks
    )
    assert all(c["modelVersion"] == MODEL for c in chunks)
    array = r.post(STREAM, gemini_body())  # no ?alt=sse: the real API's JSON array
    assert array.status_code == 200 and array.headers["content-type"].startswith("application/json")
    assert array.json() == chunks
    encoded = r.post(f"/v1beta/models/{MODEL}%3AstreamGenerateContent?alt=sse", gemini_body())
    assert [data for _, data in sse(encoded)] == chunks


def test_gemini_function_calls_and_responses(rig):
    r = rig()
    tools = [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather",
                    "parameters": {
                        "type": "OBJECT",
                        "properties": {"city": {"type": "STRING"}},
                        "required": ["city"],
                    },
                }
            ]
        }
    ]
    ask = [{"role": "user", "parts": [{"text": "What is the weather in Paris right now?"}]}]
    answer = r.post(GENERATE, gemini_body(contents=ask, tools=tools)).json()
    (part,) = answer["candidates"][0]["content"]["parts"]
    assert part["functionCall"]["name"] == "get_weather"
    assert part["functionCall"]["args"]["city"] == "Paris"
    streamed = sse(r.post(STREAM + "?alt=sse", gemini_body(contents=ask, tools=tools)))
    assert streamed[-1][1]["candidates"][0]["content"]["parts"] == [part]
    follow = ask + [
        {"role": "model", "parts": [part]},
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 21.5}}}],
        },
    ]
    text = r.post(GENERATE, gemini_body(contents=follow, tools=tools)).json()
    said = text["candidates"][0]["content"]["parts"][0]["text"]
    assert "21.5" in said and "get_weather" in said
    none = {"functionCallingConfig": {"mode": "NONE"}}
    plain = r.post(GENERATE, gemini_body(contents=ask, tools=tools, toolConfig=none)).json()
    assert "text" in plain["candidates"][0]["content"]["parts"][0]
    schema = {
        "type": "OBJECT",
        "properties": {"winner": {"type": "STRING"}},
        "required": ["winner"],
    }
    config = {"temperature": 0, "responseMimeType": "application/json", "responseSchema": schema}
    structured = r.post(GENERATE, gemini_body(generationConfig=config)).json()
    value = json.loads(structured["candidates"][0]["content"]["parts"][0]["text"])
    assert isinstance(value["winner"], str)


def test_gemini_errors_in_googles_shape(rig):
    def error_of(response: httpx.Response, status: int, name: str) -> str:
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert set(error) == {"code", "message", "status"}
        assert error["code"] == status and error["status"] == name
        return error["message"]

    r = rig()
    assert "contents" in error_of(r.post(GENERATE, {}), 400, "INVALID_ARGUMENT")
    hot = gemini_body(generationConfig={"temperature": 3})
    error_of(r.post(GENERATE, hot), 400, "INVALID_ARGUMENT")
    error_of(r.http.post(GENERATE, content=b"[oops"), 400, "INVALID_ARGUMENT")
    error_of(r.http.get(GENERATE), 405, "FAILED_PRECONDITION")
    for status, name in ((429, "RESOURCE_EXHAUSTED"), (500, "INTERNAL"), (503, "UNAVAILABLE")):
        failing = rig(status=status)
        error_of(failing.post(GENERATE, gemini_body()), status, name)
        error_of(failing.post(STREAM + "?alt=sse", gemini_body()), status, name)
    assert (
        rig(substitute_model="other-7b").post(GENERATE, gemini_body()).json()["modelVersion"]
        == "other-7b"
    )


# -- Ollama ----------------------------------------------------------------------------------


def ollama_chat(**kw: Any) -> dict:
    return {"model": MODEL, "messages": conversation(), "options": ZERO, **kw}


def test_ollama_chat_streams_ndjson_by_default(rig):
    r = rig()
    reference = r.chat_answer(conversation(), **ZERO)
    lines = ndjson(r.post("/api/chat", ollama_chat()))
    *pieces, final = lines
    assert len(pieces) > 3
    assert all(
        set(line) == {"model", "created_at", "message", "done"} and line["done"] is False
        for line in pieces
    )
    assert all(line["message"]["role"] == "assistant" for line in lines)
    assert "".join(line["message"]["content"] for line in pieces) == chat_text(reference)
    assert final["done"] is True and final["done_reason"] == "stop"
    assert final["message"] == {"role": "assistant", "content": ""}
    assert final["prompt_eval_count"] == reference["usage"]["prompt_tokens"]
    assert final["eval_count"] == reference["usage"]["completion_tokens"]
    assert final["total_duration"] == (
        final["load_duration"] + final["prompt_eval_duration"] + final["eval_duration"]
    )
    assert final["eval_duration"] > 0 and final["model"] == MODEL

    whole = r.post("/api/chat", ollama_chat(stream=False))
    assert whole.headers["content-type"].startswith("application/json")
    answer = whole.json()
    assert answer["message"] == {"role": "assistant", "content": chat_text(reference)}
    assert answer["done"] is True and answer["done_reason"] == "stop"
    assert {k: v for k, v in answer.items() if k != "message"} == {
        k: v for k, v in final.items() if k != "message"
    }
    assert r.post("/api/chat", ollama_chat(stream=False)).json() == answer  # deterministic


def test_ollama_generate_is_chat_with_a_system_and_a_user_message(rig):
    r = rig()
    reference = r.chat_answer(conversation(), **ZERO)
    body = {"model": MODEL, "prompt": PROMPT, "system": SYSTEM, "options": ZERO}
    answer = r.post("/api/generate", {**body, "stream": False}).json()
    assert answer["response"] == chat_text(reference) and "message" not in answer
    assert answer["prompt_eval_count"] == reference["usage"]["prompt_tokens"]
    assert answer["eval_count"] == reference["usage"]["completion_tokens"]
    *pieces, final = ndjson(r.post("/api/generate", body))
    assert "".join(line["response"] for line in pieces) == answer["response"]
    assert final["done"] is True and final["response"] == ""
    assert final["eval_count"] == answer["eval_count"]
    loaded = r.post("/api/generate", {"model": MODEL, "stream": False}).json()
    assert loaded["done"] is True and loaded["done_reason"] == "load"  # Ollama's "load" call
    hot = {
        r.post("/api/generate", {**body, "stream": False, "options": {"temperature": 0.8}}).json()[
            "response"
        ]
        for _ in range(6)
    }
    assert len(hot) > 1


def test_ollama_tools_and_format(rig):
    r = rig()
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather",
                "parameters": WEATHER_SCHEMA,
            },
        }
    ]
    ask = [user("What is the weather in Paris right now?")]
    body = {"model": MODEL, "messages": ask, "tools": tools, "stream": False, "options": ZERO}
    message = r.post("/api/chat", body).json()["message"]
    (call,) = message["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert call["function"]["arguments"]["city"] == "Paris"  # an object, not JSON text
    follow = ask + [message, {"role": "tool", "tool_name": "get_weather", "content": "21.5 C"}]
    said = r.post("/api/chat", {**body, "messages": follow}).json()["message"]["content"]
    assert "21.5" in said
    schema = {
        "type": "object",
        "properties": {"winner": {"type": "string"}},
        "required": ["winner"],
    }
    formatted = r.post("/api/chat", ollama_chat(stream=False, format=schema)).json()
    assert isinstance(json.loads(formatted["message"]["content"])["winner"], str)


def test_ollama_errors_in_ollamas_shape(rig):
    def error_of(response: httpx.Response, status: int) -> str:
        assert response.status_code == status, response.text
        body = response.json()
        assert set(body) == {"error"} and isinstance(body["error"], str)
        return body["error"]

    r = rig()
    assert error_of(r.post("/api/chat", {"messages": conversation()}), 400) == "model is required"
    error_of(r.post("/api/chat", ollama_chat(messages="hi")), 400)
    error_of(r.http.post("/api/generate", content=b"{"), 400)
    error_of(r.http.get("/api/chat"), 405)
    for status in (429, 500):
        failing = rig(status=status)
        error_of(failing.post("/api/chat", ollama_chat()), status)
        error_of(failing.post("/api/generate", {"model": MODEL, "prompt": "hi"}), status)
    assert (
        rig(substitute_model="other-7b")
        .post("/api/chat", ollama_chat(stream=False))
        .json()["model"]
        == "other-7b"
    )
    garbled = rig(garbage=True).post("/api/chat", ollama_chat(stream=False)).json()
    assert garbled["message"]["content"].startswith("<<garbled output>>")


# -- every format together: one text, one routing ------------------------------------------


def test_one_conversation_gets_one_text_in_every_format(rig):
    r = rig()
    reference = r.chat_answer(conversation(), **ZERO)
    text = chat_text(reference)
    prompt_tokens = reference["usage"]["prompt_tokens"]
    got = {
        "messages": r.post("/v1/messages", messages_body()).json()["content"][0]["text"],
        "gemini": r.post(GENERATE, gemini_body()).json()["candidates"][0]["content"]["parts"][0][
            "text"
        ],
        "ollama chat": r.post("/api/chat", ollama_chat(stream=False)).json()["message"]["content"],
        "ollama generate": r.post(
            "/api/generate",
            {"model": MODEL, "system": SYSTEM, "prompt": PROMPT, "options": ZERO, "stream": False},
        ).json()["response"],
    }
    assert got == dict.fromkeys(got, text)
    counted = {"model": MODEL, "system": SYSTEM, "messages": [user(PROMPT)]}
    assert r.post("/v1/messages/count_tokens", counted).json()["input_tokens"] == (prompt_tokens)


def test_routes_do_not_shadow_each_other(rig):
    r = rig()
    assert r.post("/v1/chat/completions", {"messages": [user("hi")]}).json()["object"] == (
        "chat.completion"
    )
    assert r.post("/v1/completions", {"prompt": "hi"}).json()["object"] == "text_completion"
    assert r.http.get("/v1/models/gemini-pro").json()["id"] == "gemini-pro"
    assert r.http.get("/v1/models").json()["data"][0]["id"] == SIMULATOR_MODEL
    assert "message" in r.post("/api/chat", ollama_chat(stream=False)).json()
    assert "candidates" in r.post(GENERATE, gemini_body()).json()
    assert r.post("/v1/messages", messages_body()).json()["type"] == "message"
    # an OpenAI Assistants-style path is not Anthropic's: still an OpenAI 404
    missing = r.post("/v1/threads/t1/messages", {"role": "user", "content": "hi"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_url"
    names = [name for name, _ in r.simulator.calls]
    assert names == [
        "chat",
        "completions",
        "api/chat",
        "generateContent",
        "messages",
    ]
    assert r.simulator.requests == [{"messages": [user("hi")]}]  # chat's own calls only
    assert r.simulator.calls[3][1] == gemini_body()  # the body as it arrived


def test_served_streams_arrive_line_by_line():
    simulator = Simulator()
    with simulator.serve() as url:
        root = url.removesuffix("/v1")
        with httpx.stream("POST", root + "/api/chat", json=ollama_chat(), timeout=10) as response:
            assert response.headers["content-type"] == "application/x-ndjson"
            lines = [json.loads(line) for line in response.iter_lines() if line]
        assert lines[-1]["done"] is True and not any(line["done"] for line in lines[:-1])
        with httpx.stream(
            "POST", root + "/v1/messages", json=messages_body(stream=True), timeout=10
        ) as response:
            assert response.headers["content-type"] == "text/event-stream"
            lines = [line for line in response.iter_lines() if line]
        assert lines[0] == "event: message_start" and lines[-2] == "event: message_stop"
    assert [name for name, _ in simulator.calls] == ["api/chat", "messages"]


def test_empty_and_garbled_answers_in_gemini_and_ollama(rig):
    empty = rig(empty=True)
    answer = empty.post(GENERATE, gemini_body()).json()
    assert answer["candidates"][0]["content"]["parts"] == [{"text": ""}]
    (chunk,) = [data for _, data in sse(empty.post(STREAM + "?alt=sse", gemini_body()))]
    assert chunk["candidates"][0]["finishReason"] == "STOP"
    assert chunk["usageMetadata"] == answer["usageMetadata"]
    (final,) = ndjson(empty.post("/api/chat", ollama_chat()))
    assert final["done"] is True and final["eval_count"] >= 1
    garbled = rig(garbage=True).post(GENERATE, gemini_body()).json()
    assert garbled["candidates"][0]["content"]["parts"][0]["text"].startswith("<<garbled output>>")
