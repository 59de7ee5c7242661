"""Google's Gemini API (``/v1beta/models/{model}:generateContent``,
``:streamGenerateContent`` and ``:countTokens``), answered through the chat core: the same
conversation gets the text ``/chat/completions`` gives."""

from __future__ import annotations

import json
from typing import Any

from .prose import _message_text
from .protocol import _tokens
from .streaming import _pieces, _Reply

_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _gemini_error(status: int, message: str, *_: Any) -> tuple[int, dict]:
    """An error body in Google's shape: ``{"error": {code, message, status}}``."""
    name = _STATUSES.get(status) or ("INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    return status, {"error": {"code": status, "message": message, "status": name}}


def _field(body: dict, camel: str) -> Any:
    """A request field under its JSON name or its proto name (both are accepted)."""
    if camel in body:
        return body[camel]
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return body.get(snake)


def _parts(content: Any) -> list[dict]:
    if isinstance(content, str):
        return [{"text": content}]
    parts = content.get("parts") if isinstance(content, dict) else None
    if isinstance(parts, dict):
        parts = [parts]
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _lower_types(schema: Any) -> Any:
    """An OpenAPI-style schema (``"type": "OBJECT"``) with JSON-schema type names."""
    if isinstance(schema, list):
        return [_lower_types(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _lower_types(v) for k, v in schema.items()}
    kind = schema.get("type")
    if isinstance(kind, str):
        out["type"] = kind.lower()
    elif isinstance(kind, list):
        out["type"] = [k.lower() if isinstance(k, str) else k for k in kind]
    return out


def _gemini_messages(body: dict) -> list[dict]:
    """``systemInstruction`` and ``contents`` as chat messages: text parts joined into one
    string, ``functionCall`` parts as ``tool_calls``, ``functionResponse`` as ``role: tool``."""
    messages: list[dict] = []
    system = "\n".join(str(p.get("text", "")) for p in _parts(_field(body, "systemInstruction")))
    if system:
        messages.append({"role": "system", "content": system})
    contents = _field(body, "contents")
    for index, content in enumerate(contents if isinstance(contents, list) else [contents]):
        parts = _parts(content)
        role = content.get("role") if isinstance(content, dict) else None
        role = "assistant" if role == "model" else "user"
        for part in parts:
            response = _field(part, "functionResponse")
            if isinstance(response, dict):
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": str(response.get("id") or ""),
                        "name": str(response.get("name") or "the tool"),
                        "content": json.dumps(response.get("response"), ensure_ascii=False),
                    }
                )
        calls = [
            {
                "id": str(call.get("id") or f"call_{index}_{n}"),
                "type": "function",
                "function": {
                    "name": call.get("name"),
                    "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False),
                },
            }
            for n, call in enumerate(_field(p, "functionCall") for p in parts)
            if isinstance(call, dict)
        ]
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
        answered = any(isinstance(_field(p, "functionResponse"), dict) for p in parts)
        if calls:
            messages.append(
                {"role": role, "content": "\n".join(texts) or None, "tool_calls": calls}
            )
        elif texts or not answered:
            messages.append({"role": role, "content": "\n".join(texts)})
    return messages


