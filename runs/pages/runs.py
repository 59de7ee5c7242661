"""What pages show about runs and nodes, computed once per request (no per-row queries)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from html import escape  # the stdlib's: Django's adds a lazy-string check per call
from typing import Any, NamedTuple

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe

from runs.engine.apps.registry import get_pipeline, pipeline_names
from runs.engine.calls.pricing import total_cost
from runs.engine.errors import PipelineError
from runs.models import LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.pages.imports import fork_hint
from runs.pages.progress import Progress, progress
from runs.templatetags.rewind import usd

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


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


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
        return bool(self.model_answered) and self.model_answered != self.model_requested


# --- the timeline: a waterfall of a run's steps -----------------------------------------------

TIMELINE_SCALE = 1000  # bars are drawn in a 0..1000 viewBox stretched over their cell
# A run's axis ends at the first of these (× a power of ten) at or past its span: a new step
# redraws the bars before it only when it crosses one (a few times per tenfold), so a live
# update carries the new rows alone — and a finished run's page is what its live page became.
NICE_STEPS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.5)


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


def nice_ceiling(ms: float) -> float:
    """The smallest ``NICE_STEPS`` × 10^k at or above ``ms`` (0 for nothing)."""
    if ms <= 0:
        return 0.0
    power = 10.0 ** math.floor(math.log10(ms))
    for multiple in (power, power * 10):
        for step in NICE_STEPS:
            if step * multiple >= ms * (1 - 1e-9):
                return step * multiple
    return ms  # not reached: 10 × power is always past ms


@dataclass(slots=True)
class TimelineStep:
    node: Node | Step
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
    scale_ms: float = 0.0  # where the axis ends: the ``nice_ceiling`` of the span
    finish_ms: float | None = None  # the run's finish, if it has one and steps ran

    @property
    def span_text(self) -> str:
        return duration_text(self.scale_ms or self.span_ms)

    @property
    def last_sequence_id(self) -> int:
        return self.steps[-1].node.sequence_id if self.steps else -1

    def scale_at(self, after: int, finished: bool) -> float | None:
        """The axis a page that showed the steps up to ``after`` (and the run ``finished``,
        or not) drew its bars to; None if it drew none (no step, or only inherited ones)."""
        ends = [
            s.start_ms + s.duration_ms
            for s in self.steps
            if not s.inherited and s.node.sequence_id <= after
        ]
        if not ends:
            return None
        span = max(ends)
        if finished and self.finish_ms is not None:
            span = max(span, self.finish_ms)
        return nice_ceiling(span)


def timeline(
    run: Run,
    nodes: Sequence[Node | Step],
    unvisited: tuple[str, ...] = (),
    unvisited_state: str = "",
) -> Timeline:
    """Where each step sat in time. A step's row is written when it completes, so it started
    ``latency`` before its ``created_at``; offsets are from ``Run.started_at`` (or, for a run
    that never recorded one, its first step's start). Inherited steps ran in another run: they
    are shown at 0, zero-width. The axis ends at the ``nice_ceiling`` of the span — to the
    run's finish, if it has one — as a chart's axis ends at a round number: a new step moves
    it only when it crosses one. No queries."""
    inherited = Node.CacheSource.INHERITED
    starts = {  # seconds since the epoch: arithmetic on datetimes cost more than the rest
        n.pk: n.created_at.timestamp() - n.latency_ms / 1000
        for n in nodes
        if n.cache_source != inherited
    }
    origin = run.started_at.timestamp() if run.started_at else min(starts.values(), default=0.0)
    offsets = {pk: max((start - origin) * 1000, 0.0) for pk, start in starts.items()}
    span = max((offsets[n.pk] + n.latency_ms for n in nodes if n.pk in offsets), default=0.0)
    finish = None
    if run.finished_at is not None and offsets:
        finish = (run.finished_at.timestamp() - origin) * 1000
        span = max(span, finish)
    axis = nice_ceiling(span)
    scale = TIMELINE_SCALE / axis if axis > 0 else 0.0
    steps = []
    for node in nodes:
        start = offsets.get(node.pk)
        if start is None:
            steps.append(TimelineStep(node, True, 0.0, 0.0, 0.0, 0.0))
            continue
        latency = node.latency_ms
        x = min(start * scale, TIMELINE_SCALE)
        width = min(max(latency * scale, 2.0), TIMELINE_SCALE - x) if scale else 2.0
        steps.append(TimelineStep(node, False, start, latency, round(x, 1), round(width, 1)))
    return Timeline(steps, span, unvisited, unvisited_state, axis, finish)


# --- the timeline's rows as HTML ---------------------------------------------------------------
#
# A run page of 500 steps is 500 of these rows. Written with the template language, a row
# cost ~0.4 ms (some thirty variable lookups, filters and two {% url %} each): 200 of the
# 225–260 ms the page took. Formatted here, it costs ~10 µs, and the page and its live updates
# still share one definition: the run page's ``timeline-steps`` region writes these rows, and
# an update sends the new ones. Every value that is not a number is escaped.

_HELP_TITLES = {source: escape(text) for source, text in CACHE_SOURCE_HELP.items()}
# Names, kinds, statuses, sources and models repeat from row to row: each is escaped once.
_escape = lru_cache(maxsize=4096)(escape)
_SEQUENCE = 987_654_321  # a step number no run has, to cut the reversed URL around


def step_url_prefix(run_id: int) -> tuple[str, str]:
    """The URL of a step of ``run_id`` as the text before and after the step number."""
    from django.urls import reverse

    before, after = reverse("node-detail", args=[run_id, _SEQUENCE]).split(str(_SEQUENCE))
    return before, after


def step_row_html(row: TimelineStep, url: tuple[str, str], selected: bool = False) -> str:
    """One ``<li>`` of the timeline: the step, its bar, when it started, its duration, tokens
    and cost. The link's htmx target, swap and push come from the list around it."""
    node = row.node
    seq = node.sequence_id
    href = f"{url[0]}{seq}{url[1]}"
    status = _escape(node.status)
    source = _escape(node.cache_source)
    css = f"step kind-{_escape(node.kind)} status-{status}"
    if row.inherited:
        css += " inherited"
    current = ""
    if selected:
        css += " selected"
        current = ' aria-current="step"'
    notes = ""
    if node.status == Node.Status.FAILED:
        notes += ' <span class="error">failed</span>'
    if node.model_substituted:
        answered = _escape(node.model_answered)
        notes += (
            f' <span class="warning" title="requested {_escape(node.model_requested)}, answered'
            f' by {answered}">⚠ model {answered}</span>'
        )
    if row.inherited:
        bar = '<rect class="span inherited" x="0" width="3" height="10"/>'
        start = (
            f'<span class="num start inherited-note" title="copied from run {node.src_run_id}, '
            f'step {node.src_sequence_id}: it ran there, not here">inherited</span>'
        )
    else:
        bar = (
            f'<rect class="span src-{source} status-{status}" x="{row.x}" width="{row.width}" '
            'height="10"/>'
        )
        start_text = row.start_text
        start = (
            f'<span class="num start" title="started {start_text} after the run">'
            f"{start_text}</span>"
        )
    cost_title = ""
    if node.cost_usd is None:
        model = _escape(node.model_answered or node.model_requested)
        cost_title = f' title="unknown: no price for model {model}"'
    return (
        f'<li class="{css}" id="step-{seq}" data-status="{status}"{current}>'
        f'<span class="what"><a href="{href}" hx-get="{href}"><span class="seq">{seq}</span> '
        f'<span class="name">{_escape(node.name)}</span></a> '
        f'<span class="badge src-{source}" title="{_HELP_TITLES.get(node.cache_source, "")}">'
        f"{source}</span>{notes}</span>"
        '<svg class="bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">'
        f"{bar}</svg>"
        f'{start}<span class="num duration">{row.duration_text}</span>'
        f'<span class="num tokens">{node.total_tokens} tok</span>'
        f'<span class="num cost"{cost_title}>{usd(node.cost_usd)}</span></li>'
    )


def timeline_rows_html(
    rows: Sequence[TimelineStep], run_id: int, selected: Node | Step | None = None
) -> SafeString:
    """The rows of the timeline's list, for the page (every step)."""
    url = step_url_prefix(run_id)
    chosen = selected.pk if selected is not None else None
    return mark_safe("".join(step_row_html(r, url, r.node.pk == chosen) for r in rows))


def timeline_delta_html(
    rows: Sequence[TimelineStep], after: int, run_id: int, selected: Node | Step | None = None
) -> SafeString:
    """The rows after step ``after``, each appended out of band after the row before it —
    only while that row is still the last (``afterend:#step-K:last-child``; the first row of a
    run into the empty list). An update that arrives twice, or late (the stream and the
    polling fallback both brought it), finds no target and changes nothing, so rows are never
    doubled and never out of order."""
    url = step_url_prefix(run_id)
    chosen = selected.pk if selected is not None else None
    parts = []
    previous = None
    for row in rows:
        seq = row.node.sequence_id
        if seq > after:
            target = (
                f"afterend:#step-{previous}:last-child"
                if previous is not None
                else "beforeend:#timeline-steps:empty"
            )
            html = step_row_html(row, url, row.node.pk == chosen)
            parts.append(f'<div hx-swap-oob="{target}">{html}</div>')
        previous = seq
    return mark_safe("".join(parts))


# --------------------------------------------------------------------------- a step's calls

CALL_BODY_SHOWN = 20_000  # characters of a request or answer shown in the inspector


@dataclass
class CallRow:
    """One HTTP call a step made, as the inspector lists it (``Node.calls`` + its entry)."""

    call: dict[str, Any]
    request: str = ""  # what the key was taken over (redacted), pretty JSON
    answer: str = ""  # the answer as stored (a stream: its events)
    cut: bool = False

    @property
    def uncaptured(self) -> bool:
        return self.call.get("kind") == "uncaptured"


def _shown(text: str) -> tuple[str, bool]:
    return (text[:CALL_BODY_SHOWN], True) if len(text) > CALL_BODY_SHOWN else (text, False)


def step_calls(node: Node) -> list[CallRow]:
    """The calls of ``node`` with their stored request and answer: at most two queries (the
    LLM and the tool entries they used), none for a step that made no call."""
    calls = [c for c in node.calls or [] if isinstance(c, dict)]
    wanted: dict[str, list[int]] = {"llm": [], "tool": []}
    for call in calls:
        table, _, pk = str(call.get("entry", "")).partition(":")
        if table in wanted and pk.isdigit():
            wanted[table].append(int(pk))
    entries: dict[str, Any] = {}
    if wanted["llm"]:
        entries.update(
            (f"llm:{e.pk}", e) for e in LLMCacheEntry.objects.filter(pk__in=wanted["llm"])
        )
    if wanted["tool"]:
        entries.update(
            (f"tool:{e.pk}", e) for e in ToolCacheEntry.objects.filter(pk__in=wanted["tool"])
        )
    rows = []
    for call in calls:
        entry = entries.get(str(call.get("entry", "")))
        row = CallRow(call)
        if entry is not None:
            stored = entry.response if isinstance(entry, LLMCacheEntry) else entry.result
            row.request = pretty_json(
                entry.request if isinstance(entry, LLMCacheEntry) else entry.args
            )
            text = stored.get("text") if isinstance(stored, dict) else None
            answer = text if text is not None else "(binary answer, stored as base64)"
            row.answer, row.cut = _shown(answer)
        rows.append(row)
    return rows


def unregistered(run: Run) -> str:
    """Why this server cannot fork ``run`` — its pipeline is not registered here — or "".
    No query: the registry reads settings (and imports an app once)."""
    try:
        get_pipeline(run.pipeline)
    except PipelineError as exc:
        if run.imported_from and run.pipeline not in pipeline_names():
            return fork_hint(run)  # read from Burr's history: its app was never registered
        return (
            f"This server does not know the app {run.pipeline!r} ({exc}). Register it — "
            f'REWIND_PIPELINES="{run.pipeline}=your.module.app_factory" — and restart the '
            "dashboard and its workers; until then the graph shows only the steps this run "
            "took, and it cannot be forked."
        )
    return ""
