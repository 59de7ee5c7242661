from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django import template

from runs.pages.masking import masked as masked_value

register = template.Library()


@register.filter
def masked(value: Any) -> Any:
    """``{{ run.error|masked }}``: recorded text or JSON as shown, what looks like a secret
    ``[redacted]`` (``runs.pages.masking``); the value itself is left as it is."""
    return masked_value(value)


@register.filter
def get_item(mapping: dict, key: Any) -> Any:
    """``{{ help|get_item:node.cache_source }}``: a dict lookup by a variable key."""
    return mapping.get(key, "") if isinstance(mapping, dict) else ""


@register.filter
def usd(value: Any, places: int = 6) -> str:
    """``{{ node.cost_usd|usd }}``: ``$0.000123``, or ``—`` when the cost is unknown (``None``:
    the answering model has no price). An unknown cost is never shown as $0."""
    if value is None or value == "":
        return "—"
    try:
        return f"${Decimal(str(value)):.{int(places)}f}"
    except (InvalidOperation, ValueError, TypeError):
        return "—"


@register.filter
def compact_json(value: Any, limit: int = 300) -> str:
    """A value as one line of JSON, masked, cut at ``limit`` characters (the whole value is
    shown elsewhere on the page: the state's details)."""
    text = json.dumps(masked_value(value), ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


@register.filter
def thousands(value: Any) -> str:
    """``{{ spend.tokens|thousands }}``: ``1,840`` (the same as the budget's messages)."""
    try:
        return f"{int(value):,}"
    except (ValueError, TypeError):
        return "—"
