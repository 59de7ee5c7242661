"""The capture core: what a captured call is, its key, its occurrence, its pin, and how its
answer is stored and given back — whatever HTTP library sent it (DESIGN.md, "Any Burr app,
unchanged").

While a step runs, every request it sends goes through :class:`StepCalls` (an adapter per HTTP
library hands it over: ``runs.engine.calls.capture.httpx_adapter``). A request to an
OpenAI-compatible endpoint (``…/chat/completions``, ``…/completions``, ``…/embeddings``,
``…/responses``, ``…/images/generations``) is an LLM call; anything else a tool call. Both are
cached under a content-addressed key — the canonical request body (sorted keys), the method and
path; never the host, a header or the API key — per occurrence within the step, and a replay
reads back the entry its source's step pinned (``cache.get_llm``/``cache.get_tool``). Only 2xx
answers are stored; errors are never cached. A streamed answer (``stream=True``) is stored as
the bytes it arrived as, so a replay yields the same chunks.
"""

from __future__ import annotations

import base64
import contextvars
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx

from runs.engine.calls import cache
from runs.engine.calls.pricing import cost_usd
from runs.hashing import canonical_json, length_prefixed, sha256_text

HTTP_KEY_VERSION = "rewind-http-key/1"
LLM_ENDPOINTS = (
    "chat/completions",
    "completions",
    "embeddings",
    "responses",
    "images/generations",
)
# Body fields that describe the caller, not the question: never part of a key.
METADATA_FIELDS = frozenset({"user", "metadata", "store"})
# Response headers a replay gives back; the body is stored decoded, so no content-encoding.
KEPT_HEADERS = ("content-type",)

class _Slot:
    """Holds the active step's calls. The context variable holds the slot, and the slot the
    calls: Burr runs async hooks as separate tasks (each with a copy of the context), so a
    hook fills a slot the step's own task already holds, rather than setting the variable."""

    calls: StepCalls | None = None


_current: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar(
    "rewind_step_calls", default=None
)


def ensure_slot() -> _Slot:
    """A slot in the current context (call it in the task or thread that runs the steps)."""
    slot = _current.get()
    if slot is None:
        slot = _Slot()
        _current.set(slot)
    return slot


class PreviewStop(Exception):  # noqa: N818 — control flow of a preview
    """A preview reached a call the cache cannot answer."""


@dataclass
class Call:
    """One HTTP call a step made, as recorded on its Node."""

    kind: str  # "llm" | "tool"
    endpoint: str
    key: str
    occurrence: int
    cache_source: str  # "live" | "cache" | "tool-cache"
    entry: str = ""  # "llm:ID" / "tool:ID"
    status: int = 0
    model_requested: str = ""
    model_answered: str = ""
    temperature: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: Decimal | None = Decimal(0)
    latency_ms: float = 0.0

    def as_json(self) -> dict[str, Any]:
        data = {k: getattr(self, k) for k in self.__dataclass_fields__}
        data["cost_usd"] = None if self.cost_usd is None else str(self.cost_usd)
        return data


