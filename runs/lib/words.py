"""Two texts compared word by word, and a value as people read it: pure text helpers the compare
page, the runs list and a fork's header share (nothing of the app).

All markup built here is escaped token by token before it is wrapped in ``<ins>``/``<del>``,
so text from a model or an override can never become HTML."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# A value longer than this (or spanning lines) is folded into a <details>, never cut.
LONG_VALUE_CHARS = 400


# Tokens (words, spaces, marks) between two texts' common start and end that are matched
# exactly; past it, difflib's autojunk heuristic keeps a word diff of long text fast.
EXACT_DIFF_TOKENS = 2000


# The runs list shows the first change of an overridden text: this many words before it,
# and at most this many characters of what was removed and of what was added.
CHANGE_CONTEXT_WORDS = 4


CHANGE_CHARS = 60


# Words (numbers with their decimal point or thousands separator kept whole), a masked
# secret's or credential's mark whole (``[secret:<hex>]``: two marks differ as two words), runs
# of whitespace, and single punctuation marks: the units a word diff is taken over.
_TOKEN = re.compile(
    r"\[(?:secret|credential):[0-9a-f]{12,20}\]|\[redacted\]|\s+|\w+(?:[.,'’]\w+)*|[^\w\s]"
)


_WORD = re.compile(r"\w")


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


def shown(value: Any) -> str:
    """A leaf as people read it: text as is, anything else as JSON (so ``"1"`` ≠ ``1``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=repr)


def is_long(*texts: str) -> bool:
    return any(len(t) > LONG_VALUE_CHARS or "\n" in t for t in texts)
