"""Plain JSON data written as Python literals in an exported test file.

May import: the standard library only.
"""

from __future__ import annotations

import json
import math
from typing import Any


def inline(value: Any) -> str:
    """Plain JSON data as a one-line Python literal that loads: JSON's ASCII string escapes are
    Python's (a lone surrogate included), and a float JSON would write as ``NaN`` or
    ``Infinity`` — names Python does not know — is written ``float("nan")``."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{inline(str(k))}: {inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return json.dumps(value)


def _expected_literal(expected: dict[int, dict[str, Any]]) -> str:
    lines = ["{"]
    for run, facts in expected.items():
        lines += [
            f"    {run}: {{",
            f'        "trajectory_sha256": {inline(facts["trajectory_sha256"])},',
            f'        "artifact_sha256": {inline(facts["artifact_sha256"])},',
            '        "steps": [',
            *(
                f"            ({seq}, {inline(name)}, {inline(sha)}),"
                for seq, name, sha in facts["steps"]
            ),
            "        ],",
            "    },",
        ]
    return "\n".join([*lines, "}"])


def _changed_literal(changed: list[dict[str, Any]] | None) -> str:
    if changed is None:
        return "None"
    lines = ["["]
    for change in changed:
        lines += [
            "    {",
            f'        "node": {inline(change["node"])},',
            '        "fields": [',
            *(f"            {inline(field)}," for field in change["fields"]),
            "        ],",
            "    },",
        ]
    return "\n".join([*lines, "]"])
