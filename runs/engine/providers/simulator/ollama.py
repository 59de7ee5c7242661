"""Ollama's native API (``/api/chat``, ``/api/generate``), answered through the chat
core: the same conversation gets the text ``/chat/completions`` gives."""

from __future__ import annotations

import json
from typing import Any

from .streaming import _pieces, _Reply

_CREATED_AT = "1970-01-01T00:00:00Z"  # fixed, like chat's ``created: 0``: answers compare


def _ollama_error(status: int, message: str, *_: Any) -> tuple[int, dict]:
    """An error body in Ollama's shape: ``{"error": "..."}``."""
    return status, {"error": message}


def _ollama_messages(messages: list[dict]) -> list[dict]:
    """Ollama chat messages as chat-completions ones (``tool_calls`` arguments as JSON
    text, a ``tool`` message's ``tool_name`` as its ``name``)."""
    out: list[dict] = []
    for index, message in enumerate(messages):
        chat: dict[str, Any] = {"role": message["role"], "content": message.get("content") or ""}
        calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if calls:
            chat["tool_calls"] = [
                {
                    "id": str(call.get("id") or f"call_{index}_{n}"),
                    "type": "function",
                    "function": {
                        "name": (call.get("function") or {}).get("name"),
                        "arguments": json.dumps(
                            (call.get("function") or {}).get("arguments") or {},
                            ensure_ascii=False,
                        ),
                    },
                }
                for n, call in enumerate(calls)
            ]
        if message["role"] == "tool":
            if message.get("tool_name"):
                chat["name"] = message["tool_name"]
            if message.get("tool_call_id"):
                chat["tool_call_id"] = message["tool_call_id"]
        out.append(chat)
    return out


def _invalid(body: Any, endpoint: str) -> str | None:
    """Why an ``/api/chat`` or ``/api/generate`` body is invalid (Ollama's wording), or None."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model is required"
    if endpoint == "api/chat":
        messages = body.get("messages")
        if messages is not None and not isinstance(messages, list):
            return "messages must be a list"
        for message in messages or []:
            if not isinstance(message, dict) or not isinstance(message.get("role"), str):
                return "each message needs a role"
            if not isinstance(message.get("content") or "", str):
                return "a message's content must be a string"
    else:
        for key in ("prompt", "system"):
            if body.get(key) is not None and not isinstance(body[key], str):
                return f"{key} must be a string"
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        return "options must be an object"
    temperature = (options or {}).get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float)
    ):
        return "option temperature must be a number"
    if body.get("stream") is not None and not isinstance(body["stream"], bool):
        return "stream must be a boolean"
    return None


def _timings(prompt_tokens: int, eval_tokens: int) -> dict:
    """Counts and (fixed, non-zero: clients divide by them) durations in nanoseconds."""
    load, prompt, evaluate = 1_000_000, prompt_tokens * 200_000, eval_tokens * 10_000_000
    return {
        "total_duration": load + prompt + evaluate,
        "load_duration": load,
        "prompt_eval_count": prompt_tokens,
        "prompt_eval_duration": prompt,
        "eval_count": eval_tokens,
        "eval_duration": evaluate,
    }


class _OllamaAPI:
    """The Ollama endpoints of :class:`~.server.Simulator` (a mixin): the answer comes
    from the simulator's chat core, ``self.respond``."""

    def _ollama_chat(self, endpoint: str, body: dict) -> dict:
        """The chat-completions body that a valid request stands for: model, messages and
        temperature (so the text is chat's for those), tools, a ``format``."""
        if endpoint == "api/chat":
            messages = _ollama_messages(body.get("messages") or [])
        else:
            messages = [{"role": "user", "content": body.get("prompt") or ""}]
            if body.get("system"):
                messages.insert(0, {"role": "system", "content": body["system"]})
        chat: dict[str, Any] = {"model": body["model"], "messages": messages}
        temperature = (body.get("options") or {}).get("temperature")
        if temperature is not None:
            chat["temperature"] = temperature
        if endpoint == "api/chat" and body.get("tools"):
            chat["tools"] = body["tools"]
        fmt = body.get("format")
        if isinstance(fmt, dict):
            chat["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": fmt},
            }
        elif fmt == "json":
            chat["response_format"] = {"type": "json_object"}
        return chat

    def respond_ollama(self, endpoint: str, body: dict) -> tuple[int, dict]:
        """Answer ``/api/chat`` (``endpoint="api/chat"``) or ``/api/generate`` with
        ``(status, the final, whole response object)``."""
        problem = _invalid(body, endpoint)
        if problem is not None:
            return _ollama_error(400, problem)
        model = self._model(body)
        loading = not body.get("messages") if endpoint == "api/chat" else not body.get("prompt")
        if loading:  # Ollama answers an empty request by loading the model
            fault = self._fault()
            if fault is not None:
                return _ollama_error(fault[0], str(fault[1]["error"]["message"]))
            head = {"model": model, "created_at": _CREATED_AT}
            if endpoint == "api/chat":
                head["message"] = {"role": "assistant", "content": ""}
            else:
                head["response"] = ""
            return 200, {**head, "done_reason": "load", "done": True}
        status, answer = self.respond(self._ollama_chat(endpoint, body))
        if status != 200:
            return _ollama_error(status, str(answer["error"]["message"]))
        message = answer["choices"][0]["message"]
        usage = answer["usage"]
        out: dict[str, Any] = {"model": answer["model"], "created_at": _CREATED_AT}
        if endpoint == "api/chat":
            out["message"] = {"role": "assistant", "content": message["content"] or ""}
            calls = message.get("tool_calls") or []
            if calls:
                out["message"]["tool_calls"] = [
                    {
                        "function": {
                            "name": call["function"]["name"],
                            "arguments": json.loads(call["function"]["arguments"] or "{}"),
                        }
                    }
                    for call in calls
                ]
        else:
            out["response"] = message["content"] or ""
        return 200, {
            **out,
            "done_reason": "stop",
            "done": True,
            **_timings(usage["prompt_tokens"], usage["completion_tokens"]),
        }

    def _answer_ollama(self, endpoint: str, body: Any) -> _Reply:
        status, answer = self.respond_ollama(endpoint, body)
        if status != 200 or body.get("stream") is False:  # Ollama streams unless told not to
            return _Reply(status, answer)
        return _Reply(status, lines=_ollama_lines(answer))


def _ollama_lines(answer: dict) -> list[dict]:
    """A whole response as the NDJSON lines of its stream: text in word pieces (tool
    calls whole, in one line), then the final ``done: true`` line with the counts."""
    if answer.get("done_reason") == "load":
        return [answer]
    head = {"model": answer["model"], "created_at": answer["created_at"]}
    lines: list[dict] = []
    final = {k: v for k, v in answer.items() if k not in ("message", "response")}
    if "message" in answer:
        message = answer["message"]
        for piece in _pieces(message["content"]):
            lines.append(
                {**head, "message": {"role": "assistant", "content": piece}, "done": False}
            )
        if message.get("tool_calls"):
            part = {"role": "assistant", "content": "", "tool_calls": message["tool_calls"]}
            lines.append({**head, "message": part, "done": False})
        final = {**head, "message": {"role": "assistant", "content": ""}, **final}
    else:
        for piece in _pieces(answer["response"]):
            lines.append({**head, "response": piece, "done": False})
        final = {**head, "response": "", **final}
    return lines + [final]
