"""How the dashboard shows a diff of two runs, and what a run changed against its parent.

``runs.engine.analysis.diff.diff_runs`` decides *what* differs (its keys are a contract); this module
only decides how a person reads it: word-level highlighting of changed text, the artifact
aligned side by side, per-step token/cost/latency deltas, the runs a compare page offers,
and whether a run is a fork, an unchanged replay or a stability sample.

All markup built here is escaped token by token before it is wrapped in ``<ins>``/``<del>``,
so text from a model or an override can never become HTML.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from runs.engine.analysis.leaves import ROOT_LABEL
from runs.engine.apps.registry import get_pipeline
from runs.engine.calls.pricing import total_cost
from runs.engine.errors import PipelineError
from runs.engine.forking.overrides import current_fields
from runs.models import Node, Run, same_override

# Changed text up to this long is shown as old → new; longer, as one text with the removed
# and added words marked in place.
SHORT_VALUE_CHARS = 80
# A value longer than this (or spanning lines) is folded into a <details>, never cut.
LONG_VALUE_CHARS = 400
# Tokens (words, spaces, marks) between two texts' common start and end that are matched
# exactly; past it, difflib's autojunk heuristic keeps a word diff of long text fast.
EXACT_DIFF_TOKENS = 2000
# The runs list shows the first change of an overridden text: this many words before it,
# and at most this many characters of what was removed and of what was added.
CHANGE_CONTEXT_WORDS = 4
CHANGE_CHARS = 60
# Unchanged artifact lines kept around each change; longer unchanged stretches fold.
CONTEXT_LINES = 3

# Words (numbers with their decimal point or thousands separator kept whole), runs of
# whitespace, and single punctuation marks: the units a word diff is taken over.
_TOKEN = re.compile(r"\s+|\w+(?:[.,'’]\w+)*|[^\w\s]")
_WORD = re.compile(r"\w")


# --------------------------------------------------------------------------- word diff


@dataclass(frozen=True)
class WordDiff:
    """Two texts compared word by word. ``old`` marks removed words with ``<del>``, ``new``
    marks added ones with ``<ins>``; ``inline`` interleaves both (for long text, read once);
    ``passages`` is the number of changed stretches."""

    old: SafeString
    new: SafeString
    inline: SafeString
    passages: int


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _common_ends(ta: Sequence[str], tb: Sequence[str]) -> tuple[int, int]:
    """How many tokens ``ta`` and ``tb`` share at their start, and then at their end."""
    limit = min(len(ta), len(tb))
    head = 0
    while head < limit and ta[head] == tb[head]:
        head += 1
    tail = 0
    while tail < limit - head and ta[-1 - tail] == tb[-1 - tail]:
        tail += 1
    return head, tail


def _opcodes(ta: list[str], tb: list[str]) -> list[tuple[str, int, int, int, int]]:
    """``SequenceMatcher`` opcodes over the tokens, computed on what lies between their common
    start and end: one edit in a long prompt is found in linear time. Exact matching is
    quadratic in the number of repeated tokens (every space is one), so a middle longer than
    ``EXACT_DIFF_TOKENS`` is matched with difflib's ``autojunk`` heuristic instead."""
    head, tail = _common_ends(ta, tb)
    middle_a, middle_b = ta[head : len(ta) - tail], tb[head : len(tb) - tail]
    exact = max(len(middle_a), len(middle_b)) <= EXACT_DIFF_TOKENS
    matcher = difflib.SequenceMatcher(None, middle_a, middle_b, autojunk=not exact)
    codes = [("equal", 0, head, 0, head)] if head else []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        codes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        codes.append(("equal", len(ta) - tail, len(ta), len(tb) - tail, len(tb)))
    return codes


def word_diff(a: str, b: str) -> WordDiff:
    """``a`` → ``b`` compared on words, rendered as escaped HTML."""
    ta, tb = _tokens(a), _tokens(b)
    old: list[str] = []
    new: list[str] = []
    inline: list[str] = []
    passages = 0
    for tag, i1, i2, j1, j2 in _opcodes(ta, tb):
        left, right = escape("".join(ta[i1:i2])), escape("".join(tb[j1:j2]))
        if tag == "equal":
            old.append(left)
            new.append(right)
            inline.append(left)
            continue
        passages += 1
        if left:
            old.append(f"<del>{left}</del>")
            inline.append(f"<del>{left}</del>")
        if right:
            new.append(f"<ins>{right}</ins>")
            inline.append(f"<ins>{right}</ins>")
    return WordDiff(
        # Every piece was escaped above; only our own <ins>/<del> are markup.
        old=mark_safe("".join(old)),
        new=mark_safe("".join(new)),
        inline=mark_safe("".join(inline)),
        passages=passages,
    )


