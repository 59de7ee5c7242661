"""What a text states, as the noise rule reads it: the figures it quotes, the names it gives,
the names it ranks or recommends, whether it negates — and the words it says all that in.

Two texts that state the same facts in other words share their figures, names, ranked names
and polarity however few words they share; a text that names another winner, quotes another
figure or reverses a claim differs in one of them however many words it shares. The reading
is lexical, on purpose (no model, no dictionary, the same on every machine):

- **figures**: the numbers a text quotes (``17.91``, ``48213``, ``1,234`` read as 1234,
  ``0,5`` as 0.5), not digits inside a word (``U5``, ``P0001`` are names). A figure *matches*
  another when they are equal once the more precise is rounded to the other's decimals
  (keeping two significant digits: 20.8211 matches 20.82 and 21, 0.4667 does not match 0.5),
  or when one is the other as a percentage (0.4667 and 46.7);
- **names**: entity-like words — a capitalised word that does not start a sentence (``Acme``,
  ``Berlin``), or starts one and is possessive (``Hamburg's``) or is capitalised elsewhere in
  the text; an acronym (``USD``); a word with a digit (``U5``, ``Q3``); a single capital letter
  (groups ``A``, ``B``, ``C``; not the pronoun ``I``, nor ``A`` as an article starting a
  sentence). A name is compared by its lowercased form, a single letter by itself;
- **ranked names**: the names in a clause (split at ``, ; . ! ?``, a line break and contrast
  words — but, while, than, ahead of, versus, unlike…) that holds a ranking or decision word
  (best, cheapest, lowest, highest, leads, wins, recommend, adopt, choose, prefer…): in "C is
  cheapest, ahead of A and B" the ranked name is C alone;
- **negations**: not, no, never, none, nothing, nobody, neither, nor, cannot, without,
  instead and every ``n't`` — the first ones, and ``n't``, **strong** (they negate a claim
  wherever they stand); nothing, without and instead weak (they often say a thing another way:
  "costs nothing" for "free");
- **words**: the lowercased words, figures left out (they are compared as figures);
- **units**: the units it gives a figure (``km``, ``$``, ``million``; :mod:`.lexicon`), each
  as its unit (``kilometres`` is ``km``);
- **clauses**: its tokens (words, figures, units) in order, split into clauses at ``, ; . : !
  ?``, a line break, and/or/but and the contrast words — what "the same roles" is read on.

Number words are figures ("three of the four" quotes 3 and 4: :func:`.lexicon.number_words_as_digits`).

A :class:`Pool` is what a reference makes available: every figure, word and ranked name of
its values (its leaf, and the other leaves of its step when the caller gives them), so a
fresh text that quotes a figure its own leaf did not but its step did is not taken for new.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from runs.engine.analysis.lexicon import FACTORS, number_words_as_digits, unit_of

__all__ = ["COUNTS", "Facts", "Pool", "facts", "figure_matches", "is_number", "same_quantity"]

# The figures that are counts: whole numbers below 10 ("3 risks", "4/5", "step 2").
COUNTS = frozenset(str(n) for n in range(10))

# A number standing alone: not the digits of a word (U5, P0001), not a fraction of one.
_FIGURE_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
_THOUSANDS_RE = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
_has_digit = re.compile(r"\d").search
# What may sit between a sentence's end and its first word: spaces, quotes, brackets, and
# markdown (headings, emphasis, list bullets, table pipes).
_LEAD = " \t\"'“‘([{*_#>|•-"
_SENTENCE_END = ".!?\n"
_NEGATION_RE = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nowhere|neither|nor|cannot|without|instead)\b"
    r"|\b\w+n[’']t\b",
    re.IGNORECASE,
)
_CLAUSE_RE = re.compile(
    r"[,;.!?]+(?=\s|$)|\n|\s+(?:but|while|whereas|although|though|than|versus|vs|unlike|over|"
    r"against|compared|ahead\s+of|instead\s+of|rather\s+than|followed\s+by|then)\s+",
    re.IGNORECASE,
)
_RANKING = frozenset(
    """
    best cheapest lowest highest top first fastest strongest largest biggest greatest leading
    lead leads led winner winners win wins won winning recommend recommends recommended
    recommending recommendation adopt adopts adopted adopting choose chooses chose chosen
    choice pick picks picked prefer prefers preferred favour favours favoured favor favors
    favored select selects selected selecting optimal ideal
    """.split()
)


@dataclass(frozen=True)
class Facts:
    """One text, read: see the module docstring."""

    words: frozenset[str]
    figures: frozenset[str]  # each figure's canonical decimal text ("20.82", "1234")
    names: frozenset[str]  # lowercased; a single letter as it is
    ranked: frozenset[str]  # the names in a clause with a ranking or decision word
    negations: tuple[str, ...]  # the negation words, lowercased, in order
    units: frozenset[str] = frozenset()  # canonical units (lexicon.UNITS)
    dimensions: frozenset[tuple[str, str]] = frozenset()  # (dimension, unit) pairs
    clauses: tuple[tuple[str, ...], ...] = ()  # tokens in order, clause by clause
    plain: frozenset[str] = frozenset()  # the words it writes in lower case somewhere
    initials: frozenset[str] = frozenset()  # first letters of 2 to 5 words in a row ("na")
    quantities: frozenset[tuple[str, str, float]] = frozenset()  # (figure, dimension, base)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _canonical(number: Decimal) -> str:
    text = format(number.normalize(), "f")
    return "0" if text in {"-0", ""} else text


def _figure(token: str) -> str | None:
    """A figure's canonical text: ``1,234`` is 1234 (thousands), ``0,5`` is 0.5."""
    if _THOUSANDS_RE.match(token):
        token = token.replace(",", "")
    elif token.count(",") == 1 and "." not in token:
        token = token.replace(",", ".")
    elif "," in token:
        return None  # a list written without spaces: read by its parts instead
    try:
        return _canonical(Decimal(token))
    except InvalidOperation:
        return None


