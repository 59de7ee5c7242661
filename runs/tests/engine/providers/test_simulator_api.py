"""The offline simulator driven through the real ``openai`` SDK (issue 8, item 8).

Every test talks to a :class:`Simulator` either in-process (``httpx.MockTransport`` under
``openai.OpenAI(http_client=...)``) or served on 127.0.0.1; nothing goes further. Burr's
own shipped example applications, unchanged, run against the served simulator at the end.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import math
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import burr
import httpx
import openai
import pytest
from pydantic import BaseModel, Field

from runs.engine.providers.simulator import (
    SIMULATOR_EMBEDDING_DIMENSIONS,
    SIMULATOR_FINGERPRINT,
    SIMULATOR_MODEL,
    Simulator,
    SimulatorOptions,
)

IN_PROCESS_BASE = "http://simulator.invalid/v1"  # never resolved: the transport answers
EXAMPLES = Path(burr.__file__).resolve().parent / "examples"
MULTI_MODAL_MODES = ("answer_question", "generate_image", "generate_code", "unknown")


class Rig:
    """One simulator and SDK clients on it, in-process or over loopback HTTP."""

    def __init__(self, simulator: Simulator, base_url: str, in_process: bool) -> None:
        self.simulator, self.base_url, self.in_process = simulator, base_url, in_process

    def client(self, base_url: str | None = None) -> openai.OpenAI:
        http_client = (
            httpx.Client(transport=self.simulator.transport()) if self.in_process else None
        )
        return openai.OpenAI(
            base_url=base_url or self.base_url,
            api_key="test",
            max_retries=0,
            timeout=10,
            http_client=http_client,
        )

    def async_client(self) -> openai.AsyncOpenAI:
        http_client = (
            httpx.AsyncClient(transport=self.simulator.transport()) if self.in_process else None
        )
        return openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key="test",
            max_retries=0,
            timeout=10,
            http_client=http_client,
        )


@pytest.fixture(params=["in-process", "loopback"])
def rig(request) -> Iterator[Any]:
    """``rig(**SimulatorOptions)`` builds a :class:`Rig`, once per transport."""
    servers = []

    def build(**options: Any) -> Rig:
        simulator = Simulator(SimulatorOptions(**options))
        if request.param == "in-process":
            return Rig(simulator, IN_PROCESS_BASE, in_process=True)
        cm = simulator.serve()
        url = cm.__enter__()
        servers.append(cm)
        assert url.startswith("http://127.0.0.1:")
        return Rig(simulator, url, in_process=False)

    yield build
    for cm in servers:
        cm.__exit__(None, None, None)


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def chat(client: openai.OpenAI, text: str | list[dict], **kw: Any):
    messages = [user(text)] if isinstance(text, str) else text
    kw.setdefault("model", "gpt-4o-mini")
    return client.chat.completions.create(messages=messages, **kw)


# -- a small JSON-schema checker (the subset the simulator promises) ---------------------


def conforms(value: Any, schema: dict, root: dict | None = None) -> bool:
    root = root or schema
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return conforms(value, target, root)
    if "const" in schema and value != schema["const"]:
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    for key in ("anyOf", "oneOf"):
        if key in schema and not any(conforms(value, b, root) for b in schema[key]):
            return False
    kinds = schema.get("type")
    if kinds is not None:
        kinds = kinds if isinstance(kinds, list) else [kinds]
        checks = {
            "object": lambda v: isinstance(v, dict),
            "array": lambda v: isinstance(v, list),
            "string": lambda v: isinstance(v, str),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
            "boolean": lambda v: isinstance(v, bool),
            "null": lambda v: v is None,
        }
        if not any(checks[k](value) for k in kinds):
            return False
    if isinstance(value, dict):
        props = schema.get("properties", {})
        if any(k not in value for k in schema.get("required", [])):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(props):
            return False
        return all(conforms(value[k], props[k], root) for k in value if k in props)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 10**9):
            return False
        return all(conforms(v, schema.get("items", {}), root) for v in value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return False
        if "maximum" in schema and value > schema["maximum"]:
            return False
    if isinstance(value, str) and len(value) > schema.get("maxLength", 10**9):
        return False
    return True


# -- chat completions: text and determinism ------------------------------------------------


PROMPT = "Group A spent 344.75 on 26 calls and group B 120.5 on 7; which outreach worked?"


def test_chat_is_deterministic_at_zero_and_jitters_above(rig):
    client = rig().client()
    first = chat(client, PROMPT, temperature=0)
    again = chat(client, PROMPT, temperature=0)
    assert first.choices[0].message.content == again.choices[0].message.content
    assert first.id == again.id and first.system_fingerprint == SIMULATOR_FINGERPRINT
    for number in ("344.75", "26", "120.5", "7"):
        assert number in first.choices[0].message.content
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    varied = {chat(client, PROMPT, temperature=0.9).choices[0].message.content for _ in range(6)}
    assert len(varied) > 1


def test_a_chat_answers_the_last_user_turn():
    client = Rig(Simulator(), IN_PROCESS_BASE, True).client()
    history = [
        user("Please draw a picture of a lighthouse"),
        {"role": "assistant", "content": "https://simulator.invalid/images/x.png"},
        user("What is the capital of France?"),
    ]
    content = chat(client, history, temperature=0).choices[0].message.content
    assert "france" in content.lower() and "lighthouse" not in content.lower()


# -- tools ---------------------------------------------------------------------------------

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["location", "unit"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search_web",
        "description": "Search the web for documents",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
}


class Address(BaseModel):
    street: str
    city: str


class CreateTicket(BaseModel):
    """Open a support ticket."""

    title: str
    priority: Literal["low", "medium", "high"]
    estimate_hours: float = Field(ge=0, le=40)
    count: int
    urgent: bool
    tags: list[str]
    address: Address
    note: str | None


def test_tool_call_picks_the_matching_tool_and_fills_required_arguments(rig):
    client = rig().client()
    question = "What's the weather in Paris in fahrenheit?"
    answer = chat(client, question, tools=[SEARCH, WEATHER], temperature=0)
    choice = answer.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.id.startswith("call_")
    assert call.function.name == "get_weather"
    arguments = json.loads(call.function.arguments)
    assert set(arguments) == {"location", "unit"}  # every required one, nothing else
    assert arguments == {"location": "Paris", "unit": "fahrenheit"}
    assert conforms(arguments, WEATHER["function"]["parameters"])
    again = chat(client, question, tools=[SEARCH, WEATHER], temperature=0).choices[0]
    assert again.message.tool_calls[0].model_dump() == call.model_dump()

    found = chat(client, "find documents about burr state machines", tools=[WEATHER, SEARCH])
    search = found.choices[0].message.tool_calls[0].function
    assert search.name == "search_web" and "burr" in json.loads(search.arguments)["query"]


def test_tool_choice_forces_none_and_unknown(rig):
    client = rig().client()
    question = "What's the weather in Paris?"
    forced = chat(
        client,
        question,
        tools=[WEATHER, SEARCH],
        tool_choice={"type": "function", "function": {"name": "search_web"}},
        temperature=0,
    )
    assert forced.choices[0].message.tool_calls[0].function.name == "search_web"
    plain = chat(client, question, tools=[WEATHER], tool_choice="none", temperature=0)
    assert plain.choices[0].finish_reason == "stop" and plain.choices[0].message.content
    assert not plain.choices[0].message.tool_calls
    with pytest.raises(openai.BadRequestError):
        chat(
            client,
            question,
            tools=[WEATHER],
            tool_choice={"type": "function", "function": {"name": "nope"}},
        )


def test_tool_arguments_validate_against_a_nested_schema(rig):
    client = rig().client()
    tool = openai.pydantic_function_tool(CreateTicket)  # the SDK's own strict schema
    for temperature in (0, 1.2):
        answer = chat(
            client,
            "Open a ticket: the printer on 5th Avenue in Boston jams, about 3 hours of work",
            tools=[tool],
            tool_choice="required",
            temperature=temperature,
        )
        call = answer.choices[0].message.tool_calls[0]
        assert call.function.name == "CreateTicket"
        ticket = CreateTicket.model_validate_json(call.function.arguments)
        assert ticket.address.city and ticket.tags and all(isinstance(t, str) for t in ticket.tags)
        assert conforms(json.loads(call.function.arguments), tool["function"]["parameters"])


def test_a_tool_result_is_answered_in_text_quoting_it(rig):
    client = rig().client()
    messages = [user("What's the weather in Paris?")]
    first = chat(client, messages, tools=[WEATHER], temperature=0).choices[0].message
    call = first.tool_calls[0]
    messages += [
        first.model_dump(exclude_none=True),
        {
            "role": "tool",
            "tool_call_id": call.id,
            "content": json.dumps({"temperature": 17.25, "conditions": "light rain"}),
        },
    ]
    final = chat(client, messages, tools=[WEATHER], temperature=0).choices[0]
    assert final.finish_reason == "stop" and not final.message.tool_calls
    text = final.message.content
    assert "get_weather" in text and "17.25" in text and "light rain" in text
    plain = messages[:-1] + [{"role": "tool", "tool_call_id": call.id, "content": "Sunny, 31 C"}]
    assert "Sunny, 31 C" in chat(client, plain, tools=[WEATHER]).choices[0].message.content


# -- structured output -----------------------------------------------------------------------


class Step(BaseModel):
    title: str
    minutes: int


class Plan(BaseModel):
    name: str
    mood: Literal["happy", "sad", "neutral"]
    steps: list[Step]
    confidence: float
    urgent: bool
    note: str | None


def test_json_schema_answers_validate_through_the_sdk_parser(rig):
    client = rig().client()
    request = {
        "model": "gpt-4o-mini",
        "messages": [user("Plan a happy 45 minute workout for Alice in Boston")],
        "response_format": Plan,
        "temperature": 0,
    }
    parsed = client.chat.completions.parse(**request).choices[0].message.parsed
    assert isinstance(parsed, Plan) and parsed.mood == "happy" and parsed.steps
    assert 0 <= parsed.confidence <= 1
    assert client.chat.completions.parse(**request).choices[0].message.parsed == parsed
    assert "45" in json.dumps(parsed.model_dump())  # the prompt's number is quoted


HAND_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["approve", "reject", "escalate"]},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
        "reasons": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 3},
        "owner": {"$ref": "#/$defs/person"},
        "reviewers": {"type": "array", "items": {"$ref": "#/$defs/person"}},
        "deadline": {"type": ["string", "null"], "format": "date"},
        "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "kind": {"const": "review"},
        "code": {"type": "string", "maxLength": 5},
    },
    "required": ["verdict", "score", "reasons", "owner", "kind"],
    "additionalProperties": False,
    "$defs": {
        "person": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
            "required": ["name", "email"],
            "additionalProperties": False,
        }
    },
}


def test_a_hand_written_json_schema_with_refs_and_bounds(rig):
    client = rig().client()
    rf = {"type": "json_schema", "json_schema": {"name": "review", "schema": HAND_SCHEMA}}
    for temperature in (0, 0.8):
        content = (
            chat(
                client,
                "Review the budget of 9 items filed by Grace Hopper on 2025-03-04; escalate if unsure",
                response_format=rf,
                temperature=temperature,
            )
            .choices[0]
            .message.content
        )
        value = json.loads(content)
        assert conforms(value, HAND_SCHEMA), value
        assert set(value) == set(HAND_SCHEMA["properties"])  # every property, not just required
        assert value["verdict"] == "escalate" and value["kind"] == "review"
        assert value["owner"]["name"] == "Grace Hopper"
        assert value["deadline"] == "2025-03-04"


def test_json_object_keeps_the_json_keys_behaviour(rig):
    client = rig().client()
    messages = [
        {"role": "system", "content": "JSON keys: summary, risks, confidence"},
        user(PROMPT),
    ]
    content = (
        chat(client, messages, response_format={"type": "json_object"}, temperature=0)
        .choices[0]
        .message.content
    )
    assert list(json.loads(content)) == ["summary", "risks", "confidence"]


def test_reject_response_format_covers_json_schema(rig):
    client = rig(reject_response_format=True).client()
    rf = {"type": "json_schema", "json_schema": {"name": "x", "schema": HAND_SCHEMA}}
    with pytest.raises(openai.BadRequestError, match="response_format"):
        chat(client, PROMPT, response_format=rf)


# -- one word out of a listed set ------------------------------------------------------------


def multi_modal_prompt(prompt: str) -> list[dict]:
    """The exact prompt of burr/examples/multi-modal-chatbot/application.py choose_mode."""
    text = (
        f"You are a chatbot. You've been prompted this: {prompt}. "
        f"You have the capability of responding in the following modes: {', '.join(MULTI_MODAL_MODES)}. "
        "Please respond with *only* a single word representing the mode that most accurately "
        "corresponds to the prompt. Fr instance, if the prompt is 'draw a picture of a cat', "
        "the mode would be 'generate_image'. If the prompt is 'what is the capital of France', the mode would be 'answer_question'."
        "If none of these modes apply, please respond with 'unknown'."
    )
    return [{"role": "system", "content": "You are a helpful assistant"}, user(text)]


@pytest.mark.parametrize(
    ("prompt", "mode"),
    [
        ("write code to sort a list", "generate_code"),
        ("write a python function that reverses a string", "generate_code"),
        ("draw a cat", "generate_image"),
        ("make me a picture of a sunset over the sea", "generate_image"),
        ("Who was Aaron Burr, sir?", "answer_question"),
        ("what is the capital of Peru", "answer_question"),
        ("zzz", "unknown"),
    ],
)
def test_one_word_mode_choice(prompt, mode):
    client = Rig(Simulator(), IN_PROCESS_BASE, True).client()
    for temperature in (0, 1.0, None):  # None: the SDK's default, as the example sends
        kw = {} if temperature is None else {"temperature": temperature}
        answer = chat(client, multi_modal_prompt(prompt), model="gpt-4o", **kw)
        assert answer.choices[0].message.content == mode


def test_one_word_choice_is_generic_deterministic_and_varies_only_above_zero(rig):
    client = rig().client()
    review = [
        {
            "role": "system",
            "content": "Classify the sentiment of the review as one of: positive, negative, neutral. "
            "Respond with the label only.",
        }
    ]
    assert chat(client, review + [user("I love it, excellent blender")]).choices[
        0
    ].message.content == ("positive")
    assert (
        chat(client, review + [user("It broke after a week, terrible")]).choices[0].message.content
        == "negative"
    )
    tie = "Answer with exactly one of [alpha, beta, gamma] for this text: hello there"
    at_zero = {chat(client, tie, temperature=0).choices[0].message.content for _ in range(4)}
    assert len(at_zero) == 1 and at_zero <= {"alpha", "beta", "gamma"}
    above = {chat(client, tie, temperature=1.0).choices[0].message.content for _ in range(24)}
    assert len(above) > 1 and above <= {"alpha", "beta", "gamma"}
    yes_no = chat(client, "Is the sky green? Answer only yes or no.", temperature=0)
    assert yes_no.choices[0].message.content in ("yes", "no")


# -- streaming -------------------------------------------------------------------------------


def test_streaming_reassembles_the_plain_answer(rig):
    client = rig().client()
    plain = chat(client, PROMPT, temperature=0)
    stream = chat(
        client, PROMPT, temperature=0, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" and c.id == plain.id for c in chunks)
    pieces = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    assert len(pieces) > 3 and "".join(pieces) == plain.choices[0].message.content
    finals = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    assert finals == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage == plain.usage
    # Without include_usage there is no usage chunk.
    bare = list(chat(client, PROMPT, temperature=0, stream=True))
    assert all(c.choices for c in bare) and bare[-1].choices[0].finish_reason == "stop"


def test_streaming_a_tool_call(rig):
    client = rig().client()
    question = "What's the weather in Paris in celsius?"
    plain = chat(client, question, tools=[WEATHER], temperature=0).choices[0].message.tool_calls[0]
    name, arguments, finish = None, "", None
    for chunk in chat(client, question, tools=[WEATHER], temperature=0, stream=True):
        delta = chunk.choices[0].delta
        for call in delta.tool_calls or []:
            name = call.function.name or name
            arguments += call.function.arguments or ""
        finish = chunk.choices[0].finish_reason or finish
    assert (name, arguments, finish) == (
        plain.function.name,
        plain.function.arguments,
        "tool_calls",
    )


def test_async_client_streams_like_the_sync_one(rig):
    r = rig()
    expected = chat(r.client(), PROMPT, temperature=0).choices[0].message.content

    async def run() -> tuple[str, str]:
        client = r.async_client()
        whole = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[user(PROMPT)], temperature=0
        )
        stream = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[user(PROMPT)], temperature=0, stream=True
        )
        parts = [c.choices[0].delta.content or "" async for c in stream]
        await client.close()
        return whole.choices[0].message.content, "".join(parts)

    whole, streamed = asyncio.run(run())
    assert whole == streamed == expected


def test_served_stream_is_an_event_stream():
    simulator = Simulator()
    with simulator.serve() as url:
        body = {"model": "m", "messages": [user(PROMPT)], "temperature": 0, "stream": True}
        with httpx.stream("POST", url + "/chat/completions", json=body) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            lines = [line for line in response.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    assert json.loads(lines[0][6:])["choices"][0]["delta"]["role"] == "assistant"
    assert simulator.requests == [body]  # a streamed call is recorded like any other


def test_the_same_request_answers_the_same_in_process_and_served():
    sim = Simulator()
    in_process = Rig(sim, IN_PROCESS_BASE, True).client()
    with sim.serve() as url:
        served = Rig(sim, url, False).client()
        for kw in ({}, {"tools": [WEATHER]}, {"stream": True}):
            answers = []
            for client in (in_process, served):
                got = chat(client, PROMPT, temperature=0, **kw)
                answers.append(
                    "".join(c.choices[0].delta.content or "" for c in got)
                    if kw.get("stream")
                    else got.choices[0].message.model_dump_json()
                )
            assert answers[0] == answers[1]


def test_faults_apply_to_streams_and_new_endpoints(rig):
    failing = rig(status=500).client()
    with pytest.raises(openai.InternalServerError):
        list(chat(failing, PROMPT, stream=True))
    with pytest.raises(openai.InternalServerError):
        failing.embeddings.create(model="e", input="x")
    with pytest.raises(openai.RateLimitError):
        rig(status=429).client().images.generate(prompt="a cat")
    garbled = "".join(
        c.choices[0].delta.content or ""
        for c in chat(rig(garbage=True).client(), PROMPT, stream=True)
    )
    assert garbled.startswith("<<garbled output>>")
    assert (
        "".join(
            c.choices[0].delta.content or ""
            for c in chat(rig(empty=True).client(), PROMPT, stream=True)
        )
        == ""
    )
    other = rig(substitute_model="other-7b").client()
    assert all(c.model == "other-7b" for c in chat(other, PROMPT, stream=True))
    assert other.embeddings.create(model="e", input="x").model == "other-7b"
    assert other.responses.create(model="gpt-4o", input="hi").model == "other-7b"


# -- embeddings, images, responses, legacy completions -------------------------------------


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (
        math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    )


def test_embeddings(rig):
    r = rig()
    client = r.client()
    texts = ["the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew 12%"]
    answer = client.embeddings.create(model="text-embedding-3-small", input=texts)
    vectors = [d.embedding for d in answer.data]
    assert [d.index for d in answer.data] == [0, 1, 2]
    assert all(len(v) == SIMULATOR_EMBEDDING_DIMENSIONS for v in vectors)
    assert abs(math.sqrt(sum(x * x for x in vectors[0])) - 1) < 1e-5
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])
    assert answer.usage.prompt_tokens == answer.usage.total_tokens > 0
    # The SDK asks for base64 by default; floats give the very same values.
    floats = client.embeddings.create(model="m", input=texts, encoding_format="float")
    assert [d.embedding for d in floats.data] == vectors
    single = client.embeddings.create(model="m", input=texts[0], dimensions=16)
    assert len(single.data) == 1 and len(single.data[0].embedding) == 16
    assert client.embeddings.create(model="m", input=texts[0], dimensions=16) == single
    endpoints = [name for name, _ in r.simulator.calls]
    assert endpoints == ["embeddings"] * 4 and r.simulator.requests == []


def test_images_are_placeholders(rig):
    client = rig().client()
    urls = client.images.generate(
        model="dall-e-2", prompt="a red lighthouse", n=2, size="1024x1024"
    )
    assert len(urls.data) == 2 and urls.data[0].url != urls.data[1].url
    for item in urls.data:
        assert item.url.startswith("https://simulator.invalid/images/") and item.url.endswith(
            ".png"
        )
        assert "placeholder" in item.revised_prompt and "a red lighthouse" in item.revised_prompt
    again = client.images.generate(
        model="dall-e-2", prompt="a red lighthouse", n=2, size="1024x1024"
    )
    assert [d.url for d in again.data] == [d.url for d in urls.data]
    b64 = client.images.generate(prompt="a red lighthouse", response_format="b64_json")
    png = base64.b64decode(b64.data[0].b64_json)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and b"IEND" in png


class Verdict(BaseModel):
    label: Literal["spam", "ham"]
    reason: str


def test_responses_api(rig):
    client = rig().client()
    first = client.responses.create(
        model="gpt-4o", input="Summarise why costs rose 12% in March", temperature=0
    )
    assert first.object == "response" and first.status == "completed"
    assert "12" in first.output_text and first.usage.total_tokens > 0
    again = client.responses.create(
        model="gpt-4o", input="Summarise why costs rose 12% in March", temperature=0
    )
    assert again.output_text == first.output_text
    listed = client.responses.create(
        model="gpt-4o",
        instructions="Be brief.",
        input=[
            {"role": "user", "content": [{"type": "input_text", "text": "Compare 3 and 4 pears"}]}
        ],
    )
    assert "3" in listed.output_text and "4" in listed.output_text

    streamed = client.responses.create(
        model="gpt-4o", input="Summarise why costs rose 12% in March", temperature=0, stream=True
    )
    deltas = [e.delta for e in streamed if e.type == "response.output_text.delta"]
    assert len(deltas) > 3 and "".join(deltas) == first.output_text

    parsed = client.responses.parse(
        model="gpt-4o", input="Is 'WIN A FREE PRIZE' spam?", text_format=Verdict, temperature=0
    )
    assert isinstance(parsed.output_parsed, Verdict)


def test_responses_api_function_calls(rig):
    client = rig().client()
    tool = {
        "type": "function",
        "name": "get_weather",
        **{k: v for k, v in WEATHER["function"].items() if k != "name"},
    }
    first = client.responses.create(
        model="gpt-4o", input="What's the weather in Rome?", tools=[tool]
    )
    (call,) = first.output
    assert call.type == "function_call" and call.name == "get_weather"
    assert json.loads(call.arguments)["location"] == "Rome"
    final = client.responses.create(
        model="gpt-4o",
        tools=[tool],
        input=[
            {"role": "user", "content": "What's the weather in Rome?"},
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            },
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": "Rome: 24 C, clear",
            },
        ],
    )
    assert "Rome: 24 C, clear" in final.output_text


def test_legacy_completions(rig):
    client = rig().client()
    first = client.completions.create(
        model="gpt-3.5-turbo-instruct", prompt="Tell me about 42 owls", temperature=0
    )
    assert first.object == "text_completion" and "42" in first.choices[0].text
    again = client.completions.create(
        model="gpt-3.5-turbo-instruct", prompt="Tell me about 42 owls", temperature=0
    )
    assert again.choices[0].text == first.choices[0].text


# -- paths ---------------------------------------------------------------------------------


def test_base_url_shapes_and_unknown_paths(rig):
    r = rig()
    root = r.base_url.removesuffix("/v1")
    for base in (root, root + "/v1", root + "/openai/v1"):
        client = r.client(base)
        assert chat(client, "hello", temperature=0).choices[0].message.content
        assert client.embeddings.create(model="m", input="hello").data
        assert client.models.list().data[0].id == SIMULATOR_MODEL
    with pytest.raises(openai.NotFoundError) as caught:
        r.client().post("/nope", cast_to=httpx.Response, body={})
    error = caught.value.body
    assert error["type"] == "invalid_request_error" and error["code"] == "unknown_url"
    assert "/nope" in error["message"] and error["param"] is None


def test_raw_http_errors_on_the_served_simulator():
    with Simulator().serve() as url:
        missing = httpx.post(url + "/audio/speech", json={})
        assert missing.status_code == 404 and set(missing.json()["error"]) == {
            "message",
            "type",
            "param",
            "code",
        }
        assert httpx.get(url + "/embeddings").status_code == 405
        assert httpx.post(url + "/embeddings", json={"input": []}).status_code == 400
        assert httpx.post(url + "/images/generations", json={}).status_code == 400
        assert httpx.post(url + "/responses", json={"input": []}).status_code == 400


# -- Burr's shipped examples, unchanged, against the served simulator -----------------------


def load_example(name: str):
    path = EXAMPLES / name / "application.py"
    spec = importlib.util.spec_from_file_location(f"burr_example_{uuid.uuid4().hex}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def served_openai(monkeypatch, tmp_path) -> Iterator[Simulator]:
    """The simulator on loopback, with the ``openai`` SDK's environment pointed at it."""
    monkeypatch.setenv("HOME", str(tmp_path))  # Burr's local tracker writes under ~/.burr
    monkeypatch.setenv("OPENAI_API_KEY", "simulated")
    simulator = Simulator()
    with simulator.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield simulator


