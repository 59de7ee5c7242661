"""Matching a request against candidates: one-word choices, tools, enum values."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence

from .prose import _STOPWORDS

# -- matching a request against candidates (one-word choices, tools, enum values) -------

# Words that stand for a concept a candidate may be named after ("draw" asks for an image).
_CONCEPTS: dict[str, tuple[str, ...]] = {
    "image": (
        "image draw drawing picture paint painting sketch illustrate illustration photo "
        "photograph render logo art artwork portrait visual wallpaper icon"
    ).split(),
    "code": (
        "code coding program programming function script python javascript typescript java "
        "rust golang sql html css implement implementation algorithm bug debug compile "
        "refactor snippet regex class method sort loop api"
    ).split(),
    "poem": "poem poetry verse rhyme sonnet haiku limerick lyric lyrics song ode".split(),
    "question": (
        "what who whom whose when where why how which explain tell describe define "
        "capital history fact facts meaning"
    ).split(),
    "answer": "what who whom whose when where why how which explain tell describe".split(),
    "generate": "write create make generate produce compose build draft design".split(),
    "summary": "summarize summarise summary tldr condense shorten brief".split(),
    "translate": "translate translation translating".split(),
    "search": "search find lookup look browse google research".split(),
    "weather": "weather temperature rain forecast sunny snow wind humidity".split(),
    "positive": (
        "good great love loved excellent amazing happy wonderful fantastic best enjoy "
        "enjoyed perfect awesome pleased recommend"
    ).split(),
    "negative": (
        "bad terrible hate hated awful poor worst disappointing disappointed broken "
        "horrible angry refund useless slow"
    ).split(),
    "math": "calculate compute sum add multiply divide subtract plus minus times math".split(),
}
_TRIGGERS: dict[str, set[str]] = {}
for _concept, _words in _CONCEPTS.items():
    for _w in _words:
        _TRIGGERS.setdefault(_w, set()).add(_concept)

_TOKEN_RE = re.compile(r"[A-Za-z]+")


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _bag(text: str) -> Counter:
    """The request's words (stemmed, snake_case split) plus the concepts they evoke."""
    bag: Counter = Counter()
    for raw in _TOKEN_RE.findall(text.lower()):
        for concept in _TRIGGERS.get(raw, ()):
            bag[concept] += 1
        word = _stem(raw)
        if word != raw:
            for concept in _TRIGGERS.get(word, ()):
                bag[concept] += 1
        if len(word) >= 3 and raw not in _STOPWORDS:
            bag[word] += 1
    if "?" in text:
        bag["question"] += 1
        bag["answer"] += 1
    return bag


def _candidate_words(text: str) -> set[str]:
    """A candidate's own words (stemmed) and the concepts they name."""
    words: set[str] = set()
    for raw in _TOKEN_RE.findall(text.lower()):
        stem = _stem(raw)
        words |= _TRIGGERS.get(raw, set()) | _TRIGGERS.get(stem, set())
        if stem in _CONCEPTS or (len(stem) >= 3 and raw not in _STOPWORDS):
            words.add(stem)
    return words


def _best(
    candidates: Sequence[str],
    bag: Counter,
    rng: random.Random,
    describe: Sequence[str] | None = None,
    fallback: str | None = None,
) -> str:
    """The candidate whose words overlap ``bag`` most; ties (and no overlap, when there is
    no ``fallback``) are broken by ``rng``: deterministic at temperature 0, varied above."""
    scores = []
    for i, name in enumerate(candidates):
        words = _candidate_words(describe[i] if describe else name)
        scores.append(sum(bag[w] for w in words))
    top = max(scores) if scores else 0
    if top == 0 and fallback is not None:
        return fallback
    best = [c for c, s in zip(candidates, scores, strict=True) if s == top]
    return best[0] if len(best) == 1 else rng.choice(best)
