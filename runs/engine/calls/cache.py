"""Reads and writes of the LLM and tool caches.

LLM answers: every distinct answer a (key, occurrence) ever got is its own entry. A lookup
takes the entry the source step pinned when it made the same call (so a replay of a live or
sampled run reproduces it), else the key's first entry that is an answer. Tool results are
insert-if-absent: under a race the first write wins. A failed attempt (a 429, a 5xx) is kept as
what that attempt got, for the runs that pin it, and never read as an answer; other errors are
never stored (callers store only results that parsed). Live mode never reads, and never replaces what cache mode will read.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import connection
from django.utils import timezone

from runs.engine.calls.keys import explain_llm_miss, explain_tool_miss, llm_key_parts
from runs.lib.hashing import content_sha256
from runs.models import LLMCacheEntry, ToolCacheEntry
from runs.models.sql import insert_all_if_new, insert_if_new

NEAREST_WINDOW = 25  # recent entries of a node searched for the closest one on a miss


Entry = LLMCacheEntry | ToolCacheEntry


def _read(
    model: type[Entry], key: str, occurrence: int | None, pinned: Entry | None
) -> Entry | None:
    """What to read for (key, occurrence): the pinned entry — loaded with the run's pins, so a
    replayed call costs no query — if it is one of this key's, else the first one the key got
    (at that occurrence; at any, when ``occurrence`` is None). Reading never writes: hits are
    counted once, at the end of the run (``count_hits``)."""
    if isinstance(pinned, model) and (pinned.key, pinned.occurrence) == (key, occurrence):
        return pinned
    # A failed attempt (``failed``) is what one run's attempt got, never an answer for another.
    found = model.objects.filter(key=key, failed=False)
    if occurrence is not None:
        found = found.filter(occurrence=occurrence)
    return found.order_by("id").first()


def _entry(model: type[Entry], value_field: str, fields: dict[str, Any]) -> Entry:
    fields.setdefault("occurrence", 0)
    fields[f"{value_field}_sha256"] = content_sha256(fields[value_field])
    return model(**fields)


def _unique(value_field: str) -> tuple[str, ...]:
    return ("key", "occurrence", f"{value_field}_sha256")


def _keep(model: type[Entry], value_field: str, fields: dict[str, Any]) -> Entry:
    """Store an answer unless this (key, occurrence) already has the very same one; returns
    the entry that holds it, for the step to pin."""
    # A new answer is the common case: insert it (no read first); the unique constraint on
    # (key, occurrence, answer) turns a known answer into the one entry that holds it.
    return insert_if_new(_entry(model, value_field, fields), _unique(value_field))


def keep_all(llm: list[dict[str, Any]], tool: list[dict[str, Any]]) -> list[Entry]:
    """``put_llm`` for each of ``llm`` and ``put_tool`` for each of ``tool`` (many steps'
    answers: a recorded program's batch), each kind in one INSERT and one SELECT at most;
    the entries in that order."""
    kept: list[Entry] = []
    for model, value_field, rows in (
        (LLMCacheEntry, "response", llm),
        (ToolCacheEntry, "result", tool),
    ):
        entries = [_entry(model, value_field, fields) for fields in rows]
        insert_all_if_new(entries, _unique(value_field))
        kept.extend(entries)
    return kept


def get_llm(key: str, occurrence: int | None, pinned: Entry | None = None) -> LLMCacheEntry | None:
    return _read(LLMCacheEntry, key, occurrence, pinned)


def put_llm(**fields: Any) -> LLMCacheEntry:
    return _keep(LLMCacheEntry, "response", fields)


def get_tool(
    key: str, occurrence: int | None = 0, pinned: Entry | None = None
) -> ToolCacheEntry | None:
    return _read(ToolCacheEntry, key, occurrence, pinned)


def put_tool(**fields: Any) -> ToolCacheEntry:
    return _keep(ToolCacheEntry, "result", fields)


def count_hits(hits: Counter) -> None:
    """Add a run's cache hits to the entries' counts, once at the end of the run (a step's
    own transaction carries no bookkeeping). ``hits`` counts pins ("llm:<id>"/"tool:<id>")."""
    by_table: dict[tuple[str, int], list[int]] = {}
    for pin, times in hits.items():
        table, _, pk = pin.partition(":")
        by_table.setdefault((table, times), []).append(int(pk))
    now = timezone.now()
    for (table, times), ids in by_table.items():
        model = LLMCacheEntry if table == "llm" else ToolCacheEntry
        # The statement ``filter(pk__in=ids).update(hit_count=F("hit_count") + times, ...)``
        # sends, without the ORM building it: 0.2 ms instead of 0.67 (measured, SQLite).
        quote = connection.ops.quote_name
        count, last = quote("hit_count"), quote("last_hit_at")
        sql = "UPDATE {} SET {} = {} + %s, {} = %s WHERE {} IN ({})".format(
            quote(model._meta.db_table), count, count, last,
            quote(model._meta.pk.column), ", ".join(["%s"] * len(ids)),
        )  # fmt: skip
        stamp = model._meta.get_field("last_hit_at").get_db_prep_save(now, connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, [times, stamp, *ids])


def pinned_pk(pinned: str | None, table: str) -> int | None:
    """The id in a pin ("llm:12") when it names an entry of ``table``."""
    if not pinned or not pinned.startswith(f"{table}:"):
        return None
    return int(pinned.split(":", 1)[1])


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
