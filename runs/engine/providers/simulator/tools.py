"""Function tools: whether and which to call, and the answer after their results."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from .matching import _bag, _best
from .prose import _join, _last_user, _message_text, _numbers, _salient_words
from .schemas import _SchemaFiller
from .shapes import _content_words

# -- tools -------------------------------------------------------------------------------


@dataclass
class _ToolCall:
    id: str
    name: str
    arguments: str


def _function_tools(tools: Any) -> list[dict]:
    """``{"name", "description", "parameters"}`` of every function tool, in either the
    Chat Completions shape (``{"type": "function", "function": {...}}``) or the
    Responses shape (``{"type": "function", "name": ...}``)."""
    found = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict) or tool.get("type", "function") != "function":
            continue
        fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if isinstance(fn.get("name"), str) and fn["name"]:
            found.append(
                {
                    "name": fn["name"],
                    "description": str(fn.get("description") or ""),
                    "parameters": fn.get("parameters")
                    if isinstance(fn.get("parameters"), dict)
                    else {"type": "object", "properties": {}},
                }
            )
    return found


def _describe_tool(tool: dict) -> str:
    params = tool["parameters"].get("properties")
    names = " ".join(params) if isinstance(params, dict) else ""
    return f"{tool['name'].replace('_', ' ')} {tool['description']} {names}"


def _tool_plan(body: dict, messages: list[dict]) -> tuple[list[dict], str | None] | None:
    """``(candidate tools, forced name or None)`` when this request should answer with a
    tool call, else None. Raises ValueError for a ``tool_choice`` naming no given tool."""
    tools = _function_tools(body.get("tools"))
    if not tools:
        return None
    choice = body.get("tool_choice", "auto")
    forced: str | None = None
    required = False
    if choice == "none":
        return None
    if choice == "required":
        required = True
    elif isinstance(choice, dict):
        if choice.get("type") == "allowed_tools":
            allowed = (
                choice.get("allowed_tools")
                if isinstance(choice.get("allowed_tools"), dict)
                else choice
            )
            names = {
                t.get("name") or (t.get("function") or {}).get("name")
                for t in allowed.get("tools") or []
                if isinstance(t, dict)
            }
            tools = [t for t in tools if t["name"] in names] or tools
            required = allowed.get("mode") == "required"
        else:
            fn = choice.get("function") if isinstance(choice.get("function"), dict) else choice
            forced = fn.get("name") if isinstance(fn.get("name"), str) else None
            if forced is not None and forced not in {t["name"] for t in tools}:
                raise ValueError(f"tool_choice names '{forced}', which is not among the tools")
            required = True
    last = messages[-1] if messages else {}
    if not required and isinstance(last, dict) and last.get("role") in ("tool", "function"):
        return None  # the tool answered: now answer the user
    return tools, forced


def _tool_call(
    tools: list[dict], forced: str | None, messages: list[dict], rng: random.Random, call_id: str
) -> _ToolCall:
    user = _last_user(messages)
    if forced is not None:
        tool = next(t for t in tools if t["name"] == forced)
    else:
        names = [t["name"] for t in tools]
        chosen = _best(names, _bag(user), rng, describe=[_describe_tool(t) for t in tools])
        tool = tools[names.index(chosen)]
    schema = tool["parameters"]
    arguments = _SchemaFiller(schema, rng, user, all_properties=False).value(schema)
    if not isinstance(arguments, dict):
        arguments = {}
    return _ToolCall(call_id, tool["name"], json.dumps(arguments, ensure_ascii=False))


def _flatten(value: Any, prefix: str = "") -> list[str]:
    """``key value`` facts of a parsed tool result (numbers kept verbatim)."""
    if isinstance(value, dict):
        facts = []
        for key, item in value.items():
            label = f"{prefix} {key}".strip().replace("_", " ")
            facts.extend(_flatten(item, label))
        return facts
    if isinstance(value, list):
        if all(not isinstance(v, dict | list) for v in value):
            shown = ", ".join(_scalar(v) for v in value)
            return [f"{prefix} {shown}".strip()] if value else []
        return [fact for item in value for fact in _flatten(item, prefix)]
    return [f"{prefix} {_scalar(value)}".strip()]


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _quote_result(name: str, text: str) -> str:
    try:
        parsed = json.loads(text, parse_float=str, parse_int=str)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict | list) and parsed:
        facts = _flatten(parsed)
        shown = _join(facts[:10])
        missing = [n for n in _numbers(text) if n not in shown]
        if missing:
            shown += f" (also {_join(missing)})"
        return f"According to {name}, {shown}."
    flat = " ".join(text.split())
    if not flat:
        return f"{name} returned nothing."
    if len(flat) <= 240:
        return f'According to {name}: "{flat}".'
    nums = _numbers(flat)
    figures = f", with the figures {_join(nums)}" if nums else ""
    return f"According to {name}, the result covers {_join(_salient_words(flat, 5))}{figures}."


def _tool_result_answer(messages: list[dict], rng: random.Random) -> str:
    """Prose after ``role: tool`` results: quotes each result, then closes on the request."""
    names: dict[str, str] = {}
    for m in messages:
        for call in (m.get("tool_calls") or []) if isinstance(m, dict) else []:
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                names[str(call.get("id"))] = str(call["function"].get("name") or "the tool")
    results = []
    for m in reversed(messages):
        if not isinstance(m, dict) or m.get("role") not in ("tool", "function"):
            break
        results.insert(0, m)
    parts = [
        _quote_result(
            names.get(str(m.get("tool_call_id"))) or str(m.get("name") or "the tool"),
            _message_text(m.get("content")).strip(),
        )
        for m in results
    ]
    words = _content_words(_last_user(messages))
    w = (words * 2)[:2]
    closing = rng.choice(
        (
            f"That answers the question about {_join(dict.fromkeys(w))}.",
            f"This is what the request on {w[0]} needed.",
            f"Those results settle the point about {w[0]}.",
        )
    )
    return " ".join(parts + [closing])
