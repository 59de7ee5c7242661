"""Anthropic's Messages API (``/v1/messages``, ``/v1/messages/count_tokens``), answered
through the chat core: the same conversation gets the text ``/chat/completions`` gives."""

from __future__ import annotations

import json
from typing import Any

from .prose import _message_text
from .protocol import _tokens
from .streaming import _pieces, _Reply

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _anthropic_error(status: int, message: str, *_: Any) -> tuple[int, dict]:
    """An error body in Anthropic's shape: ``{"type": "error", "error": {type, message}}``."""
    kind = _ERROR_TYPES.get(status) or ("api_error" if status >= 500 else "invalid_request_error")
    return status, {"type": "error", "error": {"type": kind, "message": message}}


def _from_chat_error(status: int, answer: dict) -> tuple[int, dict]:
    return _anthropic_error(status, str((answer.get("error") or {}).get("message") or ""))


def _text_of(content: Any) -> str:
    """The text of a string or of a list of blocks (``text`` blocks only, one a line)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(b.get("text", ""))
        for b in content
        if isinstance(b, dict) and b.get("type", "text") == "text"
    )


def _anthropic_messages(body: dict) -> list[dict]:
    """``system`` and ``messages`` as chat messages: text blocks joined into one string,
    ``tool_use`` blocks as ``tool_calls``, ``tool_result`` blocks as ``role: tool``."""
    chat: list[dict] = []
    system = _text_of(body.get("system"))
    if system:
        chat.append({"role": "system", "content": system})
    for index, message in enumerate(body["messages"]):
        role, content = message["role"], message["content"]
        if isinstance(content, str):
            chat.append({"role": role, "content": content})
            continue
        blocks = [b for b in content if isinstance(b, dict)]
        for block in blocks:
            if block.get("type") == "tool_result":
                result = block.get("content")
                chat.append(
                    {
                        "role": "tool",
                        "tool_call_id": str(block.get("tool_use_id") or ""),
                        "content": result if isinstance(result, str) else _text_of(result),
                    }
                )
        calls = [
            {
                "id": str(b.get("id") or f"toolu_{index}"),
                "type": "function",
                "function": {
                    "name": b.get("name"),
                    "arguments": json.dumps(b.get("input") or {}, ensure_ascii=False),
                },
            }
            for b in blocks
            if b.get("type") == "tool_use"
        ]
        texts = [b for b in blocks if b.get("type", "text") == "text"]
        if calls:
            chat.append({"role": role, "content": _text_of(texts) or None, "tool_calls": calls})
        elif texts or not any(b.get("type") == "tool_result" for b in blocks):
            chat.append({"role": role, "content": _text_of(texts)})
    return chat


def _invalid(body: Any) -> str | None:
    """Why a Messages request body is invalid (the API's wording), or None."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    tokens = body.get("max_tokens")
    if isinstance(tokens, bool) or not isinstance(tokens, int):
        return "max_tokens: Field required" if tokens is None else "max_tokens: must be an integer"
    if tokens < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return (
            "messages: Field required"
            if messages is None
            else "messages: at least one message is required"
        )
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{index}.role: Input should be 'user' or 'assistant'"
        if not isinstance(message.get("content"), str | list):
            return f"messages.{index}.content: Input should be a valid string or list"
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        return "system: Input should be a valid string or list of text blocks"
    temperature = body.get("temperature")
    if temperature is not None:
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            return "temperature: Input should be a valid number"
        if not 0 <= temperature <= 1:
            return "temperature: Input should be between 0 and 1"
    return None


def _chat_tools(body: dict) -> dict:
    """Client tools and ``tool_choice`` in the chat shape (server tools have no schema)."""
    out: dict[str, Any] = {}
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": str(t.get("description") or ""),
                "parameters": t["input_schema"],
            },
        }
        for t in body.get("tools") or []
        if isinstance(t, dict)
        and isinstance(t.get("name"), str)
        and isinstance(t.get("input_schema"), dict)
    ]
    if tools:
        out["tools"] = tools
        choice = body.get("tool_choice")
        kind = choice.get("type") if isinstance(choice, dict) else None
        if kind == "any":
            out["tool_choice"] = "required"
        elif kind == "none":
            out["tool_choice"] = "none"
        elif kind == "tool":
            out["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
    return out


def _output_schema(body: dict) -> dict | None:
    """The JSON schema of structured outputs (``output_config.format``, or the beta's
    ``output_format``), or None."""
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) else body.get("output_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = fmt.get("schema")
        return schema if isinstance(schema, dict) else {"type": "object"}
    return None


class _AnthropicAPI:
    """The Messages endpoints of :class:`~.server.Simulator` (a mixin): the answer comes
    from the simulator's chat core, ``self.respond``."""

    def _messages_chat(self, body: dict) -> dict:
        """The chat-completions body that a valid Messages body stands for: model,
        messages and temperature (so the text is chat's for those), tools, a schema."""
        chat: dict[str, Any] = {"model": body["model"], "messages": _anthropic_messages(body)}
        if body.get("temperature") is not None:
            chat["temperature"] = body["temperature"]
        chat.update(_chat_tools(body))
        schema = _output_schema(body)
        if schema is not None:
            chat["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": schema},
            }
        return chat

    def respond_messages(self, body: dict) -> tuple[int, dict]:
        """Answer a Messages body with ``(status, Message JSON)`` (the non-streamed shape,
        also for ``stream: true``: :meth:`_messages_events` streams it)."""
        problem = _invalid(body)
        if problem is not None:
            return _anthropic_error(400, problem)
        status, answer = self.respond(self._messages_chat(body))
        if status != 200:
            return _from_chat_error(status, answer)
        message = answer["choices"][0]["message"]
        content: list[dict] = [
            {
                "type": "tool_use",
                "id": f"toolu_{call['id'].removeprefix('call_')}",
                "name": call["function"]["name"],
                "input": json.loads(call["function"]["arguments"] or "{}"),
            }
            for call in message.get("tool_calls") or []
        ]
        if not content:
            content = [{"type": "text", "text": message["content"] or ""}]
        usage = answer["usage"]
        return 200, {
            "id": f"msg_sim_{answer['id'].removeprefix('chatcmpl-sim-')}",
            "type": "message",
            "role": "assistant",
            "model": answer["model"],
            "content": content,
            "stop_reason": "tool_use" if content[0]["type"] == "tool_use" else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage["prompt_tokens"],
                "output_tokens": usage["completion_tokens"],
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            },
        }

    def count_message_tokens(self, body: dict) -> tuple[int, dict]:
        """Answer ``/v1/messages/count_tokens``: the ``input_tokens`` a Messages call
        with this body reports (``max_tokens`` is not needed here)."""
        problem = _invalid({"max_tokens": 1, **body} if isinstance(body, dict) else body)
        if problem is not None:
            return _anthropic_error(400, problem)
        fault = self._fault()
        if fault is not None:
            return _from_chat_error(*fault)
        chars = sum(len(_message_text(m.get("content"))) for m in _anthropic_messages(body))
        return 200, {"input_tokens": _tokens(chars)}

    def _answer_messages(self, body: Any) -> _Reply:
        status, message = self.respond_messages(body)
        if status == 200 and body.get("stream") is True:
            return _Reply(status, events=_messages_events(message))
        return _Reply(status, message)


