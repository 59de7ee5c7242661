"""How the compare page shows a diff of two runs.

``runs.engine.analysis.diff.diff_runs`` decides *what* differs; this module only decides how a
person reads it: changed leaves with word-level highlighting (``runs.lib.words``), per-step
token/cost/latency deltas, the artifacts aligned side by side. What each run is against its
parent is ``runs.pages.change``.

All markup built here is escaped token by token before it is wrapped in ``<ins>``/``<del>``,
so text from a model or an override can never become HTML; every value is masked first
(``runs.pages.masking``), so what looks like a secret is never shown.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString

from runs.engine.analysis.diff import RunDiff, unified_artifact_diff
from runs.engine.analysis.leaves import ROOT_LABEL
from runs.engine.calls.pricing import total_cost
from runs.lib.words import WordDiff, is_long, shown, word_diff
from runs.models import Node, Run
from runs.pages.masking import masked

# Changed text up to this long is shown as old → new; longer, as one text with the removed
# and added words marked in place.
SHORT_VALUE_CHARS = 80
# Unchanged artifact lines kept around each change; longer unchanged stretches fold.
CONTEXT_LINES = 3


# --------------------------------------------------------------------------- changed leaves


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Leaf:
    """One changed, added or removed leaf of a step's output, ready to show."""

    path: str
    change: str  # changed | added | removed
    a: str  # the old value as shown ("" when added)
    b: str  # the new value as shown ("" when removed)
    long: bool  # shown folded in a <details>, in full
    diff: WordDiff | None  # both sides text: the words that changed
    delta: str  # both sides numbers: "+2.5"; else ""

    @property
    def inline(self) -> bool:
        """Changed text too long for old → new: one text, words marked where they changed."""
        return self.diff is not None and max(len(self.a), len(self.b)) > SHORT_VALUE_CHARS

    @property
    def chars(self) -> int:
        return max(len(self.a), len(self.b))


def leaf(change: dict[str, Any]) -> Leaf:
    """A ``diff_values`` entry (``path``, ``change``, ``a``, ``b``) as a :class:`Leaf`, its
    values masked (``change`` itself is left as it is)."""
    change = {**change, "a": masked(change["a"]), "b": masked(change["b"])}
    kind = change["change"]
    a = "" if kind == "added" else shown(change["a"])
    b = "" if kind == "removed" else shown(change["b"])
    diff = None
    delta = ""
    if kind == "changed" and isinstance(change["a"], str) and isinstance(change["b"], str):
        diff = word_diff(change["a"], change["b"])
    elif kind == "changed" and _is_number(change["a"]) and _is_number(change["b"]):
        delta = _signed(change["b"] - change["a"])
    return Leaf(
        path=masked(change["path"]) or ROOT_LABEL,
        change=kind,
        a=a,
        b=b,
        long=is_long(a, b),
        diff=diff,
        delta=delta,
    )


def _signed(number: float | int | Decimal) -> str:
    if number == 0:
        return "±0"
    if isinstance(number, float):
        text = f"{abs(number):,.6g}"
    else:
        text = f"{abs(number):,}"
    return ("+" if number > 0 else "−") + text


# --------------------------------------------------------------------------- per-step deltas


@dataclass(frozen=True)
class Delta:
    """One measure of a step (or a run) in A and in B, formatted, with B − A."""

    a: str
    b: str
    change: str  # "+120", "−300", "±0"; "" when unknown or a side lacks the step
    direction: str  # more | less | same | unknown


def _delta(a: Any, b: Any, show) -> Delta:
    shown_a = show(a) if a is not None else "—"
    shown_b = show(b) if b is not None else "—"
    if a is None or b is None:
        return Delta(shown_a, shown_b, "", "unknown")
    difference = b - a
    direction = "more" if difference > 0 else "less" if difference < 0 else "same"
    change = "±0" if difference == 0 else ("+" if difference > 0 else "−") + show(abs(difference))
    return Delta(shown_a, shown_b, change, direction)


def _tokens_text(n: int) -> str:
    return f"{n:,}"


def _usd(value: Decimal) -> str:
    return f"${value:.6f}"


def _ms(value: float) -> str:
    if value >= 1000:
        return f"{value / 1000:,.2f} s"
    return f"{value:,.1f} ms"


@dataclass(frozen=True)
class StepRow:
    """One aligned step of the two trajectories: its output in each run, what each run paid
    for it, and the leaves that changed."""

    name: str
    label: str  # "critique", or "critique #2" for a step a run visits more than once
    a: Node | None  # None: run A never reached this step (a different path or a failure)
    b: Node | None
    same: bool
    leaves: list[Leaf]
    tokens: Delta
    cost: Delta
    latency: Delta

    @property
    def first_seq(self) -> int:
        node = self.b if self.b is not None else self.a
        assert node is not None
        return node.sequence_id


def _measure(node: Node | None, attr: str) -> Any:
    """What a run paid for a step; an inherited step was paid by an ancestor (0). ``None``
    when the run has no such step, or the cost is unknown."""
    if node is None:
        return None
    return getattr(node, attr)


@dataclass(frozen=True)
class Totals:
    tokens: Delta
    cost: Delta
    latency: Delta


def _run_cost(nodes: Iterable[Node]) -> Decimal | None:
    return total_cost(n.cost_usd for n in nodes if n.cache_source != Node.CacheSource.INHERITED)


