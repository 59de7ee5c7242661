"""The fixture's tables: the rows replaying runs offline reads, and the columns each carries.

Shared by a run's export (``build``) and a batch's suite (``batches/suite.py``). May import
``runs.models``, ``runs.engine.execution``, ``calls.capture.redaction`` and the export's
``files``.

An export leaves Rewind's database, where content that looks like a secret (a private key, a
token in a prompt or an answer) is kept exactly but encrypted: a fixture carries such a value
masked (``[redacted]``, the rules every page shows it by), and says so — ``fixture["masked"]``
names each row and column, and the steps that read one will not replay as recorded (their
tests fail there). Every other value is carried exactly.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models

from runs.engine.analysis.export.files import ExportError
from runs.engine.calls.capture import redaction
from runs.engine.execution.persister import PARTITION_KEY
from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry

# The columns a fixture carries, per table. Explicit rather than "every field": a fixture is a
# contract with the tests already exported, and timestamps, heartbeats, hit counts and server
# paths mean nothing in another database (columns added later keep their defaults there).
RUN_FIELDS = (
    "id",
    "pipeline",
    "inputs",
    "provider",  # a snapshot: model, temperature, preset, base URL without credentials
    "status",
    "error",
    "parent_id",
    "root_id",
    "fork_node",
    "fork_sequence_id",
    "override",
    "turns",
    "halt",
    "mode",
    "artifact_sha256",
    "trajectory_sha256",
)
NODE_FIELDS = (
    "run_id",
    "sequence_id",
    "name",
    "kind",
    "status",
    "inputs",
    "output",
    "output_sha256",
    "prompt",
    "model_requested",
    "model_answered",
    "temperature",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cost_usd",
    "cache_source",
    "cache_key",
    "cache_entries",
    "calls",
    "code_version",
    "values_read",  # what a step's code read from the clock and randomness: replayed too
    "cache_note",
    "src_run_id",
    "src_sequence_id",
    "error",
    "raw_output",
)
EDGE_FIELDS = ("run_id", "sequence_id", "from_node", "to_node", "condition")
STATE_FIELDS = ("partition_key", "app_id", "sequence_id", "position", "status", "state")
LLM_FIELDS = (
    "id",
    "key",
    "occurrence",
    "node_name",
    "model_requested",
    "model_answered",
    "request",
    "response",
    "response_sha256",
    "usage",
)
TOOL_FIELDS = (
    "id",
    "key",
    "occurrence",
    "tool",
    "tool_version",
    "args",
    "result",
    "result_sha256",
)


# The columns of each table that hold recorded content: where a secret may stand.
CONTENT_FIELDS = {
    "runs": ("inputs", "override", "turns", "error"),
    "nodes": ("inputs", "output", "prompt", "error", "raw_output", "calls"),
    "burr_state": ("state",),
    "llm_cache": ("request", "response"),
    "tool_cache": ("args", "result"),
}


def _row(obj: models.Model, fields: tuple[str, ...]) -> dict[str, Any]:
    row = {}
    for name in fields:
        value = getattr(obj, name)
        row[name] = str(value) if isinstance(value, Decimal) else value
    return row


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _texts(item)]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    return []


def holds_secret(value: Any) -> bool:
    """Whether a recorded value holds what looks like a secret: a known shape in any of its
    strings, or a stored answer handing out a credential by name (sealed at rest by it)."""
    return any(
        redaction.shapes_in(text) or redaction.holds_named_secret(text) for text in _texts(value)
    )


def masked(value: Any) -> Any:
    """``value`` as an export carries it when it holds a secret: as the pages show it."""
    if isinstance(value, dict) and isinstance(value.get("text"), str):  # a stored answer
        return {
            k: redaction.redact_answer(v) if k == "text" else masked(v) for k, v in value.items()
        }
    if isinstance(value, str):
        return redaction.redact_text(value)
    return redaction.redact_body(value)


def _masked_columns(table: str, row: dict[str, Any]) -> list[str]:
    """Mask ``row``'s content columns that hold a secret, in place; their names."""
    hit = [name for name in CONTENT_FIELDS[table] if name in row and holds_secret(row[name])]
    for name in hit:
        row[name] = masked(row[name])
    return hit


def _step(node: Node | dict[str, Any]) -> str:
    get = node.get if isinstance(node, dict) else lambda name: getattr(node, name)
    return f"run {get('run_id')} step {get('sequence_id')} ({get('name')})"


def masked_rows(
    tables: dict[str, Any], readers: dict[tuple[str, int], Node] | None = None
) -> list[str]:
    """Mask, in place, every content column of ``tables`` that holds a secret; one line per
    row masked, naming it, its columns and — for a cache entry — the step that reads it."""
    readers = readers or {}
    lines = []
    for run in tables["runs"]:
        if hit := _masked_columns("runs", run):
            lines.append(f"run {run['id']}: {', '.join(hit)} (every step it runs)")
    for node in tables["nodes"]:
        if hit := _masked_columns("nodes", node):
            lines.append(f"{_step(node)}: {', '.join(hit)}")
    for state in tables["burr_state"]:
        if hit := _masked_columns("burr_state", state):
            lines.append(
                f"the Burr state of run {state['app_id']} after step {state['sequence_id']}, "
                "which a fork starts from (every step after it)"
            )
    for table, kind in (("llm_cache", "llm"), ("tool_cache", "tool")):
        for entry in tables[table]:
            if hit := _masked_columns(table, entry):
                reader = readers.get((kind, entry["id"]))
                by = f"{_step(reader)}, which reads " if reader is not None else ""
                lines.append(f"{by}{kind} cache entry {entry['id']}: {', '.join(hit)}")
    return lines


