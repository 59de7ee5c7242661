"""LLM calls recognised by their wire format, whatever the SDK (DESIGN.md, "Capture").

A request is an LLM call when its path and body say so: OpenAI's chat/completions, completions,
embeddings, responses and images; Anthropic's Messages; Google Gemini's ``generateContent`` and
``streamGenerateContent``; Ollama's native ``/api/chat`` and ``/api/generate``. For each this
module knows what the call asked (model, temperature, prompt), how an ``llm.model`` /
``llm.temperature`` override rewrites it, what the answer cost (input, output and cached
tokens, the model that answered) — plain or streamed (SSE, Anthropic's events, Gemini's chunk
array, Ollama's NDJSON) — and whether an answer is one at all: a 200 whose body does not parse
as its format is never cached.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

OPENAI_ENDPOINTS = (
    "chat/completions",
    "completions",
    "embeddings",
    "responses",
    "images/generations",
)
_GEMINI = re.compile(
    r"/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)
_OLLAMA = ("api/chat", "api/generate")


@dataclass(frozen=True)
class WireFormat:
    family: str  # "openai" | "anthropic" | "gemini" | "ollama"
    endpoint: str  # what the cache key names: "chat/completions", "messages", …
    model_in_path: str = ""  # Gemini names the model in the path


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    model: str = ""
    reported: bool = False  # the answer said what it cost (a stream may not)
    counted: bool = False  # it did not: Rewind counted the tokens (``counting``)


def openai_endpoint(path: str) -> str:
    """The OpenAI-compatible endpoint a path ends with, or ""."""
    path = path.rstrip("/")
    for endpoint in OPENAI_ENDPOINTS:
        if path == f"/{endpoint}" or path.endswith(f"/{endpoint}"):
            # "…/chat/completions" also ends with "/completions": the longer name wins.
            return endpoint
    return ""


def recognise(method: str, path: str, body: Any) -> WireFormat | None:
    """The LLM wire format of a request, or None for any other call (a tool call)."""
    if method != "POST":
        return None
    path = path.rstrip("/")
    endpoint = openai_endpoint(path)
    if endpoint:
        return WireFormat("openai", endpoint)
    if (
        path.endswith("/messages")
        and isinstance(body, dict)
        and isinstance(body.get("messages"), list)
        and isinstance(body.get("model"), str)
    ):
        return WireFormat("anthropic", "messages")
    match = _GEMINI.search(path)
    if match:
        return WireFormat(
            "gemini", f"models/{match['model']}:{match['method']}", model_in_path=match["model"]
        )
    for endpoint in _OLLAMA:
        if path.endswith(f"/{endpoint}"):
            return WireFormat("ollama", endpoint)
    return None


# -- what was asked --------------------------------------------------------------------------


def model_requested(fmt: WireFormat, body: dict[str, Any]) -> str:
    return fmt.model_in_path or str(body.get("model") or "")


def temperature_requested(fmt: WireFormat, body: dict[str, Any]) -> float | None:
    if fmt.family == "gemini":
        value = (body.get("generationConfig") or {}).get("temperature")
    elif fmt.family == "ollama":
        value = (body.get("options") or {}).get("temperature")
    else:
        value = body.get("temperature")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def prompt_of(fmt: WireFormat, body: dict[str, Any]) -> Any:
    """What the inspector shows as the step's prompt: the messages (system included)."""
    if fmt.family == "anthropic" and body.get("system"):
        return [{"role": "system", "content": body["system"]}, *body.get("messages", [])]
    if fmt.family == "gemini":
        system = body.get("systemInstruction") or body.get("system_instruction")
        contents = body.get("contents")
        return [{"role": "system", **system}, *(contents or [])] if system else contents
    return next((body[k] for k in ("messages", "input", "prompt") if k in body), None)


