"""JSON typed by a person or sent by a client, read the one way every edge reads it.

The fork editor, the grid form, the new-run form, the command line and the API all take
values as JSON text; they all go through :func:`parse_json`, so a value one accepts no other
refuses. It bounds nesting before parsing (``json.loads`` recurses: a value nested 1,000 deep
is a ``RecursionError``, which no edge may turn into a 500), and refuses ``NaN`` and the
infinities, which are no JSON and no database stores alike.
"""

from __future__ import annotations

import json
import math
from typing import Any

# Arrays and objects inside one another, counting the outermost as 1: an API body may nest
# this deep, so a value — which sits one level down in a body — one level less, everywhere.
MAX_JSON_DEPTH = 32
MAX_VALUE_DEPTH = MAX_JSON_DEPTH - 1


class JSONTextError(ValueError):
    """Why a text is not a JSON value Rewind takes (the message says it)."""


def nesting_depth_exceeds(text: str, limit: int) -> bool:
    """True if arrays/objects in ``text`` nest deeper than ``limit``. A flat scan (brackets
    inside strings do not count), so no text can make it recurse; run before ``json.loads``,
    whose parser does recurse."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value (numbers must be finite)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range (numbers must be finite)")
    return value


def parse_json(text: str, *, depth: int = MAX_VALUE_DEPTH) -> Any:
    """The JSON value ``text`` holds, or :class:`JSONTextError` saying why there is none."""
    if nesting_depth_exceeds(text, depth):
        raise JSONTextError(f"nested deeper than {depth} levels")
    try:
        return json.loads(text, parse_constant=_no_constants, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise JSONTextError(f"not valid JSON ({exc.msg} at position {exc.pos})") from None
    except (ValueError, RecursionError) as exc:
        raise JSONTextError(f"not valid JSON: {exc}") from None


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
