"""The Responses API (``/responses``), answered through the chat core."""

from __future__ import annotations

from typing import Any

from .prose import _message_text
from .protocol import _error
from .streaming import _pieces
from .tools import _function_tools


def _responses_input(body: dict) -> list[dict]:
    """A Responses API request's ``instructions`` and ``input`` as chat messages."""
    messages: list[dict] = []
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        messages.append({"role": "system", "content": body["instructions"]})
    items = body.get("input")
    if isinstance(items, str):
        return messages + [{"role": "user", "content": items}]
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and isinstance(item.get("role"), str):
            messages.append({"role": item["role"], "content": _message_text(item.get("content"))})
        elif kind == "function_call":
            call = {
                "id": str(item.get("call_id") or item.get("id") or ""),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments", "")},
            }
            last = messages[-1] if messages else None
            if last and last.get("role") == "assistant" and last.get("tool_calls"):
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": str(item.get("call_id") or ""),
                    "content": output if isinstance(output, str) else _message_text(output),
                }
            )
    return messages


class _ResponsesAPI:
    """The ``/responses`` endpoint of :class:`~.server.Simulator` (a mixin): its
    answer comes from the simulator's chat core, ``self.respond``."""

    def respond_responses(self, body: dict) -> tuple[int, dict]:
        """Answer a Responses API body (``/responses``) through the chat core."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        messages = _responses_input(body)
        if not any(m.get("role") in ("user", "tool") for m in messages):
            return _error(400, "'input' must be a string or a list holding a user message")
        chat: dict[str, Any] = {
            k: v
            for k, v in body.items()
            if k not in ("input", "instructions", "text", "tools", "tool_choice", "stream")
        }
        chat["messages"] = messages
        if "tools" in body:
            chat["tools"] = [
                {"type": "function", "function": t} for t in _function_tools(body.get("tools"))
            ]
        if "tool_choice" in body:
            chat["tool_choice"] = body["tool_choice"]
        text = body.get("text")
        if isinstance(text, dict) and isinstance(text.get("format"), dict):
            if text["format"].get("type") != "text":
                chat["response_format"] = text["format"]
        status, answer = self.respond(chat)
        if status != 200:
            return status, answer
        message = answer["choices"][0]["message"]
        suffix = answer["id"].removeprefix("chatcmpl-sim-")
        output: list[dict] = []
        for call in message.get("tool_calls") or []:
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call['id'].removeprefix('call_')}",
                    "call_id": call["id"],
                    "name": call["function"]["name"],
                    "arguments": call["function"]["arguments"],
                    "status": "completed",
                }
            )
        if not output:
            output.append(
                {
                    "type": "message",
                    "id": f"msg_sim_{suffix}",
                    "status": "completed",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": message["content"] or "", "annotations": []}
                    ],
                }
            )
        usage = answer["usage"]
        return 200, {
            "id": f"resp_sim_{suffix}",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": answer["model"],
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "temperature": body.get("temperature", 1.0),
            "top_p": body.get("top_p", 1.0),
            "instructions": body.get("instructions"),
            "metadata": body.get("metadata") or {},
            "error": None,
            "incomplete_details": None,
            "text": body.get("text") or {"format": {"type": "text"}},
            "usage": {
                "input_tokens": usage["prompt_tokens"],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage["completion_tokens"],
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": usage["total_tokens"],
            },
        }

    @staticmethod
    def _responses_events(response: dict) -> list[tuple[str | None, Any]]:
        """A Responses API answer as the events of its stream."""
        events: list[tuple[str | None, Any]] = []

        def emit(kind: str, **data: Any) -> None:
            events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

        emit("response.created", response={**response, "status": "in_progress", "output": []})
        emit("response.in_progress", response={**response, "status": "in_progress", "output": []})
        for index, item in enumerate(response["output"]):
            if item["type"] == "function_call":
                emit(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "arguments": "", "status": "in_progress"},
                )
                for piece in _pieces(item["arguments"]):
                    emit(
                        "response.function_call_arguments.delta",
                        item_id=item["id"],
                        output_index=index,
                        delta=piece,
                    )
                emit(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=index,
                    arguments=item["arguments"],
                    name=item["name"],
                )
            else:
                text = item["content"][0]["text"]
                emit(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "content": [], "status": "in_progress"},
                )
                part = {"type": "output_text", "text": "", "annotations": []}
                emit(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=part,
                )
                for piece in _pieces(text):
                    emit(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                emit(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    text=text,
                    logprobs=[],
                )
                emit(
                    "response.content_part.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part={**part, "text": text},
                )
            emit("response.output_item.done", output_index=index, item=item)
        emit("response.completed", response=response)
        return events
