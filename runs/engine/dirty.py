"""The dirty set of a fork: which steps will re-execute live and which the cache will serve,
before anything runs (DESIGN.md, Forking).

From the override and the keys each node declares it reads: the fork node is dirty (or served
by its override), and a later step is dirty when it reads the output of a dirty step. Every
other later step has an unchanged cache key and will be a hit. The projected token cost is
what the dirty llm steps cost when they last ran live.
"""

from __future__ import annotations

from typing import Any

from runs.engine.overrides import Override
from runs.engine.pipeline import LLMNode, NodeSpec, Pipeline
from runs.models import LLMCacheEntry, Node


def dirty_set(
    pipeline: Pipeline,
    steps: list[Node],
    fork_at: Node,
    override: Override | None,
    carried: dict[int, dict[str, Override]] | None = None,
) -> dict[str, Any]:
    """``steps`` are the source run's nodes in order; ``fork_at`` is one of them. ``carried``
    are the overrides the source itself ran under (``effective_overrides``): re-executed
    under the same override, a step reproduces the source's output."""
    carried = carried or {}
    changed: set[str] = set()
    plan = []
    later = [n for n in steps if n.sequence_id >= fork_at.sequence_id]
    usage = _usage_by_key([n.cache_key for n in later if n.kind == "llm" and n.cache_key])
    for node in later:
        spec = pipeline.node(node.name)
        if node.sequence_id == fork_at.sequence_id and override is not None:
            source = "override" if override.field == "output" else "live"
        elif node.sequence_id == fork_at.sequence_id:
            source = "cache"
        else:
            source = "live" if changed & set(spec.reads) else "cache"
        if source != "cache":
            changed.add(node.name)
        elif "output" in carried.get(node.sequence_id, {}):
            source = "override"  # the source's own output override, applied again
        tokens = 0
        if source == "live" and isinstance(spec, LLMNode):
            tokens = usage.get(node.cache_key) or node.total_tokens
        plan.append(
            {
                "name": node.name,
                "sequence_id": node.sequence_id,
                "kind": node.kind,
                "will_be": source if source != "cache" else _hit_label(spec),
                "projected_tokens": tokens,
            }
        )
    return {
        "inherited": [n.name for n in steps if n.sequence_id < fork_at.sequence_id],
        "steps": plan,
        "live": [p["name"] for p in plan if p["will_be"] == "live"],
        "projected_tokens": sum(p["projected_tokens"] for p in plan),
    }


def _hit_label(spec: NodeSpec) -> str:
    if isinstance(spec, LLMNode):
        return "cache"
    return "render-cache" if spec.artifact else "tool-cache"


def _usage_by_key(keys: list[str]) -> dict[str, int]:
    rows = LLMCacheEntry.objects.filter(key__in=keys, occurrence=0).values_list("key", "usage")
    return {key: int((usage or {}).get("total_tokens") or 0) for key, usage in rows}