@dataclass(frozen=True)
class FirstChange:
    """Where a text first changed, short enough for a table cell: ``html`` is a few words
    before it, then what was removed (``<del>``) and added (``<ins>``), each cut to
    ``CHANGE_CHARS``, and "…" wherever text is left out; ``passages`` counts every changed
    stretch of the whole text."""

    html: SafeString
    passages: int

    @property
    def more(self) -> int:
        return self.passages - 1


def _words(tokens: Sequence[str], count: int, *, last: bool) -> list[str]:
    """The first (or ``last``) tokens of ``tokens`` holding ``count`` words (spaces and
    punctuation come along without counting)."""
    picked: list[str] = []
    seen = 0
    for token in reversed(tokens) if last else tokens:
        if _WORD.search(token):
            if seen == count:
                break
            seen += 1
        picked.append(token)
    return picked[::-1] if last else picked


def _cut(text: str) -> str:
    return text if len(text) <= CHANGE_CHARS else text[:CHANGE_CHARS].rstrip() + "…"


def first_change(a: str, b: str) -> FirstChange | None:
    """The first place ``b`` differs from ``a``, word by word (the opcodes ``word_diff``
    uses), as escaped HTML; None when the texts are equal."""
    ta, tb = _tokens(a), _tokens(b)
    if ta == tb:
        return None
    codes = _opcodes(ta, tb)
    at = next(k for k, code in enumerate(codes) if code[0] != "equal")
    _, i1, i2, j1, j2 = codes[at]
    before = _words(ta[:i1], CHANGE_CONTEXT_WORDS, last=True)
    parts = ["…" if len(before) < i1 else "", escape("".join(before).lstrip())]
    if i2 > i1:
        parts.append(f"<del>{escape(_cut(''.join(ta[i1:i2])))}</del>")
    if j2 > j1:
        parts.append(f"<ins>{escape(_cut(''.join(tb[j1:j2])))}</ins>")
    rest = codes[at + 1 :]
    if rest and rest[0][0] == "equal":
        following = tb[rest[0][3] : rest[0][4]]
        after = _words(following, CHANGE_CONTEXT_WORDS, last=False)
        parts.append(escape("".join(after).rstrip()))
        if len(after) < len(following) or len(rest) > 1:
            parts.append("…")
    passages = sum(1 for code in codes if code[0] != "equal")
    # Every piece was escaped above; only our own <ins>/<del> are markup.
    return FirstChange(html=mark_safe("".join(parts)), passages=passages)


# --------------------------------------------------------------------------- changed leaves


