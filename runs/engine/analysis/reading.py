"""A text and its references, read once for the noise rule's text checks (:mod:`.texts`,
:mod:`.claims`, :mod:`.roles`, :mod:`.edits`): the words that carry no subject, the words that
give a role, and the small helpers the checks share."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from runs.engine.analysis.facts import Facts, Pool, facts
from runs.engine.analysis.judgements import ABSENT
from runs.engine.analysis.lexicon import number_words_as_digits, unit_of

__all__ = [
    "ABSENT",
    "FUNCTION_WORDS",
    "MOST",
    "ROLE_WORDS",
    "Reading",
    "akin",
    "content_tokens",
    "listed",
    "normalised",
    "pct",
    "quantile",
    "stem",
    "word_form",
]


# "Most references": a reversal or a unit change is read against what more than half of the
# reference texts say, and only where none of them says the candidate's word.
MOST = 0.5

# Words that carry no subject: a text about something else is told by the others.
FUNCTION_WORDS = frozenset(
    """
    a an the and or but if of to in on at by for with from as is are was were be been being it
    its this that these those there here we you they he she i our your their his her them us me
    my so than then too very can could should would will may might must do does did done has
    have had having not no into over under about after before up down out off again once more
    most such only own same just also each every any all both few other some what which who
    whom whose when where why how because while per via s etc
    le la les un une des du de et ou en au aux à avec pour par sur dans ce cette ces son sa ses
    leur est sont avant après
    el los las unos unas del al y o con por para su sus es son que se lo
    der die das den dem des ein eine einen und oder mit für von zu im am ist sind auf bei
    il lo gli uno di da con per su è
    o os um uma do da dos das em no na com para por
    het een en of met voor van op te
    """.split()
)
# The words before a name, figure or word that give it its role in a relation ("from Paris to
# Berlin", "won against Lyon").
ROLE_WORDS = frozenset("from to into onto toward towards against versus vs".split())


def listed(items: Iterable[str], limit: int = 5) -> str:
    items = sorted(items, key=lambda s: (len(s), s))
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def pct(share: float) -> str:
    return f"{share:.0%}"


_NORMAL_RE = re.compile(r"[^\w%$€£¥]+")


def normalised(text: str) -> str:
    """A text as the "same text" check reads it: number words as digits, lowercased, its
    punctuation and spacing collapsed, ``n't`` as ``not``."""
    text = number_words_as_digits(text).lower().replace("’", "'")
    text = re.sub(r"\bwon't\b", "will not", text)
    text = re.sub(r"\bcan't\b", "can not", text)
    text = re.sub(r"\bcannot\b", "can not", text)
    text = re.sub(r"n't\b", " not", text)
    return " ".join(_NORMAL_RE.sub(" ", text).split())


def stem(word: str) -> str:
    """A word without its commonest inflection (adopt / adopts / adopted / adopting)."""
    for suffix in ("ings", "ing", "ies", "ied", "es", "ed", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def word_form(word: str) -> str:
    """A word as "the same word" reads it: a unit as its unit (kilometres → km), any other
    word by its stem."""
    unit = unit_of(word, after_figure=False)
    return unit[0] if unit is not None else stem(word)


class Reading:
    """The candidate and the reference texts, read once."""

    def __init__(self, value: str, observed: list[Any], pools: list[Pool]) -> None:
        self.value = value
        self.texts = [i for i, v in enumerate(observed) if isinstance(v, str) and v != ABSENT]
        self.observed = observed
        self.pools = pools
        self.own = facts(value)
        self.refs = [facts(observed[i]) for i in self.texts]
        self.ref_words = [r.words for r in self.refs]
        self.pool_words = frozenset().union(*(p.words for p in pools))

    def majority(self, has: Callable[[Facts], bool]) -> int:
        """How many reference texts ``has`` holds for."""
        return sum(1 for r in self.refs if has(r))

    def most(self, has: Callable[[Facts], bool]) -> bool:
        return self.majority(has) > MOST * len(self.refs)

    @property
    def new_words(self) -> set[str]:
        return {w for w in self.own.words if w not in self.pool_words}


def content_tokens(clause: tuple[str, ...]) -> list[str]:
    return [t for t in clause if t not in FUNCTION_WORDS]


def akin(a: str, b: str) -> bool:
    """One word shortened to the other, or both sharing their first five letters."""
    short, long_ = sorted((a, b), key=len)
    return (len(short) >= 3 and long_.startswith(short)) or (len(short) >= 5 and a[:5] == b[:5])
