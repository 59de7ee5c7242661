"""What pages show about runs and nodes, computed once per request (no per-row queries)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
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
    "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "strong", "em", "code", "pre",
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


_HEADING = re.compile(r"<(/?)h([1-6])\b", re.IGNORECASE)


def render_markdown(text: str) -> str:
    """Markdown from a model → HTML with every script, handler and unknown tag removed.

    Headings move one level down (``# title`` becomes an ``h2``): the page has its own h1."""
    html = markdown.markdown(text, extensions=["tables", "fenced_code"])
    html = _HEADING.sub(lambda m: f"<{m.group(1)}h{min(int(m.group(2)) + 1, 6)}", html)
    return nh3.clean(html, tags=ARTIFACT_TAGS, attributes={"a": {"href", "title"}})


# --- the timeline: a waterfall of a run's steps -----------------------------------------------

TIMELINE_SCALE = 1000  # bars are drawn in a 0..1000 viewBox stretched over their cell


def duration_text(ms: float) -> str:
    """``0.4 ms``, ``12 ms``, ``1.25 s``, ``2 min 5 s``: as precise as a glance needs."""
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.2f} s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    return f"{minutes} min {seconds} s"


@dataclass(frozen=True)
class TimelineStep:
    node: Node
    inherited: bool  # copied from the parent: never ran in this run, so no time of its own
    start_ms: float  # offset from the run's start (0 for an inherited step)
    duration_ms: float
    x: float  # the bar, in 0..TIMELINE_SCALE
    width: float

    @property
    def start_text(self) -> str:
        return "—" if self.inherited else "+" + duration_text(self.start_ms)

    @property
    def duration_text(self) -> str:
        return "0 ms" if self.inherited else duration_text(self.duration_ms)


@dataclass(frozen=True)
class Timeline:
    steps: list[TimelineStep]
    span_ms: float  # from the run's start to its last step's end (or its finish)
    unvisited: tuple[str, ...]  # steps that never ran (pending, or not reached)
    unvisited_state: str

    @property
    def span_text(self) -> str:
        return duration_text(self.span_ms)


def timeline(
    run: Run, nodes: list[Node], unvisited: tuple[str, ...] = (), unvisited_state: str = ""
) -> Timeline:
    """Where each step sat in time. A step's row is written when it completes, so it started
    ``latency`` before its ``created_at``; offsets are from ``Run.started_at`` (or, for a run
    that never recorded one, its first step's start). Inherited steps ran in another run: they
    are shown at 0, zero-width. No queries."""
    executed = [n for n in nodes if n.cache_source != Node.CacheSource.INHERITED]
    starts = {n.pk: n.created_at - timedelta(milliseconds=n.latency_ms) for n in executed}
    origin = run.started_at or min(starts.values(), default=None) or run.created_at
    offsets = {
        pk: max((start - origin).total_seconds() * 1000, 0.0) for pk, start in starts.items()
    }
    span = max((offsets[n.pk] + n.latency_ms for n in executed), default=0.0)
    if run.finished_at is not None and origin is not None and executed:
        span = max(span, (run.finished_at - origin).total_seconds() * 1000)
    scale = TIMELINE_SCALE / span if span > 0 else 0.0
    steps = []
    for node in nodes:
        if node.pk not in offsets:
            steps.append(TimelineStep(node, True, 0.0, 0.0, 0.0, 0.0))
            continue
        start = offsets[node.pk]
        x = min(start * scale, TIMELINE_SCALE)
        width = min(max(node.latency_ms * scale, 2.0), TIMELINE_SCALE - x) if scale else 2.0
        steps.append(
            TimelineStep(node, False, start, node.latency_ms, round(x, 1), round(width, 1))
        )
    return Timeline(steps, span, unvisited, unvisited_state)
