"""What recorded content is shown as (DESIGN.md, "Exact and private"): a string that looks like
a secret is kept exactly and sealed at rest, and masked wherever a person or a tool reads it —
the pages, the admin, the JSON API. The rules are the capture's own
(``runs.engine.calls.capture.redaction``); nothing here detects anything by itself.

Every function returns a new value and never touches the one it is given: the rows a page
shows are the rows replays, forks and diffs read.
"""

from __future__ import annotations

from typing import Any

from runs.engine.calls.capture.redaction import redact_answer, redact_body, redact_text
from runs.lib.jsontext import pretty_json


def masked(value: Any) -> Any:
    """A JSON value (or a text) as shown: what looks like a secret in its strings, a
    credential's query parameter, a path's random piece and a field named as a credential
    read ``[redacted]``; everything else as stored."""
    if isinstance(value, str):
        return redact_text(value) if value else value
    return redact_body(value)


def masked_json(value: Any) -> str:
    """``value`` masked, pretty-printed as the inspector shows JSON."""
    return pretty_json(masked(value))


def masked_answer(text: str) -> str:
    """A raw answer's body as shown: its JSON credential fields too (a token an endpoint
    handed out, sealed at rest by its name rather than its shape)."""
    return redact_answer(text) if text else text


def masked_stored(value: Any) -> Any:
    """A cache entry's stored request, answer or result as shown: a captured answer's body
    (``text``) through ``masked_answer``, the rest through ``masked``."""
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        # Its own keys are the store's (status, headers, text): none names a credential.
        return {k: masked_answer(v) if k == "text" else masked(v) for k, v in value.items()}
    return masked(value)
