"""Reads and writes of the LLM and tool caches.

Writes are insert-if-absent: under a race the first write wins and later ones are dropped,
so one key never holds two answers. Errors are never cached (callers store only results
that parsed). Live mode never reads, and never overwrites what cache mode will read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from runs.engine.cache_keys import explain_llm_miss, explain_tool_miss, llm_key_parts
from runs.models import LLMCacheEntry, ToolCacheEntry

NEAREST_WINDOW = 25  # recent entries of a node searched for the closest one on a miss


def _touch(model: type[LLMCacheEntry] | type[ToolCacheEntry], pk: int) -> None:
    model.objects.filter(pk=pk).update(hit_count=F("hit_count") + 1, last_hit_at=timezone.now())


def get_llm(key: str, occurrence: int) -> LLMCacheEntry | None:
    entry = LLMCacheEntry.objects.filter(key=key, occurrence=occurrence).first()
    if entry is not None:
        _touch(LLMCacheEntry, entry.pk)
    return entry


def put_llm(**fields: Any) -> None:
    _insert_if_absent(LLMCacheEntry, **fields)


def get_tool(key: str) -> ToolCacheEntry | None:
    entry = ToolCacheEntry.objects.filter(key=key).first()
    if entry is not None:
        _touch(ToolCacheEntry, entry.pk)
    return entry


def put_tool(**fields: Any) -> None:
    _insert_if_absent(ToolCacheEntry, **fields)


def _insert_if_absent(model: Callable[..., Any], **fields: Any) -> None:
    try:
        with transaction.atomic():  # a savepoint, so a lost race leaves the outer work intact
            model.objects.create(**fields)
    except IntegrityError:
        pass  # first write wins


def explain_llm(node_name: str, request: dict[str, Any]) -> str:
    recent = LLMCacheEntry.objects.filter(node_name=node_name).order_by("-id")[:NEAREST_WINDOW]
    mine = llm_key_parts(request)
    best, best_distance = None, None
    for entry in recent:
        theirs = llm_key_parts(entry.request)
        distance = sum(mine[name] != theirs[name] for name in mine)
        if best_distance is None or distance < best_distance:
            best, best_distance = entry.request, distance
    return explain_llm_miss(request, best)


def explain_tool(tool: str, version: str, args: dict[str, Any]) -> str:
    nearest = ToolCacheEntry.objects.filter(tool=tool).order_by("-id").first()
    if nearest is None:
        return explain_tool_miss(version, args, None, None)
    return explain_tool_miss(version, args, nearest.tool_version, nearest.args)
