"""The :class:`Simulator`: its endpoints, routing, in-process transport and loopback
server; its options and the constants that name it."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote

import httpx

from .anthropic import _anthropic_error, _AnthropicAPI
from .gemini import _gemini_error, _GeminiAPI
from .judging import judge_answer, judge_question
from .media import _embedding, _tiny_png
from .ollama import _ollama_error, _OllamaAPI
from .prose import _last_user, _message_text, _salient_words
from .protocol import _canonical, _error, _json_schema_of, _seed_body, _tokens
from .responses import _ResponsesAPI
from .schemas import _schema_answer
from .shapes import compose_text
from .streaming import _chat_chunks, _ndjson, _Reply, _sse
from .tools import _tool_call, _tool_plan, _tool_result_answer, _ToolCall

SIMULATOR_MODEL = "rewind-sim-1"
SIMULATOR_BASE_URL = "simulator://local"
# Every answer says it is the simulator's: a captured call records what answered it, so a
# simulator's answer is labelled as one wherever it shows (runs.engine.calls.capture.core).
SIMULATOR_HEADER = "X-Rewind-Simulator"
SIMULATOR_FINGERPRINT = "rewind-simulator"
SIMULATOR_EMBEDDING_DIMENSIONS = 64
SIMULATOR_IMAGE_HOST = "https://simulator.invalid/images"


@dataclass
class SimulatorOptions:
    """Misbehaviours to switch on, so tests can drive every failure path of the engine."""

    reject_response_format: bool = False
    substitute_model: str | None = None
    garbage: bool = False
    empty: bool = False
    status: int | None = None
    latency_s: float = 0.0  # each POST answered this long after it arrived, as a provider's


# -- the simulator -------------------------------------------------------------------

# Suffix order matters: ``/api/chat`` and ``/v1/messages`` before ``/chat/completions`` and
# ``/completions``; a Gemini ``/models/{model}:method`` before the ``/models/{id}`` GET.
_ENDPOINTS = (
    ("/api/chat", "api/chat"),
    ("/api/generate", "api/generate"),
    ("/v1/messages/count_tokens", "count_tokens"),
    ("/v1/messages", "messages"),
    ("/chat/completions", "chat"),
    ("/completions", "completions"),
    ("/embeddings", "embeddings"),
    ("/images/generations", "images"),
    ("/responses", "responses"),
    ("/models", "models"),
)
_GEMINI_RE = re.compile(
    r"/models/([^/]+?)(?::|%3[aA])(generateContent|streamGenerateContent|countTokens)$"
)
_ERROR_SHAPES = {
    "api/chat": _ollama_error,
    "api/generate": _ollama_error,
    "count_tokens": _anthropic_error,
    "messages": _anthropic_error,
    "generateContent": _gemini_error,
    "streamGenerateContent": _gemini_error,
    "countTokens": _gemini_error,
}


class Simulator(_ResponsesAPI, _AnthropicAPI, _GeminiAPI, _OllamaAPI):
    """An OpenAI-compatible endpoint that needs no key and no network; it also speaks
    Anthropic's Messages, Gemini's generateContent and Ollama's native API.

    ``requests`` records every body that reached ``/chat/completions`` (in order), so
    tests can count calls, e.g. to check the one allowed ``response_format`` retry;
    ``calls`` records ``(endpoint, body)`` for every POST whose body parsed, in order,
    the other formats included (they answer through the chat core but are not chat
    requests): ``messages``, ``count_tokens``, ``generateContent``,
    ``streamGenerateContent``, ``countTokens`` (the model is in the path, not the body),
    ``api/chat``, ``api/generate``.
    """

    def __init__(self, options: SimulatorOptions | None = None) -> None:
        self.options = options or SimulatorOptions()
        self.requests: list[dict] = []
        self.calls: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    # The pure core -------------------------------------------------------------------

    def _fault(self) -> tuple[int, dict] | None:
        status = self.options.status
        if status is None:
            return None
        if status == 429:
            return _error(429, "rate limit exceeded (simulated)", "rate_limit_error")
        return _error(status, f"simulated provider failure (HTTP {status})", "server_error")

    def _model(self, body: dict) -> str:
        model = body.get("model") if isinstance(body.get("model"), str) else None
        return self.options.substitute_model or model or SIMULATOR_MODEL

    def respond(self, body: dict) -> tuple[int, dict]:
        """Answer one chat-completions request body with ``(status, response JSON)``
        (the non-streamed shape, also for ``stream: true``: :meth:`dispatch` streams it)."""
        opts = self.options
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return _error(400, "'messages' must be a non-empty list")
        fault = self._fault()
        if fault is not None:
            return fault
        if opts.reject_response_format and body.get("response_format") is not None:
            return _error(400, "'response_format' is not supported by this model")

        model = body.get("model") if isinstance(body.get("model"), str) else None
        model = model or SIMULATOR_MODEL
        try:
            temperature = float(body.get("temperature", 1.0))
        except (TypeError, ValueError):
            return _error(400, "'temperature' must be a number")

        digest = hashlib.sha256(_canonical(_seed_body(body)).encode("utf-8")).hexdigest()
        if temperature > 0:
            rng = random.Random(os.urandom(8))
            response_id = f"chatcmpl-sim-{os.urandom(12).hex()}"
        else:
            rng = random.Random(int(digest[:16], 16))
            response_id = f"chatcmpl-sim-{digest[:24]}"

        content: str | None
        calls: list[_ToolCall] = []
        if opts.empty:
            content = ""
        elif opts.garbage:
            words = _salient_words(
                "\n".join(_message_text(m.get("content")) for m in messages if isinstance(m, dict))
            )
            noise = "".join(rng.choice("#@%&~^|") for _ in range(6))
            content = f"<<garbled output>> {noise} {{{words[0]}:: ,, ]] {noise[::-1]}"
        elif (question := judge_question(messages)) is not None:
            content = judge_answer(*question)  # Rewind's judge: a fixed comparison of words
        else:
            try:
                plan = _tool_plan(body, messages)
            except ValueError as exc:
                return _error(400, str(exc))
            schema = _json_schema_of(body.get("response_format"))
            if plan is not None:
                call_id = f"call_{(digest if temperature <= 0 else os.urandom(12).hex())[:24]}"
                calls = [_tool_call(*plan, messages, rng, call_id)]
                content = None
            elif schema is not None:
                last = messages[-1] if isinstance(messages[-1], dict) else {}
                source = _last_user(messages)
                if last.get("role") in ("tool", "function"):
                    source += "\n" + _message_text(last.get("content"))
                content = _schema_answer(schema, source, rng)
            elif isinstance(messages[-1], dict) and messages[-1].get("role") in (
                "tool",
                "function",
            ):
                content = _tool_result_answer(messages, rng)
            else:
                content = compose_text(messages, rng)

        prompt_chars = sum(
            len(_message_text(m.get("content"))) for m in messages if isinstance(m, dict)
        )
        prompt_tokens = _tokens(prompt_chars)
        produced = content if content is not None else "".join(c.name + c.arguments for c in calls)
        completion_tokens = _tokens(len(produced))
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
        return 200, {
            "id": response_id,
            "object": "chat.completion",
            "created": 0,
            "model": opts.substitute_model or model,
            "system_fingerprint": SIMULATOR_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def embed(self, body: dict) -> tuple[int, dict]:
        """Answer an ``/embeddings`` body: one deterministic vector per input string."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        fault = self._fault()
        if fault is not None:
            return fault
        raw = body.get("input")
        if isinstance(raw, str):
            texts = [raw]
        elif isinstance(raw, list) and raw and all(isinstance(t, int) for t in raw):
            texts = [" ".join(map(str, raw))]  # one input given as token ids
        elif isinstance(raw, list) and raw:
            texts = [
                t if isinstance(t, str) else " ".join(map(str, t)) if isinstance(t, list) else None
                for t in raw
            ]
            if any(t is None for t in texts):
                return _error(400, "'input' items must be strings or lists of token ids")
        else:
            return _error(400, "'input' must be a string or a non-empty list")
        dimensions = body.get("dimensions", SIMULATOR_EMBEDDING_DIMENSIONS)
        if (
            isinstance(dimensions, bool)
            or not isinstance(dimensions, int)
            or not 1 <= dimensions <= 4096
        ):
            return _error(400, "'dimensions' must be an integer from 1 to 4096")
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            return _error(400, "'encoding_format' must be 'float' or 'base64'")
        data = []
        for index, text in enumerate(texts):
            vector = _embedding(text, dimensions)
            encoded: Any = vector
            if encoding == "base64":
                encoded = base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(_tokens(len(t)) for t in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": self._model(body),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def images(self, body: dict) -> tuple[int, dict]:
        """Answer ``/images/generations`` with a clearly fake placeholder (no network)."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        fault = self._fault()
        if fault is not None:
            return fault
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return _error(400, "'prompt' must be a non-empty string")
        n = body.get("n", 1)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
            return _error(400, "'n' must be an integer from 1 to 10")
        fmt = body.get("response_format") or "url"
        if fmt not in ("url", "b64_json"):
            return _error(400, "'response_format' must be 'url' or 'b64_json'")
        data = []
        for index in range(n):
            digest = hashlib.sha256(
                _canonical({**_seed_body(body), "index": index}).encode("utf-8")
            ).hexdigest()
            item: dict[str, Any] = {
                "revised_prompt": f"[simulated placeholder image, nothing was drawn] {prompt}"
            }
            if fmt == "b64_json":
                item["b64_json"] = base64.b64encode(_tiny_png(bytes.fromhex(digest[:6]))).decode()
            else:
                item["url"] = f"{SIMULATOR_IMAGE_HOST}/{digest[:32]}.png"
            data.append(item)
        return 200, {"created": 0, "data": data}

    def complete_legacy(self, body: dict) -> tuple[int, dict]:
        """Answer the legacy ``/completions`` (``prompt`` in, ``choices[0].text`` out)."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        if body.get("stream"):
            return _error(400, "'stream' is not supported on /completions by the simulator")
        prompt = body.get("prompt")
        if isinstance(prompt, list):
            prompt = "\n".join(p for p in prompt if isinstance(p, str))
        if not isinstance(prompt, str):
            return _error(400, "'prompt' must be a string or a list of strings")
        chat = {k: v for k, v in body.items() if k not in ("prompt",)}
        chat["messages"] = [{"role": "user", "content": prompt}]
        status, answer = self.respond(chat)
        if status != 200:
            return status, answer
        return 200, {
            "id": answer["id"].replace("chatcmpl-", "cmpl-", 1),
            "object": "text_completion",
            "created": 0,
            "model": answer["model"],
            "system_fingerprint": SIMULATOR_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "text": answer["choices"][0]["message"]["content"] or "",
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": answer["usage"],
        }

    def _route(self, method: str, path: str, raw: bytes) -> _Reply:
        if method == "POST" and self.options.latency_s > 0:
            time.sleep(self.options.latency_s)
        path, _, query = path.partition("?")
        path = path.rstrip("/")
        gemini = _GEMINI_RE.search(path)
        if gemini is not None:
            endpoint: str | None = gemini.group(2)
        else:
            endpoint = next((name for suffix, name in _ENDPOINTS if path.endswith(suffix)), None)
        if endpoint is None and re.search(r"/models/[^/]+$", path):
            endpoint = "model"
        if endpoint is None:
            status, body = _error(
                404, f"Invalid URL ({method} {path or '/'})", "invalid_request_error", "unknown_url"
            )
            return _Reply(status, body)
        if endpoint in ("models", "model"):
            if method != "GET":
                return _Reply(*_error(405, f"method {method} not allowed on {path}"))
            model = self.options.substitute_model or SIMULATOR_MODEL
            entry = {"id": model, "object": "model", "created": 0, "owned_by": "rewind-simulator"}
            if endpoint == "model":
                return _Reply(200, {**entry, "id": path.rsplit("/", 1)[1]})
            return _Reply(200, {"object": "list", "data": [entry]})
        fail = _ERROR_SHAPES.get(endpoint, _error)
        if method != "POST":
            return _Reply(*fail(405, f"method {method} not allowed on {path}"))
        try:
            body = json.loads(raw.decode("utf-8") or "null")
        except (ValueError, UnicodeDecodeError):
            return _Reply(*fail(400, "request body is not valid JSON"))
        with self._lock:
            self.calls.append((endpoint, body))
            if endpoint == "chat":
                self.requests.append(body)
        if gemini is not None:
            sse = parse_qs(query).get("alt") == ["sse"]
            return self._answer_gemini(endpoint, unquote(gemini.group(1)), body, sse)
        if endpoint == "messages":
            return self._answer_messages(body)
        if endpoint == "count_tokens":
            return _Reply(*self.count_message_tokens(body))
        if endpoint in ("api/chat", "api/generate"):
            return self._answer_ollama(endpoint, body)
        stream = isinstance(body, dict) and body.get("stream") is True
        if endpoint == "chat":
            status, answer = self.respond(body)
            if status == 200 and stream:
                options = body.get("stream_options")
                usage = isinstance(options, dict) and bool(options.get("include_usage"))
                return _Reply(status, events=_chat_chunks(answer, usage))
            return _Reply(status, answer)
        if endpoint == "responses":
            status, answer = self.respond_responses(body)
            if status == 200 and stream:
                return _Reply(status, events=self._responses_events(answer))
            return _Reply(status, answer)
        handler = {
            "completions": self.complete_legacy,
            "embeddings": self.embed,
            "images": self.images,
        }[endpoint]
        return _Reply(*handler(body))

    def dispatch(self, method: str, path: str, raw: bytes) -> tuple[int, dict | list | bytes]:
        """Route one HTTP request (``path`` may carry its query): ``(status, JSON body)``,
        or ``(status, bytes)`` holding a whole ``text/event-stream`` or NDJSON stream."""
        reply = self._route(method, path, raw)
        if reply.events is not None:
            return reply.status, _sse(reply.events)
        if reply.lines is not None:
            return reply.status, _ndjson(reply.lines)
        return reply.status, reply.body if reply.body is not None else {}

    # Transports ----------------------------------------------------------------------

    def transport(self, http: Any = httpx) -> Any:
        """In-process transport (sync and async clients): ``ChatClient(SIMULATOR_BASE_URL,
        transport=sim.transport())`` or ``openai.OpenAI(http_client=httpx.Client(
        transport=sim.transport()))``. ``http`` is the module whose ``MockTransport`` it
        is: ``httpx``, or ``httpx2`` for SDKs built on that (``anthropic`` 2, ``openai`` 3):
        ``anthropic.Anthropic(http_client=httpx2.Client(transport=sim.transport(httpx2)))``.
        """

        def handler(request: Any) -> Any:
            target = request.url.path
            if request.url.query:
                target += "?" + request.url.query.decode("ascii", "replace")
            reply = self._route(request.method, target, request.read())
            if reply.events is not None:
                return http.Response(
                    reply.status,
                    content=_sse(reply.events),
                    headers={
                        "Content-Type": "text/event-stream",
                        SIMULATOR_HEADER: SIMULATOR_MODEL,
                    },
                )
            if reply.lines is not None:
                return http.Response(
                    reply.status,
                    content=_ndjson(reply.lines),
                    headers={
                        "Content-Type": "application/x-ndjson",
                        SIMULATOR_HEADER: SIMULATOR_MODEL,
                    },
                )
            return http.Response(
                reply.status,
                json=reply.body if reply.body is not None else {},
                headers={SIMULATOR_HEADER: SIMULATOR_MODEL},
            )

        return http.MockTransport(handler)

    def _make_server(self, host: str, port: int) -> ThreadingHTTPServer:
        simulator = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "RewindSimulator/1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length > 0 else b""
                reply = simulator._route(self.command, self.path, raw)
                if reply.events is not None or reply.lines is not None:
                    # Streamed for real: one write per event or line; the connection's end
                    # ends it.
                    sse = reply.events is not None
                    self.close_connection = True
                    self.send_response(reply.status)
                    self.send_header(
                        "Content-Type", "text/event-stream" if sse else "application/x-ndjson"
                    )
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Connection", "close")
                    self.send_header(SIMULATOR_HEADER, SIMULATOR_MODEL)
                    self.end_headers()
                    for item in reply.events or reply.lines or []:
                        self.wfile.write(_sse([item]) if sse else _ndjson([item]))
                        self.wfile.flush()
                    return
                body = reply.body if reply.body is not None else {}
                data = json.dumps(body, ensure_ascii=False).encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header(SIMULATOR_HEADER, SIMULATOR_MODEL)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _answer  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent: test output and worker logs stay readable."""

        server = ThreadingHTTPServer((host, port), Handler)
        server.daemon_threads = True
        return server

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve on 127.0.0.1 (OS-assigned port) in a daemon thread; yield the base URL
        (``http://127.0.0.1:N/v1``; Anthropic, Gemini and Ollama clients take its root)."""
        server = self._make_server("127.0.0.1", 0)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
