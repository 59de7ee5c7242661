"""A replayed call with no entry explains itself: the recorded call of the same step it most
resembles, and the request fields that differ (``body.messages[1].content`` gained a
timestamp), so a miss says what changed instead of only that something did."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SHOWN_FIELDS = 4
SHOWN_CHARS = 60


def leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a JSON value by its path (``body.messages[1].content``)."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(leaves(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for index, item in enumerate(value):
            out.update(leaves(item, f"{prefix}[{index}]"))
        return out
    return {prefix: value}


def differing(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The paths where two requests differ, in the order of ``a``'s leaves then ``b``'s."""
    mine, theirs = leaves(a), leaves(b)
    paths = list(dict.fromkeys([*mine, *theirs]))
    return [p for p in paths if mine.get(p, _ABSENT) != theirs.get(p, _ABSENT)]


_ABSENT = object()


def _request(entry: Any) -> dict[str, Any]:
    value = getattr(entry, "request", None) or getattr(entry, "args", None)
    return value if isinstance(value, dict) else {}


def _short(value: Any) -> str:
    text = "absent" if value is _ABSENT else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _not_kept(kept: Sequence[int], occurrence: int) -> str:
    times = ", ".join(str(n + 1) for n in sorted(kept))
    return (
        f"the recorded step made this same request and kept its answer at time {times} of "
        f"asking it, not at time {occurrence + 1}: either that attempt got no answer when "
        "recorded (a connection error or a broken answer keeps none) or the step asks more "
        "often than it did"
    )


def _label(described: dict[str, Any]) -> str:
    return f"{described.get('method', '')} {described.get('endpoint', '')}".strip()


def explain(
    described: dict[str, Any],
    recorded: list[Any],
    *,
    occurrence: int = 0,
    kept: Sequence[int] = (),
) -> str:
    """Why a hermetic step's call has no answer: the nearest recorded call and what differs.
    ``kept``: the times of asking (0 the first) at which the recorded step made this very
    request (the same key) and kept an answer; ``occurrence``: which time this one is."""
    head = f"a call the recorded run never made: {_label(described)}"
    if kept:
        return f"{head}; {_not_kept(kept, occurrence)}"
    candidates = [_request(entry) for entry in recorded]
    candidates = [c for c in candidates if c]
    if not candidates:
        return f"{head}; the recorded step made no call to compare it with"
    nearest = min(candidates, key=lambda c: len(differing(described, c)))
    fields = differing(described, nearest)
    if not fields:  # the same request under another key: another provider, code version...
        return (
            f"{head}; the recorded step made this same request, but its answer was kept for "
            "another provider or version of the step's code, so it does not serve this call"
        )
    mine, theirs = leaves(described), leaves(nearest)
    shown = "; ".join(
        f"{path}: {_short(theirs.get(path, _ABSENT))} → {_short(mine.get(path, _ABSENT))}"
        for path in fields[:SHOWN_FIELDS]
    )
    more = f" (and {len(fields) - SHOWN_FIELDS} more)" if len(fields) > SHOWN_FIELDS else ""
    return f"{head}; nearest recorded call {_label(nearest)} differs in {shown}{more}"