def fixture_tables(replayed: list[Run]) -> dict[str, Any]:
    """What replaying each of ``replayed`` offline reads: the tables ``load_fixture`` (in the
    exported file) loads into the throwaway database, and the pipelines to register."""
    ids = [each.pk for each in replayed]
    nodes = list(Node.objects.filter(run_id__in=ids).order_by("run_id", "sequence_id"))
    edges = list(Edge.objects.filter(run_id__in=ids).order_by("run_id", "sequence_id"))
    runs = _runs_needed(set(ids) | {n.src_run_id for n in nodes})
    entries, readers = _pinned_entries(nodes)
    tables = {
        # The registry entry of each pipeline, so the test can set REWIND_PIPELINES.
        "pipelines": _registry({r.pipeline for r in runs}),
        "runs": [_row(r, RUN_FIELDS) for r in runs],
        "nodes": [_row(n, NODE_FIELDS) for n in nodes],
        "edges": [_row(e, EDGE_FIELDS) for e in edges],
        "burr_state": [_row(s, STATE_FIELDS) for s in _start_states(replayed, nodes)],
        **entries,
    }
    # What the fixture carries masked, and so which steps will not replay as recorded.
    tables["masked"] = masked_rows(tables, readers)
    return tables


def _runs_needed(wanted: set[int]) -> list[Run]:
    """``wanted`` and every run they point at (parent, root), transitively: the rows the
    foreign keys need, and the ancestors whose overrides a replay applies again."""
    found: dict[int, Run] = {}
    pending = set(wanted)
    while pending:
        batch = list(Run.objects.filter(pk__in=pending))
        missing = pending - {r.pk for r in batch}
        if missing:
            raise ExportError(f"run {min(missing)} is gone; the export needs it")
        found.update((r.pk, r) for r in batch)
        pending = {pk for r in batch for pk in (r.parent_id, r.root_id) if pk} - found.keys()
    return [found[pk] for pk in sorted(found)]


def _registry(names: set[str]) -> dict[str, str]:
    registry = {}
    for name in sorted(names):
        if name not in settings.REWIND_PIPELINES:
            raise ExportError(f"pipeline {name!r} is not registered in REWIND_PIPELINES here")
        registry[name] = settings.REWIND_PIPELINES[name]
    return registry


def _start_states(replayed: list[Run], nodes: list[Node]) -> list[BurrState]:
    """The Burr state row each replay starts from: a fork's replay starts after its last
    inherited step, from the row of the run that really executed it."""
    rows = []
    for each in replayed:
        inherited = [
            n for n in nodes if n.run_id == each.pk and n.cache_source == Node.CacheSource.INHERITED
        ]
        if not inherited:
            continue  # a root run (or a fork of its first step) starts from its inputs
        last = max(inherited, key=lambda n: n.sequence_id)
        row = (
            BurrState.objects.filter(
                partition_key=PARTITION_KEY,
                app_id=str(last.src_run_id),
                sequence_id=last.src_sequence_id,
                status="completed",
            )
            .order_by("-id")
            .first()
        )
        if row is None:
            raise ExportError(
                f"run {each.pk} starts after step {last.sequence_id} ({last.name}) of run "
                f"{last.src_run_id}, whose state row is gone; it cannot be replayed"
            )
        rows.append(row)
    return rows


def _pinned_entries(
    nodes: list[Node],
) -> tuple[dict[str, list[dict[str, Any]]], dict[tuple[str, int], Node]]:
    """The cache entries the replayed runs' executed steps pinned: what their replays read;
    and the first step reading each, by ("llm" | "tool", id). Inherited steps are not executed
    again, so their entries are not needed."""
    wanted: dict[str, dict[int, Node]] = {"llm": {}, "tool": {}}
    for node in nodes:
        if node.cache_source == Node.CacheSource.INHERITED:
            continue
        for pin in node.cache_entries or []:
            table, _, pk = str(pin).partition(":")
            if table in wanted and pk.isdigit():
                wanted[table].setdefault(int(pk), node)
    found = {
        "llm": list(LLMCacheEntry.objects.filter(pk__in=wanted["llm"]).order_by("pk")),
        "tool": list(ToolCacheEntry.objects.filter(pk__in=wanted["tool"]).order_by("pk")),
    }
    for table, entries in found.items():
        missing = wanted[table].keys() - {e.pk for e in entries}
        if missing:
            pk = min(missing)
            node = wanted[table][pk]
            raise ExportError(
                f"step {node.name} (sequence {node.sequence_id}) of run {node.run_id} read "
                f"cache entry {table}:{pk}, which was deleted; replay the run and export the "
                "replay instead"
            )
    tables = {
        "llm_cache": [_row(e, LLM_FIELDS) for e in found["llm"]],
        "tool_cache": [_row(e, TOOL_FIELDS) for e in found["tool"]],
    }
    readers = {(table, pk): node for table, pinned in wanted.items() for pk, node in pinned.items()}
    return tables, readers
