"""Answers on the wire: :class:`_Reply`, ``text/event-stream`` and NDJSON bytes, and a
chat completion's chunks."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class _Reply:
    """One answer: a JSON body (an object, or an array: Gemini's unframed stream), the
    events of a ``text/event-stream`` or the lines of an ``application/x-ndjson`` stream."""

    status: int
    body: dict | list | None = None
    events: list[tuple[str | None, Any]] | None = None
    lines: list[dict] | None = None


def _pieces(text: str) -> list[str]:
    """``text`` cut into word-sized pieces whose concatenation is ``text``."""
    return re.findall(r"\S+\s*|\s+", text)


def _sse(events: Sequence[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out).encode("utf-8")


def _ndjson(lines: Sequence[dict]) -> bytes:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")


def _chat_chunks(response: dict, include_usage: bool) -> list[tuple[str | None, Any]]:
    """A chat completion as the ``chat.completion.chunk`` events of a stream."""
    head = {
        "id": response["id"],
        "object": "chat.completion.chunk",
        "created": response["created"],
        "model": response["model"],
        "system_fingerprint": response["system_fingerprint"],
    }

    def chunk(delta: dict, finish: str | None = None) -> tuple[None, dict]:
        data = {
            **head,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            data["usage"] = None
        return None, data

    choice = response["choices"][0]
    message = choice["message"]
    events = []
    calls = message.get("tool_calls") or []
    if calls:
        events.append(chunk({"role": "assistant", "content": None, "refusal": None}))
        for index, call in enumerate(calls):
            start = {
                "index": index,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            events.append(chunk({"tool_calls": [start]}))
            for piece in _pieces(call["function"]["arguments"]):
                events.append(
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                )
    else:
        events.append(chunk({"role": "assistant", "content": "", "refusal": None}))
        events.extend(chunk({"content": piece}) for piece in _pieces(message["content"] or ""))
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        events.append((None, {**head, "choices": [], "usage": response["usage"]}))
    events.append((None, "[DONE]"))
    return events