# A list's numbering ("1. Open settings", "2) Reset"): the place of an item, not a figure.
_LIST_NUMBER_RE = re.compile(r"^[ \t]*\d{1,2}[.)](?=\s)", re.MULTILINE)
# Capitalised words that are never names: a sentence's or a heading's first word, a question.
_NEVER_NAMES = frozenset(
    """
    a an the and or but if of to in on at by for with from as is are was were be it this that
    these those there here we you they he she our your their his her what which who when where
    why how yes no ok okay note please thanks hi hello dear summary answer status reason
    """.split()
)


def _figures(text: str) -> set[str]:
    out: set[str] = set()
    text = _LIST_NUMBER_RE.sub(" ", text)
    for token in _FIGURE_RE.findall(text):
        figure = _figure(token)
        if figure is not None:
            out.add(figure)
        else:
            out.update(f for part in token.split(",") if (f := _figure(part)) is not None)
    return out


def number_figure(value: int | float) -> str | None:
    """A number leaf as a figure (what a text quoting it would write)."""
    try:
        return _canonical(Decimal(repr(value)))
    except InvalidOperation:  # inf, nan
        return None


@lru_cache(maxsize=65536)
def roundings(figure: str) -> frozenset[str]:
    """Every text ``figure`` matches when quoted less precisely: itself, itself rounded to
    fewer decimals while it keeps two significant digits, and the same of it × 100 and ÷ 100
    (a rate quoted as a percentage, or the reverse)."""
    number = Decimal(figure)
    out = {figure}
    for scaled in (number, number * 100, number / 100):
        exponent = scaled.normalize().as_tuple().exponent
        decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        for places in range(decimals, -1, -1):
            rounded = scaled.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
            digits = (
                len(str(abs(int(rounded))))
                if rounded == rounded.to_integral_value()
                else len(rounded.normalize().as_tuple().digits)
            )
            if rounded.is_zero() or digits < 2:
                break
            out.add(_canonical(rounded))
    return frozenset(out)


def figure_matches(a: str, b: str) -> bool:
    """Whether two figures are the same one quoted at different precision (or as a rate and
    its percentage): the less precise is among the other's roundings."""
    return a == b or a in roundings(b) or b in roundings(a)


def _sentence_initial(text: str, start: int) -> bool:
    at = start - 1
    while at >= 0 and text[at] in _LEAD:
        at -= 1
    return at < 0 or text[at] in _SENTENCE_END


_ARTICLE_FOLLOWS = re.compile(r"\s+[a-z0-9]")
_POSSESSIVE = re.compile(r"['’]s$")