def step_rows(
    result: RunDiff, nodes_a: Sequence[Node], nodes_b: Sequence[Node]
) -> tuple[list[StepRow], Totals]:
    """Every aligned step of ``diff_runs``' ``changes`` with its deltas, and the run totals.

    ``changes`` is already aligned by node name and occurrence (``runs.engine.analysis.diff.align``),
    so a loop that ran once more in one run shows one step the other lacks, not a shift."""
    by_seq_a = {n.sequence_id: n for n in nodes_a}
    by_seq_b = {n.sequence_id: n for n in nodes_b}
    visits: dict[str, int] = {}
    for change in result.changes:
        visits[change["name"]] = visits.get(change["name"], 0) + 1
    seen: dict[str, int] = {}
    rows: list[StepRow] = []
    for change in result.changes:
        name = change["name"]
        seen[name] = seen.get(name, 0) + 1
        node_a = (
            by_seq_a.get(change["a_sequence_id"]) if change["a_sequence_id"] is not None else None
        )
        node_b = (
            by_seq_b.get(change["b_sequence_id"]) if change["b_sequence_id"] is not None else None
        )
        rows.append(
            StepRow(
                name=name,
                label=f"{name} #{seen[name]}" if visits[name] > 1 else name,
                a=node_a,
                b=node_b,
                same=change["same"],
                leaves=[leaf(f) for f in change["fields"]],
                tokens=_delta(
                    _measure(node_a, "total_tokens"), _measure(node_b, "total_tokens"), _tokens_text
                ),
                cost=_delta(_measure(node_a, "cost_usd"), _measure(node_b, "cost_usd"), _usd),
                latency=_delta(_measure(node_a, "latency_ms"), _measure(node_b, "latency_ms"), _ms),
            )
        )
    executed_a = [n for n in nodes_a if n.cache_source != Node.CacheSource.INHERITED]
    executed_b = [n for n in nodes_b if n.cache_source != Node.CacheSource.INHERITED]
    totals = Totals(
        tokens=_delta(
            sum(n.total_tokens for n in executed_a),
            sum(n.total_tokens for n in executed_b),
            _tokens_text,
        ),
        cost=_delta(_run_cost(nodes_a), _run_cost(nodes_b), _usd),
        latency=_delta(
            sum(n.latency_ms for n in executed_a), sum(n.latency_ms for n in executed_b), _ms
        ),
    )
    return rows, totals


# --------------------------------------------------------------------------- side by side


@dataclass(frozen=True)
class Line:
    """One row of the side-by-side artifact diff. A side is ``None`` where that run has no
    line (an added or a removed line); ``kind`` is equal | changed | added | removed."""

    kind: str
    a_number: int | None
    a_html: SafeString | None
    b_number: int | None
    b_html: SafeString | None


@dataclass(frozen=True)
class Block:
    """Consecutive rows; a ``folded`` block is a long unchanged stretch, shown collapsed."""

    folded: bool
    lines: list[Line] = field(default_factory=list)


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _aligned(a: list[str], b: list[str]) -> list[Line]:
    rows: list[Line] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                text = escape(a[i1 + k])
                rows.append(Line("equal", i1 + k + 1, text, j1 + k + 1, text))
            continue
        left, right = a[i1:i2], b[j1:j2]
        # A replaced stretch pairs its lines in order, each pair compared word by word; the
        # longer side's extra lines stand alone as removed or added.
        for k in range(max(len(left), len(right))):
            if k < len(left) and k < len(right):
                words = word_diff(left[k], right[k])
                rows.append(Line("changed", i1 + k + 1, words.old, j1 + k + 1, words.new))
            elif k < len(left):
                rows.append(Line("removed", i1 + k + 1, escape(left[k]), None, None))
            else:
                rows.append(Line("added", None, None, j1 + k + 1, escape(right[k])))
    return rows


def side_by_side(text_a: str, text_b: str, context: int = CONTEXT_LINES) -> list[Block]:
    """Both artifacts, masked, aligned line by line (``difflib``), changed lines highlighted
    word by word; unchanged stretches longer than ``2 * context + 1`` lines fold, keeping
    ``context`` lines next to each change. Identical texts give one folded block."""
    # Masked whole before lines are split: a key's block spans lines.
    rows = _aligned(_lines(masked(text_a)), _lines(masked(text_b)))
    blocks: list[Block] = []
    start = 0
    while start < len(rows):
        end = start
        equal = rows[start].kind == "equal"
        while end < len(rows) and (rows[end].kind == "equal") == equal:
            end += 1
        stretch = rows[start:end]
        if not equal:
            _append(blocks, False, stretch)
        else:
            keep_before = context if start > 0 else 0  # after a change
            keep_after = context if end < len(rows) else 0  # before a change
            if len(stretch) > keep_before + keep_after + 1:
                _append(blocks, False, stretch[:keep_before])
                _append(blocks, True, stretch[keep_before : len(stretch) - keep_after])
                _append(blocks, False, stretch[len(stretch) - keep_after :])
            else:
                _append(blocks, False, stretch)
        start = end
    return blocks


def _append(blocks: list[Block], folded: bool, lines: list[Line]) -> None:
    if not lines:
        return
    if blocks and not blocks[-1].folded and not folded:
        blocks[-1].lines.extend(lines)
    else:
        blocks.append(Block(folded=folded, lines=list(lines)))


def unified_diff(result: RunDiff, a: Run, b: Run, text_a: str | None, text_b: str | None) -> str:
    """The unified diff of the two artifacts to copy (``result.artifact_diff``), made again from
    their masked texts: a changed line of a key's block, apart from its first line, would not
    be recognised in the diff."""
    if not result.artifact_diff:
        return ""
    labels = (f"run {r.pk}" + ("" if r.artifact_sha256 else " (no artifact)") for r in (a, b))
    return unified_artifact_diff(masked(text_a or ""), masked(text_b or ""), *labels)