def rewrite(
    fmt: WireFormat, body: dict[str, Any], model: str | None, temperature: float | None
) -> dict[str, Any]:
    """The body with a fork's ``llm.model`` / ``llm.temperature`` applied (Gemini's model is in
    its path, so only its temperature can be overridden)."""
    body = dict(body)
    if model is not None and fmt.family != "gemini":
        body["model"] = model
    if temperature is not None:
        if fmt.family == "gemini":
            body["generationConfig"] = {
                **(body.get("generationConfig") or {}),
                "temperature": temperature,
            }
        elif fmt.family == "ollama":
            body["options"] = {**(body.get("options") or {}), "temperature": temperature}
        else:
            body["temperature"] = temperature
    return body


# -- what came back --------------------------------------------------------------------------


def documents(content: bytes, content_type: str) -> list[Any] | None:
    """The JSON documents of an answer: one, the ``data:`` events of a stream, the lines of
    NDJSON, or the items of a JSON array (Gemini's stream without ``alt=sse``). None when the
    body is none of these."""
    text = content.decode("utf-8", "replace")
    if not text.strip():
        return None
    if "text/event-stream" in content_type:
        found = []
        for line in text.splitlines():
            data = line[5:].strip() if line.startswith("data:") else None
            if data and data != "[DONE]":
                try:
                    found.append(json.loads(data))
                except ValueError:
                    return None
        return found or None
    if "ndjson" in content_type:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()] or None
        except ValueError:
            return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    return document if isinstance(document, list) else [document]


def invalid(fmt: WireFormat, content: bytes, content_type: str) -> str | None:
    """Why a 2xx answer is not an answer of its format (so it must not be cached), or None."""
    docs = documents(content, content_type)
    if docs is None:
        if not content.strip():
            return "the answer is empty"
        if "text/event-stream" in content_type or "ndjson" in content_type:
            return "the stream holds no event that is JSON"
        return "the answer is not JSON"
    objects = [d for d in docs if isinstance(d, dict)]
    if len(objects) != len(docs):
        return "the answer is JSON but not an object"
    errors = [d["error"] for d in objects if d.get("error")]
    if errors:
        return f"the answer is an error: {str(errors[0])[:200]}"
    streamed = len(docs) > 1 or "text/event-stream" in content_type or "ndjson" in content_type
    if fmt.family == "openai":
        problem = _invalid_openai(fmt.endpoint, objects, streamed)
        if problem is None and streamed:
            return _unfinished_openai(fmt.endpoint, objects, content)
        return problem
    if fmt.family == "anthropic":
        if streamed:
            if not any(d.get("type") == "message_start" for d in objects):
                return "the stream has no message_start event"
            if not any(d.get("type") == "message_stop" for d in objects):
                return "the stream stopped before its end (no message_stop event)"
            return None
        return None if isinstance(objects[0].get("content"), list) else "the answer has no content"
    if fmt.family == "gemini":
        if not any(isinstance(d.get("candidates"), list) and d["candidates"] for d in objects):
            return "the answer has no candidates"
        if streamed and not any(_gemini_finished(d) for d in objects):
            return "the stream stopped before its end (no chunk with a finishReason)"
        return None
    if fmt.family == "ollama":
        field = "message" if fmt.endpoint == "api/chat" else "response"
        if not all(field in d for d in objects):
            return f"the answer has no {field}"
        return None if objects[-1].get("done", True) else "the stream never finished (no done)"
    return None


# A stream is an answer only once it has ended as its format ends one: a stream a proxy or a
# dropped connection cut short parses chunk by chunk, and cached it would be served to every
# later run as the model's whole answer ("The fu").
_DONE = re.compile(rb"^data:\s*\[DONE\]\s*$", re.MULTILINE)
_RESPONSES_ENDS = {"response.completed", "response.incomplete"}


def _unfinished_openai(endpoint: str, objects: list[dict], content: bytes) -> str | None:
    """Why an OpenAI stream that parsed did not end, or None."""
    if endpoint == "responses":
        if any(d.get("type") in _RESPONSES_ENDS for d in objects):
            return None
        return "the stream stopped before its end (no response.completed event)"
    if endpoint not in ("chat/completions", "completions"):
        return None
    finished = any(
        isinstance(choice, dict) and choice.get("finish_reason")
        for d in objects
        for choice in (d.get("choices") if isinstance(d.get("choices"), list) else ())
    )
    if finished or _DONE.search(content):
        return None
    return "the stream stopped before its end (no finish_reason, no [DONE])"


