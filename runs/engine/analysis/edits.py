"""A text read as one of its references edited: when it is that close (``NEAR_COPY``), what
the edit changed can be read exactly — two tokens exchanged, a figure or a word replaced — and
whether another reference varies there too. For the noise rule's verdict on a text
(:mod:`.texts`)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from runs.engine.analysis.lexicon import number_words_as_digits, polarity_word, unit_of
from runs.engine.analysis.reading import FUNCTION_WORDS, Reading, listed

__all__ = ["NEAR_COPY", "edits"]

# A text this close to one reference (the share of its tokens in order, difflib's ratio) is
# that reference edited: what the edit changed can be read exactly.
NEAR_COPY = 0.85
_EDIT_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?|[^\w\s]")


def _edit_tokens(text: str) -> list[str]:
    """Its tokens, a unit as its unit ("kilometres" is "km")."""
    out = []
    for token in _EDIT_TOKEN_RE.findall(normalised_keep_punctuation(text)):
        unit = unit_of(token, after_figure=False) if token.isalpha() and len(token) > 2 else None
        out.append(unit[0] if unit is not None else token)
    return out


def normalised_keep_punctuation(text: str) -> str:
    """:func:`normalised` that keeps punctuation (an edit may be an operator or a sign)."""
    text = number_words_as_digits(text).lower().replace("’", "'")
    text = re.sub(r"\bwon't\b", "will not", text)
    text = re.sub(r"\bcan't\b|\bcannot\b", "can not", text)
    return re.sub(r"n't\b", " not", text)


def edits(r: Reading) -> tuple[list[str], list[str]]:
    """When the text is one reference edited (``NEAR_COPY``): two of its tokens exchanged
    (beyond: swapped roles), or a figure, name, unit, polarity or negation word changed to
    one no other reference has in that place (beyond), or another word so changed
    (uncertain). An edit some other reference makes at that place too is the step's own
    variation."""
    mine = _edit_tokens(r.value)
    if len(mine) < 6:
        return [], []
    theirs = [_edit_tokens(r.observed[i]) for i in r.texts]
    best, nearest = max(
        ((SequenceMatcher(None, t, mine, autojunk=False).ratio(), i) for i, t in enumerate(theirs)),
        default=(0.0, -1),
    )
    if best < NEAR_COPY or best == 1.0:
        return [], []
    ref = theirs[nearest]
    ops = [
        op
        for op in SequenceMatcher(None, ref, mine, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    replaced = [(tuple(ref[i1:i2]), tuple(mine[j1:j2])) for tag, i1, i2, j1, j2 in ops]
    if len(replaced) == 2 and replaced[0] == replaced[1][::-1] and replaced[0][0] == replaced[1][1]:
        a, b = " ".join(replaced[0][0]), " ".join(replaced[0][1])
        if _marked(replaced[0][0] + replaced[0][1], r) or any(
            t not in FUNCTION_WORDS for t in replaced[0][0]
        ):
            return [f"is a reference with “{a}” and “{b}” exchanged: swapped roles"], []
    beyond: list[str] = []
    unsure: list[str] = []
    others = [t for k, t in enumerate(theirs) if k != nearest]
    # One short edit of ordinary words is read as the change; several are a rewording, which
    # a templated step's fresh draw is too (measured on the simulator's prose).
    edits = [
        (old, new)
        for old, new in replaced
        if [t for t in old + new if t not in FUNCTION_WORDS and t.isalnum()]
    ]
    single = len(edits) == 1 and max(len(edits[0][0]), len(edits[0][1])) <= 2
    for (_tag, i1, i2, _j1, _j2), (old, new) in zip(ops, replaced, strict=True):
        content = [t for t in old + new if t not in FUNCTION_WORDS and t.isalnum()]
        if not content and not _marked(old + new, r):
            continue  # a function word or a sign: "the" for "a"
        if not old and all(t in r.pool_words or not t.isalnum() for t in new):
            continue  # words the references use, added: a longer draw
        before = tuple(ref[max(i1 - 2, 0) : i1])
        after = tuple(ref[i2 : i2 + 2])
        if any(_has_edit(other, before, new, after) for other in others):
            continue  # another reference says it so too
        was = " ".join(old) or "(nothing)"
        now = " ".join(new) or "(nothing)"
        fillers = {f for other in others for f in _fillers(other, before, after)} - {old}
        if fillers:
            unsure.append(
                f"changes “{was}” to “{now}” in a reference's words, where the references "
                f"themselves vary ({listed(' '.join(f) or '(nothing)' for f in fillers)})"
            )
        elif (
            old
            and new
            and not _listed_item(before, after)
            and (single or (len(edits) <= 2 and _marked(old + new, r) and _short(old, new)))
        ):
            beyond.append(
                f"is a reference with “{was}” changed to “{now}”, which no other reference has there"
            )
        elif single or _marked(old + new, r):
            unsure.append(
                f"changes “{was}” to “{now}” in a reference's words: could not check it "
                "means the same"
            )
    return beyond, unsure


def _marked(tokens: tuple[str, ...], r: Reading) -> bool:
    """Whether any token is a figure, a name, a unit, a polarity or negation word, or a sign
    of comparison."""
    plain = r.own.plain.union(*(ref.plain for ref in r.refs))
    names = set(r.own.names).union(*(ref.names for ref in r.refs)) - plain
    for token in tokens:
        if (
            token[0].isdigit()
            or token in names
            or token in {"<", ">", "+", "-", "=", "!", "$", "€", "£", "%"}
        ):
            return True
        if unit_of(token, after_figure=True) is not None or (
            polarity_word(token) and token not in FUNCTION_WORDS
        ):
            return True
        if token in {"not", "no", "never", "none", "nothing", "without"}:
            return True
    return False


def _short(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """An edit of a few tokens: a word, a figure with its unit — not a sentence rewritten."""
    return max(len(old), len(new)) <= 3


def _listed_item(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """Whether a place is an item of a list ("56, 0.4667, 1453.81"): a comma or "and" on
    either side. An item that comes or goes is what a fresh draw of a list does."""
    return bool(before[-1:] and before[-1] in {",", "and", "("}) or bool(
        after[:1] and after[0] in {",", "and", ")"}
    )


def _fillers(
    tokens: list[str], before: tuple[str, ...], after: tuple[str, ...], most: int = 4
) -> set[tuple[str, ...]]:
    """What ``tokens`` has between ``before`` and ``after`` (their two tokens nearest the
    place; up to ``most`` tokens between): the values a reference gives that place."""
    left, right = list(before[-2:]), list(after[:2])
    if len(left) < 2 or len(right) < 2:
        return set()
    out = set()
    for k in range(len(tokens) - 1):
        if tokens[k : k + 2] == left:
            for width in range(most + 1):
                start = k + 2 + width
                if tokens[start : start + 2] == right:
                    out.add(tuple(tokens[k + 2 : start]))
                    break
    return out


def _has_edit(
    tokens: list[str], before: tuple[str, ...], new: tuple[str, ...], after: tuple[str, ...]
) -> bool:
    """Whether ``tokens`` has ``new`` between (the ends of) ``before`` and ``after``."""
    target = list(before[-1:]) + list(new) + list(after[:1])
    if not target:
        return False
    width = len(target)
    return any(tokens[k : k + width] == target for k in range(len(tokens) - width + 1))
