"""The leaves of a value and their paths (``groups.A.cost``, ``sections[2]``, ``["odd key"]``).

What a diff compares and what a noise verdict judges: both name a changed field by the same
path, so they share this one definition.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: How the root path ``""`` (a scalar output, or an empty container at the root) is shown
#: to people. The data keeps ``""`` so that prefixes compose without a special case.
ROOT_LABEL = "(value)"

# A dict key that can be written bare in a dotted path. Anything else (a key containing
# ``.``, ``[``, spaces, an empty key…) is written as ``["key"]`` so that two distinct
# leaves can never render to the same path (``{"a.b": 1}`` vs ``{"a": {"b": 1}}``).
_BARE_KEY = re.compile(r"^[A-Za-z0-9_\-]+$")


def key_path(prefix: str, key: Any) -> str:
    key = str(key)
    if _BARE_KEY.match(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}[{json.dumps(key, ensure_ascii=False)}]"


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Map every leaf of ``value`` to its path, in the order the leaves appear.

    Paths: dict keys joined with ``.`` (``groups.A.cost_per_conversion``), list items as
    ``[i]`` (``sections[2]``, ``a.b[2].c``); a key that is not a plain identifier is quoted
    as ``["odd key"]`` so that paths stay unambiguous. A scalar at the root has path ``""``
    (shown as ``(value)`` by :func:`format_diff`).

    Empty dicts and lists are leaves in their own right: without that, ``{}`` → ``[]`` or
    ``{"tags": []}`` → ``{}`` would flatten to the same (empty) set of leaves and the change
    would be invisible even though the output hash differs.
    """
    out: dict[str, Any] = {}
    _flatten_into(value, prefix, out)
    return out


def _flatten_into(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten_into(item, key_path(prefix, key), out)
    elif isinstance(value, list | tuple) and value:
        for index, item in enumerate(value):
            _flatten_into(item, f"{prefix}[{index}]", out)
    else:
        out[prefix] = value


class PathError(ValueError):
    """A leaf path that does not parse; the message says where."""


# One step of a path after its first key: ``.key``, ``[3]`` or ``["odd key"]``.
_STEP = re.compile(r'\.([A-Za-z0-9_\-]+)|\[(\d{1,9})\]|\[("(?:[^"\\]|\\.)*")\]')
_FIRST = re.compile(r"[A-Za-z0-9_\-]+")


def parse_path(text: str) -> tuple[str | int, ...]:
    """The keys (``str``) and list indexes (``int``) of a path :func:`flatten` writes, in
    order: ``groups.A.cost`` → ``("groups", "A", "cost")``, ``a.b[2]["x y"]`` →
    ``("a", "b", 2, "x y")``; ``""`` is the root (``()``). The inverse of :func:`flatten`'s
    paths, so a leaf a diff names can be asked for by the same path."""
    parts: list[str | int] = []
    at = 0
    if text and text[0] != "[":
        first = _FIRST.match(text)
        if first is None:
            raise PathError(f"{text!r}: a path starts with a key (letters, digits, _ or -)")
        parts.append(first.group(0))
        at = first.end()
    while at < len(text):
        step = _STEP.match(text, at)
        if step is None:
            raise PathError(
                f"{text!r}: cannot read {text[at : at + 20]!r} at character {at + 1} "
                '(expected .key, [index] or ["key"])'
            )
        bare, index, quoted = step.groups()
        if bare is not None:
            parts.append(bare)
        elif index is not None:
            parts.append(int(index))
        else:
            try:
                parts.append(str(json.loads(quoted)))
            except ValueError:
                raise PathError(f"{text!r}: {quoted} is not a JSON string") from None
        at = step.end()
    return tuple(parts)


MISSING = object()  # what :func:`leaf_at` gives for a path that leads nowhere


def leaf_at(value: Any, parts: tuple[str | int, ...]) -> tuple[Any, str]:
    """``(leaf, "")`` — the value at ``parts`` inside ``value`` — or ``(MISSING, why)``: a key
    that is not there, an index past the end, a key asked of something that is no object.
    A key reads an object (dict) only and an index a list only, as :func:`flatten` writes
    them."""
    path = ""
    for part in parts:
        if isinstance(part, int):
            here = f"{path}[{part}]"
            if not isinstance(value, list | tuple):
                return MISSING, f"{path or 'the value'} is not a list"
            if part >= len(value):
                return MISSING, f"{path or 'the list'} has {len(value)} item(s), no [{part}]"
            value = value[part]
        else:
            here = key_path(path, part)
            if not isinstance(value, dict):
                return MISSING, f"{path or 'the value'} is not an object"
            if part not in value:
                return MISSING, f"no {here}"
            value = value[part]
        path = here
    return value, ""
