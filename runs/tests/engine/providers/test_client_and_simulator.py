"""The provider client and the offline simulator (no database, no network but loopback)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from runs.engine.providers import (
    PRESETS,
    SIMULATOR_BASE_URL,
    SIMULATOR_MODEL,
    ChatClient,
    ChatRequest,
    ProviderError,
    Simulator,
    SimulatorOptions,
    TransportError,
    redact,
)

SYSTEM_JSON = {
    "role": "system",
    "content": "You are a careful analyst.\nJSON keys: summary, key_points, confidence, risks",
}
PROMPT = (
    "Group A cost per outcome is 26.4682 and group B spent 344.75 in total; "
    "the response rate was 0.31 after the outreach policy change."
)


def user(text: str = PROMPT) -> dict:
    return {"role": "user", "content": text}


def json_request(text: str = PROMPT, temperature: float = 0.0, **kw) -> ChatRequest:
    return ChatRequest(SIMULATOR_MODEL, (SYSTEM_JSON, user(text)), temperature, **kw)


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    return []


@pytest.fixture(params=["in-process", "loopback"])
def make_client(request):
    """Build a client on a simulator, once in-process (MockTransport), once over HTTP."""
    servers = []

    def build(options: SimulatorOptions | None = None, api_key: str | None = None):
        sim = Simulator(options)
        if request.param == "in-process":
            return sim, ChatClient(SIMULATOR_BASE_URL, api_key, transport=sim.transport())
        cm = sim.serve()
        url = cm.__enter__()
        servers.append(cm)
        return sim, ChatClient(url, api_key, timeout=5)

    yield build
    for cm in servers:
        cm.__exit__(None, None, None)


def mock_client(handler, api_key: str | None = None) -> ChatClient:
    return ChatClient("http://provider.test/v1", api_key, transport=httpx.MockTransport(handler))


# -- request payload ---------------------------------------------------------------


def test_payload_omits_none_and_lists_messages():
    req = ChatRequest("m", ({"role": "user", "content": "hi"},), 0.0, stop=("x",), seed=3)
    assert req.payload() == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.0,
        "seed": 3,
        "stop": ["x"],
    }
    assert PRESETS["ollama"] == "http://127.0.0.1:11434/v1"


def test_request_shape_and_auth_header():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    mock_client(handler, api_key="sk-test-key").complete(ChatRequest("m", [user("x")], 0))
    mock_client(handler).complete(ChatRequest("m", [user("x")], 0))
    assert str(seen[0].url) == "http://provider.test/v1/chat/completions"
    assert seen[0].method == "POST"
    assert seen[0].headers["authorization"] == "Bearer sk-test-key"
    assert "authorization" not in seen[1].headers


# -- simulator answers -------------------------------------------------------------


def test_deterministic_at_temperature_zero(make_client):
    _, client = make_client()
    first = client.complete(json_request())
    second = client.complete(json_request())
    assert first.content == second.content
    assert first.model == SIMULATOR_MODEL
    assert first.prompt_tokens >= 1 and first.completion_tokens >= 1
    assert first.total_tokens == first.prompt_tokens + first.completion_tokens
    prose = ChatRequest(SIMULATOR_MODEL, [user()], 0.0)
    assert client.complete(prose).content == client.complete(prose).content


def test_jitter_above_temperature_zero(make_client):
    _, client = make_client()
    contents = {client.complete(json_request(temperature=0.9)).content for _ in range(5)}
    assert len(contents) > 1


def test_json_keys_are_honoured(make_client):
    _, client = make_client()
    body = json.loads(client.complete(json_request()).content)
    assert list(body) == ["summary", "key_points", "confidence", "risks"]
    assert isinstance(body["summary"], str) and body["summary"]
    for key in ("key_points", "risks"):
        assert isinstance(body[key], list) and 2 <= len(body[key]) <= 4
        assert all(isinstance(s, str) and s for s in body[key])
    assert isinstance(body["confidence"], float) and 0 <= body["confidence"] <= 1
    assert round(body["confidence"], 2) == body["confidence"]


def test_key_kinds():
    system = {"role": "system", "content": "json keys: status, analysis, score, item_list"}
    status, body = Simulator().respond(
        {"model": "m", "messages": [system, user()], "temperature": 0}
    )
    assert status == 200
    answer = json.loads(body["choices"][0]["message"]["content"])
    assert isinstance(answer["status"], str) and isinstance(answer["analysis"], str)
    assert isinstance(answer["score"], float) and isinstance(answer["item_list"], list)


def test_prose_without_json_keys():
    status, body = Simulator().respond({"model": "m", "messages": [user()], "temperature": 0})
    content = body["choices"][0]["message"]["content"]
    assert status == 200 and not content.startswith("{")
    for number in ("26.4682", "344.75", "0.31"):
        assert number in content


def test_numbers_are_quoted_and_a_changed_number_changes_the_answer(make_client):
    _, client = make_client()
    original = client.complete(json_request()).content
    joined = " ".join(strings_in(json.loads(original)))
    for number in ("26.4682", "344.75", "0.31"):
        assert number in joined
    changed = client.complete(json_request(PROMPT.replace("26.4682", "27.1093"))).content
    assert "27.1093" in changed and "26.4682" not in changed
    assert changed != original


def test_many_numbers_all_quoted():
    numbers = [f"{i}.{i * 7 % 10}5" for i in range(1, 14)]
    prompt = "Figures: " + "; ".join(numbers)
    status, body = Simulator().respond(
        {"model": "m", "messages": [SYSTEM_JSON, user(prompt)], "temperature": 0}
    )
    joined = " ".join(strings_in(json.loads(body["choices"][0]["message"]["content"])))
    assert all(n in joined for n in numbers)


def test_wire_format_and_usage():
    req = {"model": "x-model", "messages": [user("abcd" * 10)], "temperature": 0}
    status, body = Simulator().respond(req)
    assert status == 200
    assert body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    assert body["model"] == "x-model"
    content = body["choices"][0]["message"]["content"]
    assert body["usage"]["prompt_tokens"] == 10
    assert body["usage"]["completion_tokens"] == -(-len(content) // 4)


# -- the one allowed retry ---------------------------------------------------------


def test_response_format_400_is_retried_once_without_it(make_client):
    sim, client = make_client(SimulatorOptions(reject_response_format=True))
    response = client.complete(json_request(response_format={"type": "json_object"}))
    assert len(sim.requests) == 2
    assert sim.requests[0]["response_format"] == {"type": "json_object"}
    assert "response_format" not in sim.requests[1]
    assert response.dropped_response_format is True
    assert set(json.loads(response.content)) == {"summary", "key_points", "confidence", "risks"}


def test_no_retry_without_response_format_in_request(make_client):
    sim, client = make_client(SimulatorOptions(reject_response_format=True))
    response = client.complete(json_request())
    assert len(sim.requests) == 1 and response.dropped_response_format is False


def test_other_400_is_not_retried(make_client):
    sim, client = make_client(SimulatorOptions(status=400))
    with pytest.raises(ProviderError) as info:
        client.complete(json_request(response_format={"type": "json_object"}))
    assert len(sim.requests) == 1
    assert info.value.status_code == 400


def test_failed_retry_raises_and_is_not_repeated():
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(json.loads(request.content))
        return httpx.Response(400, json={"error": {"message": "bad response_format field"}})

    with pytest.raises(ProviderError) as info:
        mock_client(handler).complete(json_request(response_format={"type": "json_object"}))
    assert len(calls) == 2 and info.value.status_code == 400


# -- what the provider answered ----------------------------------------------------


def test_substituted_model_is_reported(make_client):
    _, client = make_client(SimulatorOptions(substitute_model="other-model-7b"))
    assert client.complete(json_request()).model == "other-model-7b"


@pytest.mark.parametrize(
    ("options", "check"),
    [
        (SimulatorOptions(garbage=True), lambda c: c.startswith("<<garbled output>>")),
        (SimulatorOptions(empty=True), lambda c: c == ""),
    ],
)
def test_garbage_and_empty_are_returned_as_is(make_client, options, check):
    _, client = make_client(options)
    content = client.complete(json_request()).content
    assert check(content)
    with pytest.raises(ValueError):
        json.loads(content)


def test_http_500_is_a_provider_error(make_client):
    _, client = make_client(SimulatorOptions(status=500))
    with pytest.raises(ProviderError) as info:
        client.complete(json_request())
    assert not isinstance(info.value, TransportError)
    assert info.value.status_code == 500
    assert "simulated provider failure" in str(info.value)
    assert "\n" not in str(info.value)


def test_429_message(make_client):
    _, client = make_client(SimulatorOptions(status=429))
    with pytest.raises(ProviderError, match="rate limit") as info:
        client.complete(json_request())
    assert info.value.status_code == 429


# -- transport failures ------------------------------------------------------------


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_is_a_quick_transport_error():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = ChatClient(url, "sk-secret-key-123")
    started = time.monotonic()
    with pytest.raises(TransportError) as info:
        client.complete(json_request())
    assert time.monotonic() - started < 2
    assert str(info.value) == f"cannot reach {url}: connection refused"
    assert info.value.status_code is None


def test_timeout_is_a_transport_error():
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(TransportError, match="read timed out"):
        mock_client(handler).complete(json_request())


def test_server_gone_after_serve_exits():
    with Simulator().serve() as url:
        assert ChatClient(url).complete(json_request()).content
    with pytest.raises(TransportError):
        ChatClient(url, timeout=2).complete(json_request())


# -- errors and redaction ----------------------------------------------------------


def test_echoed_api_key_is_redacted():
    key = "sk-live-abcdef123456"

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == f"Bearer {key}"
        return httpx.Response(
            401, json={"error": {"message": f"Incorrect API key provided: {key}."}}
        )

    with pytest.raises(ProviderError) as info:
        mock_client(handler, api_key=key).complete(json_request())
    assert key not in str(info.value) and key not in repr(info.value)
    assert "[redacted]" in str(info.value) and info.value.status_code == 401


def test_redact():
    assert redact("key sk-1234 here", "sk-1234") == "key [redacted] here"
    assert redact("abc", "ab") == "abc"
    assert redact("abc", None) == "abc"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (httpx.Response(503, json={"error": "model is loading"}), "model is loading"),
        (httpx.Response(502, text="Bad gateway " + "x" * 2000), "Bad gateway"),
        (httpx.Response(404, json={"detail": "no such route"}), "no such route"),
    ],
)
def test_error_messages_are_extracted_tolerantly(response, expected):
    with pytest.raises(ProviderError) as info:
        mock_client(lambda request: response).complete(json_request())
    assert expected in str(info.value)
    assert len(str(info.value)) < 600
    assert info.value.status_code == response.status_code


def test_non_json_body_is_a_provider_error_with_raw():
    key = "sk-echo-987654"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=f"<html>oops {key}</html>")

    with pytest.raises(ProviderError, match="body that is not JSON") as info:
        mock_client(handler, api_key=key).complete(json_request())
    assert info.value.raw == "<html>oops [redacted]</html>"


# -- tolerant parsing --------------------------------------------------------------


def test_tolerant_parsing_of_odd_bodies():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            json={
                "metadata": {"region": "eu", "nested": {"a": 1}},
                "choices": [{"message": {"role": "assistant", "content": "hello"}, "x": 1}],
                "extra": [1, 2, 3],
            },
        )

    response = mock_client(handler).complete(ChatRequest("asked-model", [user("x")], 0))
    assert response.content == "hello"
    assert response.model == "asked-model"
    assert (response.prompt_tokens, response.completion_tokens, response.total_tokens) == (0, 0, 0)


def test_tolerant_parsing_partial_usage_and_null_content():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            json={
                "model": "served",
                "choices": [{"message": {"content": None}}],
                "usage": {"prompt_tokens": 7, "completion_tokens": 5},
            },
        )

    response = mock_client(handler).complete(ChatRequest("asked", [user("x")], 0))
    assert response.content == "" and response.model == "served"
    assert response.total_tokens == 12


def test_missing_choices_gives_empty_content():
    response = mock_client(lambda r: httpx.Response(200, json={})).complete(json_request())
    assert response.content == ""


# -- simulator HTTP surface --------------------------------------------------------


def test_simulator_http_errors():
    with Simulator().serve() as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        missing = httpx.post(url + "/nope", json={})
        assert missing.status_code == 404 and "error" in missing.json()
        bad = httpx.post(
            url + "/chat/completions",
            content=b"{not json",
            headers={"Content-Type": "application/json"},
        )
        assert bad.status_code == 400 and "error" in bad.json()
        models = httpx.get(url + "/models")
        assert models.json()["data"][0]["id"] == SIMULATOR_MODEL


def test_simulator_base_url_without_transport_uses_the_embedded_simulator():
    response = ChatClient(SIMULATOR_BASE_URL).complete(json_request())
    assert response.model == SIMULATOR_MODEL and response.content.startswith("{")


def test_simulator_command_line():
    root = Path(__file__).resolve().parents[4]
    with subprocess.Popen(
        [sys.executable, "-m", "runs.engine.providers.simulator", "--port", "0"]
        + ["--substitute-model", "cli-model"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        try:
            url = proc.stdout.readline().strip()
            assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", url), url
            assert ChatClient(url, timeout=5).complete(json_request()).model == "cli-model"
        finally:
            proc.terminate()
            proc.wait(timeout=5)


def test_the_simulator_answers_after_the_latency_asked():
    simulator = Simulator(SimulatorOptions(latency_s=0.3))
    client = ChatClient("http://simulator.invalid/v1", transport=simulator.transport(), timeout=5)
    started = time.monotonic()
    assert client.complete(json_request()).model == SIMULATOR_MODEL
    assert time.monotonic() - started >= 0.3  # a lower bound: a sleep is never shorter


def test_the_simulator_command_line_refuses_a_bad_latency():
    from runs.engine.providers.simulator.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--latency", "-1"])
    assert exit_.value.code == 2
