"""Content-addressed cache keys (DESIGN.md, "LLM cache key" and "Tool cache key").

A key covers every request parameter that can change an answer and nothing else: never the
API key, the base URL, a run id or a timestamp. That is what lets an unchanged replay hit
every entry, and a cached run replay against a dead provider. What answers — the offline
simulator or an endpoint (``PROVIDER_IDENTITIES``) — does change the answer, so it is part of
an LLM key: a simulator's answer is never served as a real model's, nor the reverse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runs.lib.hashing import canonical_json, length_prefixed, sha256_text

# Bump when the key layout changes: old entries become misses, never wrong hits.
LLM_KEY_VERSION = "rewind-llm-key/2"  # 2: the provider identity is a component
TOOL_KEY_VERSION = "rewind-tool-key/1"

# What answered a call: Rewind's offline simulator, or an endpoint (any base URL: the URL itself
# is not part of a key, so a cached run replays against a moved or dead provider).
PROVIDER_IDENTITIES = ("simulator", "endpoint")

# Order matters: it is the order the parts are hashed in, and the order a miss is explained in.
LLM_KEY_COMPONENTS = (
    "provider",
    "model",
    "temperature",
    "messages",
    "response_format",
    "seed",
    "max_tokens",
    "stop",
    "top_p",
    "tools",
    "tool_choice",
    "tool_result",
    "code_version",
)


def llm_key_parts(request: Mapping[str, Any]) -> dict[str, str]:
    """The string form of each key component of an LLM request.

    ``request`` holds the components named in ``LLM_KEY_COMPONENTS``; missing ones are None.
    Temperature goes through ``repr(float(t))`` so 0, 0.0 and "0" are one key.
    """
    parts: dict[str, str] = {}
    for name in LLM_KEY_COMPONENTS:
        value = request.get(name)
        if name == "temperature":
            parts[name] = repr(float(value if value is not None else 0.0))
        elif name in {"provider", "model", "code_version"}:
            parts[name] = str(value or "")
        else:
            parts[name] = canonical_json(value)
    return parts


def llm_cache_key(request: Mapping[str, Any]) -> str:
    parts = llm_key_parts(request)
    return sha256_text(length_prefixed([LLM_KEY_VERSION, *parts.values()]))


def tool_cache_key(tool: str, version: str, args: Mapping[str, Any]) -> str:
    """sha256 of (tool name | tool version | canonical args).

    ``args`` must already include the sha256 of every data file the tool reads, so a changed
    dataset is a miss rather than a stale hit.
    """
    return sha256_text(length_prefixed([TOOL_KEY_VERSION, tool, version, canonical_json(args)]))


def explain_llm_miss(request: Mapping[str, Any], nearest: Mapping[str, Any] | None) -> str:
    """Name the components in which ``request`` differs from the nearest cached request."""
    if nearest is None:
        return "no cached call for this node yet"
    mine, theirs = llm_key_parts(request), llm_key_parts(nearest)
    changed = [name for name in LLM_KEY_COMPONENTS if mine[name] != theirs[name]]
    if not changed:
        return "same request, new occurrence in this run"
    return "updated input: " + ", ".join(changed)


def explain_tool_miss(
    version: str, args: Mapping[str, Any], nearest_version: str | None, nearest_args: Any
) -> str:
    if nearest_version is None:
        return "no cached result for this tool yet"
    changed = []
    if version != nearest_version:
        changed.append("tool version")
    if isinstance(nearest_args, Mapping):
        keys = sorted(set(args) | set(nearest_args))
        changed += [
            f"args.{k}"
            for k in keys
            if canonical_json(args.get(k)) != canonical_json(nearest_args.get(k))
        ]
    return "updated input: " + ", ".join(changed) if changed else "same call"