def _invalid(body: Any) -> str | None:
    """Why a GenerateContent request body is invalid, or None."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    contents = _field(body, "contents")
    if not contents or not isinstance(contents, list | dict | str):
        return "* GenerateContentRequest.contents: contents is not specified"
    config = _field(body, "generationConfig")
    if config is not None and not isinstance(config, dict):
        return "generationConfig: must be an object"
    temperature = _field(config or {}, "temperature")
    if temperature is not None:
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            return "generationConfig.temperature: must be a number"
        if not 0 <= temperature <= 2:
            return "* GenerateContentRequest.generation_config.temperature: must be in [0, 2]"
    return None


def _chat_tools(body: dict) -> dict:
    """``functionDeclarations`` and ``toolConfig`` in the chat shape."""
    declared = [
        fn
        for tool in _field(body, "tools") or []
        if isinstance(tool, dict)
        for fn in _field(tool, "functionDeclarations") or []
        if isinstance(fn, dict) and isinstance(fn.get("name"), str)
    ]
    if not declared:
        return {}
    out: dict[str, Any] = {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": fn["name"],
                    "description": str(fn.get("description") or ""),
                    "parameters": _lower_types(
                        _field(fn, "parametersJsonSchema")
                        or fn.get("parameters")
                        or {"type": "object", "properties": {}}
                    ),
                },
            }
            for fn in declared
        ]
    }
    calling = _field(_field(body, "toolConfig") or {}, "functionCallingConfig") or {}
    mode = str(calling.get("mode") or "AUTO").upper()
    allowed = _field(calling, "allowedFunctionNames") or []
    if mode == "NONE":
        out["tool_choice"] = "none"
    elif mode in ("ANY", "VALIDATED") and len(allowed) == 1:
        out["tool_choice"] = {"type": "function", "function": {"name": allowed[0]}}
    elif mode in ("ANY", "VALIDATED"):
        tools = [{"type": "function", "name": name} for name in allowed]
        out["tool_choice"] = {"type": "allowed_tools", "mode": "required", "tools": tools}
    return out


def _response_format(config: dict) -> dict | None:
    """``responseMimeType: application/json`` (with a schema, if any) as a response format."""
    schema = _field(config, "responseJsonSchema") or _field(config, "responseSchema")
    if isinstance(schema, dict):
        return {
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": _lower_types(schema)},
        }
    if _field(config, "responseMimeType") == "application/json":
        return {"type": "json_object"}
    return None


class _GeminiAPI:
    """The Gemini endpoints of :class:`~.server.Simulator` (a mixin): the answer comes
    from the simulator's chat core, ``self.respond``."""

    def _gemini_chat(self, model: str, body: dict) -> dict:
        """The chat-completions body that a valid request stands for: model, messages and
        temperature (so the text is chat's for those), tools, a response format."""
        chat: dict[str, Any] = {"model": model, "messages": _gemini_messages(body)}
        config = _field(body, "generationConfig") or {}
        if _field(config, "temperature") is not None:
            chat["temperature"] = _field(config, "temperature")
        chat.update(_chat_tools(body))
        response_format = _response_format(config)
        if response_format is not None:
            chat["response_format"] = response_format
        return chat

    def generate_content(self, model: str, body: dict) -> tuple[int, dict]:
        """Answer ``models/{model}:generateContent`` with ``(status, response JSON)``."""
        problem = _invalid(body)
        if problem is not None:
            return _gemini_error(400, problem)
        status, answer = self.respond(self._gemini_chat(model, body))
        if status != 200:
            return _gemini_error(status, str(answer["error"]["message"]))
        message = answer["choices"][0]["message"]
        parts: list[dict] = [
            {
                "functionCall": {
                    "name": call["function"]["name"],
                    "args": json.loads(call["function"]["arguments"] or "{}"),
                }
            }
            for call in message.get("tool_calls") or []
        ] or [{"text": message["content"] or ""}]
        usage = answer["usage"]
        return 200, {
            "candidates": [
                {
                    "content": {"parts": parts, "role": "model"},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": usage["prompt_tokens"],
                "candidatesTokenCount": usage["completion_tokens"],
                "totalTokenCount": usage["total_tokens"],
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": usage["prompt_tokens"]}],
            },
            "modelVersion": answer["model"],
            "responseId": answer["id"].removeprefix("chatcmpl-sim-"),
        }

    def count_gemini_tokens(self, model: str, body: dict) -> tuple[int, dict]:
        """Answer ``models/{model}:countTokens``: the ``promptTokenCount`` that
        generateContent reports for the same contents."""
        if isinstance(body, dict) and isinstance(body.get("generateContentRequest"), dict):
            body = body["generateContentRequest"]
        problem = _invalid(body)
        if problem is not None:
            return _gemini_error(400, problem)
        fault = self._fault()
        if fault is not None:
            return _gemini_error(fault[0], str(fault[1]["error"]["message"]))
        chars = sum(len(_message_text(m.get("content"))) for m in _gemini_messages(body))
        return 200, {
            "totalTokens": _tokens(chars),
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": _tokens(chars)}],
        }

    def _answer_gemini(self, method: str, model: str, body: Any, sse: bool) -> _Reply:
        if method == "countTokens":
            return _Reply(*self.count_gemini_tokens(model, body))
        status, answer = self.generate_content(model, body)
        if status != 200 or method != "streamGenerateContent":
            return _Reply(status, answer)
        chunks = _gemini_chunks(answer)
        if sse:
            return _Reply(status, events=[(None, chunk) for chunk in chunks])
        return _Reply(status, chunks)  # without ?alt=sse: one JSON array of the chunks


def _gemini_chunks(answer: dict) -> list[dict]:
    """A GenerateContentResponse as the chunks of its stream: text in word pieces (a
    function call whole), each chunk with the prompt's count; the last one carries
    ``finishReason`` and the whole usage."""
    candidate = answer["candidates"][0]
    parts = candidate["content"]["parts"]
    pieces: list[dict] = (
        [{"text": piece} for piece in _pieces(parts[0]["text"])] or [{"text": ""}]
        if "text" in parts[0]
        else parts
    )
    usage = answer["usageMetadata"]
    prompt = {k: usage[k] for k in ("promptTokenCount", "promptTokensDetails")}
    chunks = []
    for index, part in enumerate(pieces):
        last = index == len(pieces) - 1
        chunk_candidate: dict[str, Any] = {"content": {"parts": [part], "role": "model"}}
        if last:
            chunk_candidate["finishReason"] = candidate["finishReason"]
        chunk_candidate["index"] = 0
        chunks.append(
            {
                "candidates": [chunk_candidate],
                "usageMetadata": usage
                if last
                else {**prompt, "totalTokenCount": usage["promptTokenCount"]},
                "modelVersion": answer["modelVersion"],
                "responseId": answer["responseId"],
            }
        )
    return chunks
