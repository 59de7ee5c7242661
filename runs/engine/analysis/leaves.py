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