def test_burr_multi_modal_chatbot_routes_each_request(served_openai, tmp_path):
    example = load_example("multi-modal-chatbot")
    app = example.application(storage_dir=str(tmp_path / "burr"))
    expected = [
        ("Please draw a picture of a lighthouse", "generate_image"),
        ("Write code to sort a list of 5 numbers", "generate_code"),
        ("Who was Aaron Burr, sir?", "answer_question"),
        ("zzz", "unknown"),
    ]
    for prompt, mode in expected:
        _, _, state = app.run(halt_after=["response"], inputs={"prompt": prompt})
        assert state["mode"] == mode
        content = state["response"]["content"]
        if mode == "generate_image":
            assert content.startswith("https://simulator.invalid/images/")
        elif mode == "generate_code":
            assert content.startswith("def ") and "sorted(values)" in content
            compile(content, "<simulated>", "exec")  # "only code": it must be code
        elif mode == "answer_question":
            assert "burr" in content.lower() and "lighthouse" not in content.lower()
    paths = [name for name, _ in served_openai.calls]
    assert paths.count("images") == 1 and paths.count("chat") == 6


def test_burr_streaming_fastapi_example_streams_async(served_openai):
    example = load_example("streaming-fastapi")

    async def run() -> list[tuple[str, str, int]]:
        app = example.application()
        seen = []
        for prompt in (
            "write a poem about Alexander Hamilton and Aaron Burr",
            "What is the capital of France?",
            "write code to reverse a string",
        ):
            action, streaming = await app.astream_result(
                halt_after=example.TERMINAL_ACTIONS, inputs={"prompt": prompt}
            )
            deltas = [item["delta"] async for item in streaming]
            _, state = await streaming.get()
            assert "".join(deltas) == state["response"]["content"]
            seen.append((action.name, state["response"]["content"], len(deltas)))
        return seen

    (poem, poem_text, poem_n), (question, answer, answer_n), (code, source, _) = asyncio.run(run())
    assert (poem, question, code) == ("generate_poem", "answer_question", "generate_code")
    assert "hamilton" in poem_text.lower() and len(poem_text.splitlines()) >= 4 and poem_n > 3
    assert "france" in answer.lower() and "poem" not in answer.lower() and answer_n > 3
    assert "values[::-1]" in source


def test_burr_email_assistant_gets_questions_and_a_draft(served_openai):
    example = load_example("email-assistant")
    app = example.application(project="simulated_email")
    email = (
        "Hi, can we move our Tuesday meeting about the Q3 budget to 3pm? "
        "The forecast shows 12% growth. Thanks, Dana"
    )
    _, _, state = app.run(
        halt_before=["clarify_instructions"],
        halt_after=["formulate_draft"],
        inputs={"email_to_respond": email, "response_instructions": "Accept politely"},
    )
    questions = state["clarification_questions"]
    # The app splits the answer on newlines: 1 to 3 questions, no blank or prose lines.
    assert 1 <= len(questions) <= 3
    assert all(q.strip() and q.endswith("?") for q in questions)
    assert not any(" 2, 1" in q for q in questions)  # the instruction's own numbers stay out
    action, _, state = app.run(
        halt_after=["formulate_draft"], inputs={"clarification_inputs": ["yes"] * len(questions)}
    )
    draft = state["current_draft"]
    assert action.name == "formulate_draft"
    assert draft.startswith("Hi,") and "12" in draft and draft.rstrip().endswith("Best regards")