def _names(text: str) -> tuple[set[str], list[tuple[int, str]]]:
    """The names of ``text`` (see the module docstring) and where each occurrence starts."""
    found: list[tuple[int, int, str, bool]] = []  # (start, end, token, sentence-initial)
    for match in _WORD_RE.finditer(text):
        token = match.group().rstrip("'’-")
        if not token[0].isupper() and not _has_digit(token):
            continue
        found.append((match.start(), match.end(), token, _sentence_initial(text, match.start())))
    capitalised_inside = {token for _, _, token, initial in found if not initial}
    # A language that capitalises its nouns (German) or a title-cased text: a capital inside a
    # sentence says nothing there; only acronyms and words with a digit are names.
    inside = sum(1 for m in _WORD_RE.finditer(text) if not _sentence_initial(text, m.start()))
    nouns_capitalised = (
        inside >= 6
        and len(
            [t for _, _, t, initial in found if not initial and t.isalpha() and not t.isupper()]
        )
        > 0.3 * inside
    )
    names: set[str] = set()
    where: list[tuple[int, str]] = []
    for start, end, token, initial in found:
        bare = _POSSESSIVE.sub("", token)
        if bare == "I":
            continue
        if len(bare) == 1:
            if initial and bare == "A" and _ARTICLE_FOLLOWS.match(text, end):
                continue  # "A caseworker follows up", "A 4.2 billion plan": the article
            name = bare
        elif _has_digit(bare) or bare.isupper():
            name = bare.lower()
        elif nouns_capitalised or bare.lower() in _NEVER_NAMES:
            continue
        elif not initial or bare != token or bare in capitalised_inside:
            name = bare.lower()
        else:
            continue  # a sentence's first word, nothing says it is a name
        names.add(name)
        where.append((start, name))
    return names, where


