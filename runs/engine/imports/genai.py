"""The LLM calls a step's spans describe, by the OpenTelemetry GenAI conventions that Burr's
OpenTelemetry integration and openllmetry write into the tracker (``gen_ai.system``,
``gen_ai.request.model``, ``gen_ai.response.model``, ``gen_ai.usage.*``,
``gen_ai.prompt.N.role/content``, ``gen_ai.completion.N.role/content``) — and the spans
themselves, as kept on the step: never a credential."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from runs.engine.calls.capture.redaction import is_credential, is_credential_header, redact_text
from runs.engine.calls.pricing import cost_usd
from runs.engine.imports.tracker import Span

_INDEXED = re.compile(r"^gen_ai\.(prompt|completion)\.(\d+)\.(\w+)$")
INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")


def _credential_key(key: str, value: Any) -> bool:
    """Whether an attribute (``llm.headers``, ``api_key``; ``key`` or ``token`` holding a
    secret-looking value; an object under a credential's name) is a credential, by the
    capture's rules (``redaction``)."""
    last = key.rsplit(".", 1)[-1].lower().replace("-", "_")
    return (
        last in {"headers", "header", "authorization", "cookie"}
        or is_credential_header(last, value if isinstance(value, str) else "")
        or is_credential(last, value)
    )


def clean_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """The attributes as kept: a credential one left out; secrets of known shapes, credential
    query parameters and a path's random pieces redacted from every text."""
    kept: dict[str, Any] = {}
    for key, value in attributes.items():
        if _credential_key(key, value):
            continue
        kept[key] = _redacted(value)
    return kept


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items() if not _credential_key(str(k), v)}
    return value


def _first_int(attributes: dict[str, Any], names: tuple[str, ...]) -> int:
    for name in names:
        value = attributes.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return int(value)
    return 0


def _messages(attributes: dict[str, Any], part: str) -> list[dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = _INDEXED.match(key)
        if match and match.group(1) == part:
            found.setdefault(int(match.group(2)), {})[match.group(3)] = value
    return [found[i] for i in sorted(found)]


def is_call(attributes: dict[str, Any]) -> bool:
    return any(
        k in attributes for k in ("gen_ai.request.model", *INPUT_TOKENS, *OUTPUT_TOKENS)
    ) or any(_INDEXED.match(k) for k in attributes)


def call_of(span: Span) -> dict[str, Any]:
    """A span's LLM call, in the shape of a captured call (``Call.as_json``) plus its
    ``messages`` and ``completion``: tokens, cost, models; ``cache_source`` live (it was)."""
    a = span.attributes
    prompt_tokens = _first_int(a, INPUT_TOKENS)
    completion_tokens = _first_int(a, OUTPUT_TOKENS)
    total = _first_int(a, ("gen_ai.usage.total_tokens", "llm.usage.total_tokens"))
    total = total or prompt_tokens + completion_tokens
    requested = str(a.get("gen_ai.request.model") or "")
    answered = str(a.get("gen_ai.response.model") or requested)
    cost = cost_usd(answered, prompt_tokens, completion_tokens) if total else Decimal(0)
    temperature = a.get("gen_ai.request.temperature")
    return {
        "kind": "llm",
        "endpoint": redact_text(str(a.get("gen_ai.openai.api_base") or "")),
        "key": "",
        "occurrence": 0,
        "cache_source": "live",
        "entry": "",
        "status": 0,
        "model_requested": requested,
        "model_answered": answered,
        "temperature": temperature if isinstance(temperature, int | float) else None,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "cost_usd": None if cost is None else str(cost),
        "latency_ms": 0.0,
        "library": "imported",
        "method": "",
        "branch": [],
        "format": "",
        "provider": str(a.get("gen_ai.system") or ""),
        "cached_tokens": 0,
        "error": "",
        "span": span.id,
        "messages": _redacted(_messages(a, "prompt")),
        "completion": _redacted(_messages(a, "completion")),
    }


def calls_of(spans: list[Span]) -> list[dict[str, Any]]:
    return [call_of(s) for s in spans if is_call(s.attributes)]
