"""How a field's value travels as text, shared by every form that shows a stored value for
editing (the new-run form, the fork editor) and by the pages that pre-fill one (grids,
batches): ``field_text`` writes a value into an input, ``normalise`` reads a posted text back
so that only a real edit counts as a change.

May import: nothing of the app (the standard library only).
"""

from __future__ import annotations

import json
from typing import Any


def field_text(value: Any) -> str:
    """How a field's current value is shown in an input: text as is, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return json.dumps(value)


def normalise(text: Any) -> str:
    """Browsers send textareas with CRLF line endings; a field is unchanged if only that differs."""
    return str(text or "").replace("\r\n", "\n")