@dataclass
class StepCalls:
    """The calls of the step being executed; active (``with calls:``) while it runs."""

    sequence_id: int
    action: str
    live: bool = False
    pins: dict[tuple[int, str, int], Any] = field(default_factory=dict)  # → cache entry
    llm_model: str | None = None  # llm.model / llm.temperature overrides of this step
    llm_temperature: float | None = None
    preview: bool = False
    calls: list[Call] = field(default_factory=list)
    prompt: Any = None  # the messages (or input) of the step's first LLM call
    occurrences: Counter = field(default_factory=Counter)
    suspended: int = 0  # > 0 while a declared node makes its own cached call

    def __enter__(self) -> StepCalls:
        ensure_slot().calls = self
        return self

    def __exit__(self, *exc: Any) -> None:
        slot = _current.get()
        if slot is not None and slot.calls is self:
            slot.calls = None

    # -- one request ----------------------------------------------------------------------

    def prepare(self, request: httpx.Request) -> tuple[httpx.Request, Call, dict[str, Any]]:
        endpoint = llm_endpoint(request.url.path)
        kind = "llm" if endpoint and request.method == "POST" else "tool"
        body = _json_body(request)
        if kind == "llm" and isinstance(body, dict):
            body = self._rewrite(body)
            request = _with_json_body(request, body)
        described = describe_request(request, body, endpoint)
        key = http_cache_key(kind, described)
        occurrence = self.occurrences[key]
        self.occurrences[key] += 1
        call = Call(kind=kind, endpoint=described["endpoint"], key=key, occurrence=occurrence,
                    cache_source="live")  # fmt: skip
        if kind == "llm" and isinstance(body, dict):
            if self.prompt is None:
                self.prompt = next(
                    (body[k] for k in ("messages", "input", "prompt") if k in body), None
                )
            call.model_requested = str(body.get("model") or "")
            temperature = body.get("temperature")
            call.temperature = float(temperature) if isinstance(temperature, int | float) else None
        return request, call, described

    def _rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        body = dict(body)
        if self.llm_model is not None:
            body["model"] = self.llm_model
        if self.llm_temperature is not None:
            body["temperature"] = self.llm_temperature
        return body

    def lookup(self, call: Call) -> Any:
        pinned = self.pins.get((self.sequence_id, call.key, call.occurrence))
        if self.live:
            return None
        if call.kind == "llm":
            return cache.get_llm(call.key, call.occurrence, pinned)
        return cache.get_tool(call.key, call.occurrence, pinned)

    def replayed(self, request: httpx.Request, call: Call, entry: Any) -> httpx.Response:
        stored = entry.response if call.kind == "llm" else entry.result
        call.cache_source = "cache" if call.kind == "llm" else "tool-cache"
        call.entry = f"{call.kind}:{entry.pk}"
        call.status = int(stored["status"])
        if call.kind == "llm":
            call.model_answered = entry.model_answered
        self.calls.append(call)
        return httpx.Response(
            call.status,
            headers=stored.get("headers") or {},
            content=_body_bytes(stored),
            request=request,
        )

    def recorded(
        self, request: httpx.Request, call: Call, described: dict, response: httpx.Response
    ) -> httpx.Response:
        """Store a live answer (2xx only) and note what it cost."""
        content = response.content  # reads a streamed body to the end
        call.status = response.status_code
        stored = _stored_response(response, content)
        if call.kind == "llm":
            usage, model = usage_of(content, response.headers.get("content-type", ""))
            call.model_answered = model
            call.prompt_tokens = usage.get("prompt_tokens", 0)
            call.completion_tokens = usage.get("completion_tokens", 0)
            call.total_tokens = usage.get("total_tokens", 0)
            # An answer that reports no usage (a stream without include_usage) has an
            # unknown cost, never a zero.
            call.cost_usd = (
                cost_usd(model or call.model_requested, call.prompt_tokens, call.completion_tokens)
                if usage
                else None
            )
        if 200 <= response.status_code < 300:
            if call.kind == "llm":
                entry = cache.put_llm(
                    key=call.key,
                    occurrence=call.occurrence,
                    node_name=self.action,
                    model_requested=call.model_requested,
                    model_answered=call.model_answered,
                    request=described,
                    response=stored,
                    usage={
                        "prompt_tokens": call.prompt_tokens,
                        "completion_tokens": call.completion_tokens,
                        "total_tokens": call.total_tokens,
                    },
                )
            else:
                entry = cache.put_tool(
                    key=call.key,
                    occurrence=call.occurrence,
                    tool=f"{request.method} {described['endpoint']}"[:100],
                    tool_version="http",
                    args=described,
                    result=stored,
                )
            call.entry = f"{call.kind}:{entry.pk}"
        self.calls.append(call)
        return response

    def failed(self, call: Call, started: float) -> None:
        """A call that got no answer (a transport error): recorded, never cached."""
        call.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        self.calls.append(call)