# A clause's tokens: a figure, a unit symbol, or a word.
_TOKEN_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])|[$€£¥₹%°]|[^\W\d_][\w'’-]*|\d\w*")
_ROLE_CLAUSE_RE = re.compile(
    r"[,;.:!?]+(?=\s|$)|\n|\||\s(?:and|or|but|while|whereas|although|though|than|versus|vs|"
    r"unlike|then|et|ou|y|o|und|oder)\s|\s[-–—]\s",
    re.IGNORECASE,
)


def _tokens(text: str) -> list[tuple[str, bool]]:
    """``text``'s tokens in order, lowercased, each with whether it is a figure."""
    out: list[tuple[str, bool]] = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        if token[0].isdigit():
            figure = _figure(token)
            out.append((figure if figure is not None else token.lower(), figure is not None))
        else:
            out.append((token.rstrip("'’-").lower(), False))
    return out


def _clauses_and_units(
    text: str,
) -> tuple[tuple[tuple[str, ...], ...], set[tuple[str, str]], set[tuple[str, str, float]]]:
    clauses: list[tuple[str, ...]] = []
    units: set[tuple[str, str]] = set()
    quantities: set[tuple[str, str, float]] = set()
    start = 0
    for end in [m.start() for m in _ROLE_CLAUSE_RE.finditer(text)] + [len(text)]:
        tokens = _tokens(text[start:end])
        after_figure = False
        for token, is_figure in tokens:
            if not is_figure and (unit := unit_of(token, after_figure)) is not None:
                units.add((unit[1], unit[0]))
            after_figure = is_figure
        quantities |= _quantities(tokens)
        if tokens:
            clauses.append(tuple(token for token, _ in tokens))
        start = end
    return tuple(clauses), units, quantities


def _quantities(tokens: list[tuple[str, bool]]) -> set[tuple[str, str, float]]:
    """(figure, what it measures, its value in that dimension's base unit) for each figure
    with a unit or a scale: "0.25 kg" and "250 g" are one quantity, "$10,500" and "10.5
    thousand dollars" another. A currency is its own dimension (no rates are known)."""
    out: set[tuple[str, str, float]] = set()
    for i, (token, is_figure) in enumerate(tokens):
        if not is_figure:
            continue
        value, j = float(token), i + 1
        if j < len(tokens) and (unit := unit_of(tokens[j][0], True)) and unit[1] == "scale":
            value, j = value * FACTORS[unit[0]], j + 1
        unit = unit_of(tokens[j][0], True) if j < len(tokens) else None
        if unit is None and i > 0 and not tokens[i - 1][1]:
            before = unit_of(tokens[i - 1][0], False)
            unit = before if before is not None and before[1] == "currency" else None
        if unit is not None and unit[1] == "currency":
            out.add((token, f"currency:{unit[0]}", value))
        elif unit is not None and unit[0] in FACTORS and unit[1] != "scale":
            out.add((token, unit[1], value * FACTORS[unit[0]]))
        else:  # "3 hundred" and "300" are one count
            out.add((token, "count", value))
    return out


@lru_cache(maxsize=4096)
def facts(text: str) -> Facts:
    """``text`` read for the noise rule (cached: the same references are read for every
    changed leaf of a step)."""
    text = number_words_as_digits(text)
    names, where = _names(text)  # in the order they occur
    ranked: set[str] = set()
    start = next_name = 0
    for end in [m.start() for m in _CLAUSE_RE.finditer(text)] + [len(text)]:
        first = next_name
        while next_name < len(where) and where[next_name][0] < end:
            next_name += 1
        if first < next_name:
            clause_words = {w.lower() for w in _LETTERS_RE.findall(text, start, end)}
            if clause_words & _RANKING:
                ranked.update(name for _, name in where[first:next_name])
        start = end
    clauses, dimensions, quantities = _clauses_and_units(text)
    return Facts(
        words=frozenset(w.lower() for w in _LETTERS_RE.findall(text)),
        figures=frozenset(_figures(text)),
        names=frozenset(names),
        ranked=frozenset(ranked),
        negations=tuple(m.group().lower() for m in _NEGATION_RE.finditer(text)),
        units=frozenset(unit for _, unit in dimensions),
        dimensions=frozenset(dimensions),
        clauses=clauses,
        plain=frozenset(w for w in _LETTERS_RE.findall(text) if w.islower()),
        initials=_initials(text),
        quantities=frozenset(quantities),
    )


def _initials(text: str) -> frozenset[str]:
    """The first letters of each run of 2 to 5 words inside a clause ("North America" → na,
    "Europe, the Middle East and Africa" → emea, small words skipped): what an acronym of
    them spells."""
    out: set[str] = set()
    for clause in re.split(r"[.;:!?\n()]", text):
        words = [w for w in _LETTERS_RE.findall(clause) if w.lower() not in _SMALL_WORDS]
        for i in range(len(words)):
            for n in range(2, 6):
                if i + n <= len(words):
                    out.add("".join(w[0] for w in words[i : i + n]).lower())
    return frozenset(out)


_SMALL_WORDS = frozenset("the and of for a an to in on at by with".split())


@dataclass(frozen=True)
class Pool:
    """What one reference makes available to a text judged against it: every figure, word
    and ranked name of its values (a leaf, or every leaf of its step)."""

    figures: frozenset[str]
    words: frozenset[str]  # lowercased, and single capital letters as they are
    ranked: frozenset[str]
    rounded: frozenset[str]  # every figure's roundings (figure_matches, precomputed)
    counts: frozenset[int]  # the figures that are counts (COUNTS)
    initials: frozenset[str] = frozenset()  # what an acronym of its words would spell
    quantities: frozenset[tuple[str, str, float]] = frozenset()  # Facts.quantities

    @classmethod
    def of(cls, values: Iterable[Any]) -> Pool:
        figures: set[str] = set()
        words: set[str] = set()
        ranked: set[str] = set()
        initials: set[str] = set()
        quantities: set[tuple[str, str, float]] = set()
        for value in values:
            if is_number(value):
                figure = number_figure(value)
                if figure is not None:
                    figures.add(figure)
            elif isinstance(value, str):
                read = facts(value)
                figures |= read.figures
                words |= read.words | read.names
                ranked |= read.ranked
                initials |= read.initials
                quantities |= read.quantities
        rounded = frozenset().union(*(roundings(f) for f in figures))
        counts = frozenset(int(f) for f in figures if f in COUNTS)
        return cls(
            frozenset(figures),
            frozenset(words),
            frozenset(ranked),
            rounded,
            counts,
            frozenset(initials),
            frozenset(quantities),
        )

    def has_figure(self, figure: str) -> bool:
        return figure in self.rounded or not roundings(figure).isdisjoint(self.figures)

    def has_quantity(self, quantities: Iterable[tuple[str, str, float]], figure: str) -> bool:
        """Whether a quantity ``figure`` measures (among ``quantities``) is one of its own in
        other units ("250 g" for "0.25 kg"), within 2 %."""
        return any(
            same_quantity(mine, theirs)
            for mine in quantities
            if mine[0] == figure
            for theirs in self.quantities
        )

    def has_name(self, name: str) -> bool:
        """Whether its values give ``name``, or the words an acronym ``name`` stands for."""
        return name in self.words or (name.isalpha() and len(name) > 1 and name in self.initials)


def same_quantity(a: tuple[str, str, float], b: tuple[str, str, float]) -> bool:
    """Two quantities of one dimension whose values agree: exactly for a count or an amount
    of money ("3 hundred" and 300), within 2 % for a measure converted ("5 miles", "8 km")."""
    if a[1] != b[1]:
        return False
    exact = a[1] == "count" or a[1].startswith("currency:")
    return abs(a[2] - b[2]) <= (1e-9 if exact else 0.02) * max(abs(a[2]), abs(b[2]), 1e-12)
