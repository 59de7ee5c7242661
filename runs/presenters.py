"""What pages show about runs and nodes, computed once per request (no per-row queries)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import markdown
import nh3

from runs.engine.errors import PipelineError
from runs.engine.pipeline import get_pipeline
from runs.engine.pricing import total_cost
from runs.models import LLMCacheEntry, Node, Run

CACHE_SOURCE_HELP = {
    "live": "executed for this run: sent to the provider or recomputed; tokens charged",
    "cache": "the LLM response was replayed from the cache; no tokens charged",
    "tool-cache": "the tool result was replayed from the tool cache; nothing recomputed",
    "override": "the value was supplied by the fork's override; nothing executed",
    "render-cache": "the artifact bytes were unchanged and served from cache; the file is still written for this run",
    "inherited": "copied from the parent run; never executed in this run",
}

ARTIFACT_TAGS = {
    "h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "pre",
    "table", "thead", "tbody", "tr", "th", "td", "blockquote", "hr", "br", "a",
}  # fmt: skip


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


@dataclass
class RunSummary:
    run: Run
    nodes: list[Node]
    pending: list[str] = field(default_factory=list)
    total_tokens: int = 0
    cost_usd: Decimal | None = Decimal(0)  # None: a step it executed has an unknown cost
    latency_ms: float = 0.0
    tokens_avoided: int = 0
    max_tokens: int = 0
    max_latency: float = 0.0


def summarise(run: Run, nodes: list[Node]) -> RunSummary:
    """Totals, the steps still to come and the tokens the cache saved — 1 query (cache usage)."""
    summary = RunSummary(run=run, nodes=nodes)
    executed = [n for n in nodes if n.cache_source != Node.CacheSource.INHERITED]
    summary.total_tokens = sum(n.total_tokens for n in executed)
    summary.cost_usd = total_cost(n.cost_usd for n in executed)
    summary.latency_ms = sum(n.latency_ms for n in executed)
    summary.max_tokens = max((n.total_tokens for n in nodes), default=0) or 1
    summary.max_latency = max((n.latency_ms for n in nodes), default=0.0) or 1.0
    served = [
        n.cache_key
        for n in nodes
        if n.kind == "llm" and n.cache_key and n.cache_source in {"cache", "inherited"}
    ]
    if served:
        usage = dict(
            LLMCacheEntry.objects.filter(key__in=served, occurrence=0).values_list("key", "usage")
        )
        summary.tokens_avoided = sum(
            int((usage.get(k) or {}).get("total_tokens") or 0) for k in served
        )
    if not run.is_finished:
        try:
            declared = [spec.name for spec in get_pipeline(run.pipeline).nodes]
        except PipelineError:
            declared = []
        done = {n.name for n in nodes}
        summary.pending = [name for name in declared if name not in done]
    return summary


def render_markdown(text: str) -> str:
    """Markdown from a model → HTML with every script, handler and unknown tag removed."""
    html = markdown.markdown(text, extensions=["tables", "fenced_code"])
    return nh3.clean(html, tags=ARTIFACT_TAGS, attributes={"a": {"href", "title"}})