def current() -> StepCalls | None:
    slot = _current.get()
    calls = slot.calls if slot is not None else None
    return calls if calls is not None and not calls.suspended else None


# -- keys and payloads ----------------------------------------------------------------------


def llm_endpoint(path: str) -> str:
    """The OpenAI-compatible endpoint a path ends with, or "" for any other request."""
    path = path.rstrip("/")
    for endpoint in LLM_ENDPOINTS:
        if path == f"/{endpoint}" or path.endswith(f"/{endpoint}"):
            # "…/chat/completions" also ends with "/completions": the longer name wins.
            return endpoint
    return ""


def describe_request(request: httpx.Request, body: Any, endpoint: str) -> dict[str, Any]:
    """What a call's key is taken over: method, path (the endpoint for LLM calls), query and
    the canonical body. No host, no header — so never a key."""
    if isinstance(body, dict):
        body = {k: v for k, v in body.items() if k not in METADATA_FIELDS}
    elif body is None and request.content:
        body = {"sha256": sha256_text(request.content.decode("latin-1"))}
    return {
        "method": request.method,
        "endpoint": endpoint or request.url.path,
        "query": sorted(request.url.params.multi_items()),
        "body": body,
    }


def http_cache_key(kind: str, described: dict[str, Any]) -> str:
    return sha256_text(
        length_prefixed(
            [
                HTTP_KEY_VERSION,
                kind,
                described["method"],
                described["endpoint"],
                canonical_json(described["query"]),
                canonical_json(described["body"]),
            ]
        )
    )


def _json_body(request: httpx.Request) -> Any:
    if not request.content:
        return None
    try:
        return json.loads(request.content)
    except (ValueError, UnicodeDecodeError):
        return None


def _with_json_body(request: httpx.Request, body: dict[str, Any]) -> httpx.Request:
    content = json.dumps(body).encode("utf-8")
    headers = httpx.Headers(request.headers)
    headers["content-length"] = str(len(content))
    return httpx.Request(
        request.method,
        request.url,
        headers=headers,
        content=content,
        extensions=request.extensions,
    )


def _stored_response(response: httpx.Response, content: bytes) -> dict[str, Any]:
    headers = {k: response.headers[k] for k in KEPT_HEADERS if k in response.headers}
    try:
        return {"status": response.status_code, "headers": headers, "text": content.decode()}
    except UnicodeDecodeError:
        encoded = base64.b64encode(content).decode("ascii")
        return {"status": response.status_code, "headers": headers, "base64": encoded}


def _body_bytes(stored: dict[str, Any]) -> bytes:
    if "base64" in stored:
        return base64.b64decode(stored["base64"])
    return str(stored.get("text", "")).encode("utf-8")


def usage_of(content: bytes, content_type: str) -> tuple[dict[str, int], str]:
    """Token usage and the answering model from an OpenAI-style answer, plain or streamed
    (the usage chunk, when the caller asked for one)."""
    usage: dict[str, int] = {}
    model = ""
    text = content.decode("utf-8", "replace")
    documents: list[Any] = []
    if "text/event-stream" in content_type:
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip() not in {"", "[DONE]"}:
                try:
                    documents.append(json.loads(line[5:]))
                except ValueError:
                    continue
    else:
        try:
            documents.append(json.loads(text))
        except ValueError:
            pass
    for document in documents:
        if not isinstance(document, dict):
            continue
        model = str(document.get("model") or model)
        found = document.get("usage")
        if isinstance(found, dict):
            prompt = found.get("prompt_tokens", found.get("input_tokens", 0)) or 0
            completion = found.get("completion_tokens", found.get("output_tokens", 0)) or 0
            total = found.get("total_tokens") or prompt + completion
            usage = {
                "prompt_tokens": int(prompt),
                "completion_tokens": int(completion),
                "total_tokens": int(total),
            }
    return usage, model
