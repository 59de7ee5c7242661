"""The run page's timeline: a waterfall of a run's steps (start, duration, tokens, cost, cache
source), the same rows for the first render and for every live update.

A run page of 500 steps is 500 of these rows. Written with the template language, a row cost
~0.4 ms (some thirty variable lookups, filters and two {% url %} each): 200 of the 225–260 ms
the page took. Formatted here, it costs ~10 µs, and the page and its live updates still share
one definition: the run page's ``timeline-steps`` region writes these rows, and an update sends
the new ones. Every value that is not a number is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape  # the stdlib's: Django's adds a lazy-string check per call

from django.utils.safestring import SafeString, mark_safe

from runs.models import Node, Run
from runs.pages.runs import CACHE_SOURCE_HELP, Step
from runs.templatetags.rewind import usd

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
        notes += (
            f' <span class="warning" title="the provider substituted the model: '
            f'{_escape(node.model_substitution)}">⚠ model {_escape(node.model_answered)}</span>'
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