def _messages_events(message: dict) -> list[tuple[str | None, Any]]:
    """A Message as the events of its stream, each named by an ``event:`` line (the SDK
    skips unnamed ones): message_start, then per block content_block_start, its deltas
    and content_block_stop (a ping after the first start), message_delta, message_stop."""
    events: list[tuple[str | None, Any]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, **data}))

    usage = message["usage"]
    emit(
        "message_start",
        message={
            **message,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1},  # the API's start count, before any text
        },
    )
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            emit("content_block_start", index=index, content_block={**block, "input": {}})
            if index == 0:
                emit("ping")
            arguments = json.dumps(block["input"], ensure_ascii=False)
            for piece in [""] + _pieces(arguments):
                emit(
                    "content_block_delta",
                    index=index,
                    delta={"type": "input_json_delta", "partial_json": piece},
                )
        else:
            emit("content_block_start", index=index, content_block={"type": "text", "text": ""})
            if index == 0:
                emit("ping")
            for piece in _pieces(block["text"]):
                emit(
                    "content_block_delta", index=index, delta={"type": "text_delta", "text": piece}
                )
        emit("content_block_stop", index=index)
    emit(
        "message_delta",
        delta={"stop_reason": message["stop_reason"], "stop_sequence": None},
        usage={"output_tokens": usage["output_tokens"]},
    )
    emit("message_stop")
    return events
