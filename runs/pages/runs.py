"""What the run page shows of a run, computed once per request (no per-row queries): its summary
and totals, the columns of its steps the page reads, the artifact as sanitised markdown, why a
run cannot be forked here. The waterfall is ``runs.pages.timeline``; a step's inspector
``runs.pages.nodes``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

import markdown
import nh3

from runs.engine.apps.registry import get_pipeline, pipeline_names
from runs.engine.calls.pricing import total_cost
from runs.engine.errors import PipelineError
from runs.lib.model_names import substitution
from runs.models import LLMCacheEntry, Node, Run
from runs.pages.imports import fork_hint
from runs.pages.progress import Progress, progress

CACHE_SOURCE_HELP = {
    "live": "executed for this run: sent to the provider or recomputed; tokens charged",
    "cache": "the LLM response was replayed from the cache; no tokens charged",
    "tool-cache": "the tool result was replayed from the tool cache; nothing recomputed",
    "override": "the value was supplied by the fork's override; nothing executed",
    "render-cache": "the artifact bytes were unchanged and served from cache; the file is still written for this run",
    "inherited": "copied from the parent run; never executed in this run",
}
# A step read from Burr's history ran in the program that logged it, not here.
IMPORTED_HELP = "ran in the program whose Burr log this run was imported from; not executed here"


def cache_help(run: Run, node: Node) -> str:
    if run.imported_from and node.src_run_id == run.pk:
        return IMPORTED_HELP
    return CACHE_SOURCE_HELP.get(node.cache_source, "")


ARTIFACT_TAGS = {
    "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "strong", "em", "code", "pre",
    "table", "thead", "tbody", "tr", "th", "td", "blockquote", "hr", "br", "a",
}  # fmt: skip


@dataclass
class RunSummary:
    run: Run
    nodes: list[Node]
    pending: list[str] = field(default_factory=list)  # a linear pipeline's steps to come
    running: str | None = None  # the step a branching or looping run is executing
    total_tokens: int = 0
    cost_usd: Decimal | None = Decimal(0)  # None: a step it executed has an unknown cost
    latency_ms: float = 0.0
    tokens_avoided: int = 0
    max_tokens: int = 0
    max_latency: float = 0.0


def summarise(run: Run, nodes: list[Node], now: Progress | None = None) -> RunSummary:
    """Totals, what is running or still to come (``now``, or worked out here: see
    ``runs.pages.progress``) and the tokens the cache saved — 1 query (cache usage)."""
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
    now = now if now is not None else progress(run, nodes)
    summary.pending, summary.running = list(now.waiting), now.running
    return summary


_HEADING = re.compile(r"<(/?)h([1-6])\b", re.IGNORECASE)


def render_markdown(text: str) -> str:
    """Markdown from a model → HTML with every script, handler and unknown tag removed.

    Headings move one level down (``# title`` becomes an ``h2``): the page has its own h1."""
    html = markdown.markdown(text, extensions=["tables", "fenced_code"])
    html = _HEADING.sub(lambda m: f"<{m.group(1)}h{min(int(m.group(2)) + 1, 6)}", html)
    return nh3.clean(html, tags=ARTIFACT_TAGS, attributes={"a": {"href", "title"}})


# --- a run's steps as the run page reads them ----------------------------------------------

# The columns of a step the run page, its live updates, the graph and the timeline read. The
# inspector's columns (inputs, output, prompt, calls, raw output, error) are not among them: a
# run of 500 steps would otherwise load every prompt and output to draw boxes and bars.
STEP_COLUMNS = (
    "id", "sequence_id", "name", "kind", "status", "cache_source", "cache_key", "total_tokens",
    "cost_usd", "latency_ms", "created_at", "model_requested", "model_answered", "src_run",
    "src_sequence_id",
)  # fmt: skip


class Step(NamedTuple):
    """One step of a run with only the columns of ``STEP_COLUMNS``, read with
    ``values_list``: building 500 model instances cost more than rendering their rows. It has
    the attribute names of ``Node`` (``pk``, ``src_run_id``, ``model_substituted``), so the
    graph, the timeline and the templates read either."""

    pk: int
    sequence_id: int
    name: str
    kind: str
    status: str
    cache_source: str
    cache_key: str
    total_tokens: int
    cost_usd: Decimal | None
    latency_ms: float
    created_at: datetime
    model_requested: str
    model_answered: str
    src_run_id: int
    src_sequence_id: int

    @property
    def id(self) -> int:
        return self.pk

    @property
    def model_substituted(self) -> bool:
        return bool(self.model_substitution)

    @property
    def model_substitution(self) -> str:
        """How the answering model differs from the one asked for ("": the same model, or
        its dated snapshot — ``runs.lib.model_names``)."""
        return substitution(self.model_requested, self.model_answered)


def unregistered(run: Run) -> str:
    """Why this server cannot fork ``run`` — its pipeline is not registered here — or "".
    No query: the registry reads settings (and imports an app once)."""
    try:
        get_pipeline(run.pipeline)
    except PipelineError as exc:
        return why_unregistered(run, exc)
    return ""


def why_unregistered(run: Run, exc: PipelineError) -> str:
    """What to register to fork ``run``, whose app could not be resolved (``exc``)."""
    if run.imported_from and run.pipeline not in pipeline_names():
        return fork_hint(run)  # read from Burr's history: its app was never registered
    return (
        f"This server does not know the app {run.pipeline!r} ({exc}). Register it — "
        f'REWIND_PIPELINES="{run.pipeline}=your.module.app_factory" — and restart the '
        "dashboard and its workers; until then the graph shows only the steps this run "
        "took, and it cannot be forked."
    )