def _shown(value: Any) -> str:
    """A leaf as people read it: text as is, anything else as JSON (so ``"1"`` ≠ ``1``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=repr)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _long(*texts: str) -> bool:
    return any(len(t) > LONG_VALUE_CHARS or "\n" in t for t in texts)


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
    """A ``diff_values`` entry (``path``, ``change``, ``a``, ``b``) as a :class:`Leaf`."""
    kind = change["change"]
    a = "" if kind == "added" else _shown(change["a"])
    b = "" if kind == "removed" else _shown(change["b"])
    diff = None
    delta = ""
    if kind == "changed" and isinstance(change["a"], str) and isinstance(change["b"], str):
        diff = word_diff(change["a"], change["b"])
    elif kind == "changed" and _is_number(change["a"]) and _is_number(change["b"]):
        delta = _signed(change["b"] - change["a"])
    return Leaf(
        path=change["path"] or ROOT_LABEL,
        change=kind,
        a=a,
        b=b,
        long=_long(a, b),
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
    result: dict[str, Any], nodes_a: Sequence[Node], nodes_b: Sequence[Node]
) -> tuple[list[StepRow], Totals]:
    """Every aligned step of ``diff_runs``' ``changes`` with its deltas, and the run totals.

    ``changes`` is already aligned by node name and occurrence (``runs.engine.analysis.diff.align``),
    so a loop that ran once more in one run shows one step the other lacks, not a shift."""
    by_seq_a = {n.sequence_id: n for n in nodes_a}
    by_seq_b = {n.sequence_id: n for n in nodes_b}
    visits: dict[str, int] = {}
    for change in result["changes"]:
        visits[change["name"]] = visits.get(change["name"], 0) + 1
    seen: dict[str, int] = {}
    rows: list[StepRow] = []
    for change in result["changes"]:
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
    """Both artifacts aligned line by line (``difflib``), changed lines highlighted word by
    word; unchanged stretches longer than ``2 * context + 1`` lines fold, keeping ``context``
    lines next to each change. Identical texts give one folded block."""
    rows = _aligned(_lines(text_a), _lines(text_b))
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


# --------------------------------------------------------------------------- what a run is


# ``Change.was`` when the value an override replaced is not known (the source step was not
# read, or its pipeline is not registered here): None is a value a field can have.
UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()
# The runs list shows an overridden value this long or shorter whole; a longer one by the
# words that changed.
LIST_VALUE_CHARS = 40


def source_value(run: Run, source: Node) -> Any:
    """What ``run``'s overridden field held in ``source``, the step it forked (what the fork
    editor pre-filled: ``current_fields``), or ``UNKNOWN``."""
    field = (run.override or {}).get("field")
    try:
        spec = get_pipeline(run.pipeline).node(source.name)
        return current_fields(spec, source).get(field, UNKNOWN)
    except (PipelineError, AttributeError, KeyError, TypeError):
        return UNKNOWN  # a pipeline no longer registered, a step recorded in another shape


@dataclass(frozen=True)
class Change:
    """What a run is relative to its parent, as the runs list and a run's header say it.

    ``kind``: ``root`` (a new run), ``fork`` (one field changed), ``replay`` (an unchanged
    replay: no override, or — a replay of a fork — the very override its parent ran under,
    at its parent's fork point) or ``sample`` (a stability sample: a live replay)."""

    kind: str
    parent: int | None = None
    node: str = ""
    sequence_id: int | None = None
    field: str = ""
    value: Any = None
    was: Any = UNKNOWN  # a fork's overridden field in its source step

    @property
    def is_fork(self) -> bool:
        return self.kind == "fork"

    @property
    def is_replay(self) -> bool:
        return self.kind == "replay"

    @property
    def is_sample(self) -> bool:
        return self.kind == "sample"

    @property
    def value_text(self) -> str:
        return _shown(self.value)

    @property
    def value_is_long(self) -> bool:
        return _long(self.value_text)

    @property
    def was_known(self) -> bool:
        return self.was is not UNKNOWN

    @property
    def was_text(self) -> str:
        return _shown(self.was) if self.was_known else ""

    @cached_property
    def first_change(self) -> FirstChange | None:
        """For the runs list: where a value too long for a cell first differs from what the
        source step had (None when short, unknown or equal)."""
        if not self.was_known or len(self.value_text) <= LIST_VALUE_CHARS:
            return None
        return first_change(self.was_text, self.value_text)

    @cached_property
    def value_diff(self) -> WordDiff | None:
        """For the compare page: the override against the value it replaced, word by word."""
        return word_diff(self.was_text, self.value_text) if self.was_known else None


def describe_change(run: Run, source: Node | None = None) -> Change:
    """A fork, an unchanged replay, a stability sample or a root run — told apart from the
    run's own columns and its parent's (load runs with ``select_related("parent")``: no
    query then). With ``source``, the parent's step the run forked, a fork's ``was`` is the
    value its override replaced.

    A replay of a fork carries the fork's override (``create_replay``, so it re-executes
    what the fork executed under the same change); it is still a replay, not a fork "with
    args.cost_scale = 2.5": its override and fork point are its parent's own."""
    if run.parent_id is None:
        return Change("root")
    common = {"parent": run.parent_id, "node": run.fork_node, "sequence_id": run.fork_sequence_id}
    if run.sample_of_id is not None:
        return Change("sample", **common)
    override = run.override
    if not override:
        return Change("replay", **common)
    parent = run.parent
    if (
        parent.override
        and same_override(parent.override, override)
        and parent.fork_sequence_id == run.fork_sequence_id
    ):
        return Change("replay", **common)
    return Change(
        "fork",
        **common,
        field=str(override.get("field", "")),
        value=override.get("value"),
        was=UNKNOWN if source is None else source_value(run, source),
    )


def relation(a: Run, b: Run) -> str:
    """How two compared runs are related: ``b-of-a`` (B forked or replayed A), ``a-of-b``,
    ``lineage`` (one root), ``pipelines`` (different pipelines) or ``unrelated``."""
    if b.parent_id == a.pk:
        return "b-of-a"
    if a.parent_id == b.pk:
        return "a-of-b"
    if a.pipeline != b.pipeline:
        return "pipelines"
    if a.root_id and a.root_id == b.root_id:
        return "lineage"
    return "unrelated"