def _gemini_finished(chunk: dict) -> bool:
    candidates = chunk.get("candidates")
    return isinstance(candidates, list) and any(
        isinstance(c, dict) and c.get("finishReason") for c in candidates
    )


def _invalid_openai(endpoint: str, objects: list[dict], streamed: bool) -> str | None:
    if endpoint in ("chat/completions", "completions"):
        if streamed:
            ok = any(isinstance(d.get("choices"), list) for d in objects)
        else:
            ok = isinstance(objects[0].get("choices"), list) and bool(objects[0]["choices"])
        return None if ok else "the answer has no choices"
    if endpoint == "responses":
        ok = any("output" in d or "type" in d for d in objects)
        return None if ok else "the answer has no output"
    ok = isinstance(objects[0].get("data"), list)  # embeddings, images
    return None if ok else "the answer has no data"


def usage_of(fmt: WireFormat | None, content: bytes, content_type: str) -> Usage:
    """Tokens and the answering model, from a plain or streamed answer: Anthropic's
    message_start and message_delta events, the Responses API's response.completed, a chat
    completion stream's last chunk — which OpenAI sends only when the caller asked
    ``stream_options: {"include_usage": true}``; without it nothing is reported and
    ``counting`` counts the tokens."""
    usage = Usage()
    for doc in documents(content, content_type) or []:
        if isinstance(doc, dict):
            _read_usage(fmt.family if fmt else "openai", doc, usage)
    if usage.reported and not usage.total_tokens:
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
    return usage


def _read_usage(family: str, doc: dict[str, Any], usage: Usage) -> None:
    if family == "anthropic":
        message = doc.get("message") if doc.get("type") == "message_start" else doc
        message = message if isinstance(message, dict) else {}
        usage.model = str(message.get("model") or usage.model)
        found = message.get("usage") if "usage" in message else doc.get("usage")
        if isinstance(found, dict):
            usage.reported = True
            # message_start reports the input, message_delta the output so far; today's API
            # repeats the input counts there too (cumulative), or sends them as null.
            if found.get("input_tokens") is not None:
                cached = int(found.get("cache_read_input_tokens") or 0)
                created = int(found.get("cache_creation_input_tokens") or 0)
                usage.prompt_tokens = int(found["input_tokens"]) + cached + created
                usage.cached_tokens = cached
            if found.get("output_tokens") is not None:
                usage.completion_tokens = int(found["output_tokens"])  # cumulative
            usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
        return
    if family == "gemini":
        usage.model = str(doc.get("modelVersion") or usage.model)
        found = doc.get("usageMetadata")
        if isinstance(found, dict):
            usage.reported = True
            usage.prompt_tokens = int(found.get("promptTokenCount") or 0)
            usage.completion_tokens = int(found.get("candidatesTokenCount") or 0) + int(
                found.get("thoughtsTokenCount") or 0
            )
            usage.total_tokens = int(found.get("totalTokenCount") or 0)
            usage.cached_tokens = int(found.get("cachedContentTokenCount") or 0)
        return
    if family == "ollama":
        usage.model = str(doc.get("model") or usage.model)
        if "prompt_eval_count" in doc or "eval_count" in doc:
            usage.reported = True
            usage.prompt_tokens = int(doc.get("prompt_eval_count") or 0)
            usage.completion_tokens = int(doc.get("eval_count") or 0)
            usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
        return
    # OpenAI: chat/completions, completions, embeddings, responses (its events nest the answer)
    if isinstance(doc.get("response"), dict):
        doc = doc["response"]
    usage.model = str(doc.get("model") or usage.model)
    found = doc.get("usage")
    if isinstance(found, dict):
        usage.reported = True
        usage.prompt_tokens = int(found.get("prompt_tokens", found.get("input_tokens", 0)) or 0)
        usage.completion_tokens = int(
            found.get("completion_tokens", found.get("output_tokens", 0)) or 0
        )
        usage.total_tokens = int(found.get("total_tokens") or 0)
        details = found.get("prompt_tokens_details") or found.get("input_tokens_details") or {}
        usage.cached_tokens = (
            int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
        )
