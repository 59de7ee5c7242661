from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: dict, key: Any) -> Any:
    """``{{ help|get_item:node.cache_source }}``: a dict lookup by a variable key."""
    return mapping.get(key, "") if isinstance(mapping, dict) else ""
