"""The noise rule for a text leaf: ``beyond-noise`` on what it claims, ``within-noise`` only on
evidence, ``uncertain`` otherwise — each with the rule and the threshold that decided it.

A text is judged against the references' texts (the parent's value and its samples') and, per
reference, everything its step wrote (its :class:`.facts.Pool`). In order:

1. **JSON or code held in text** is compared structurally (:mod:`.structured`): a JSON text
   field by field (each field judged as a leaf of its own), code token by token.
2. **The same text**: a candidate equal to a reference once case, spacing, punctuation and
   number words are set aside ("3 of the 4" and "three of the four") is ``within-noise``.
3. **Beyond**, however few words differ, when it
   - quotes a figure, gives a name, or ranks a name no reference does (:mod:`.facts`; a
     figure written as a word counts as the figure);
   - negates where no reference does, or drops the negation every reference has;
   - **reverses** a claim by an opposite word: it says a word no reference says whose
     opposite (:mod:`.lexicon`: rise ↔ fall, permit ↔ forbid, safe ↔ unsafe, above ↔ below…)
     most references say and it does not;
   - **changes a unit**: it gives a unit no reference gives, of a dimension (length,
     currency, scale…) whose unit most references give and it does not;
   - **swaps roles**: two of its names, figures or words stand where the references put each
     other — after "from" where every reference has them after "to", or in clauses that,
     with the two exchanged, every reference has;
   - or **says something else**: more of its words (function words aside) are in no
     reference than ``TEXT_MARGIN`` × what the references show among themselves (their upper
     quartile) and more than ``TEXT_FLOOR``.
4. **Within** only when it can be shown: no more new words than that threshold, and every
   figure, name, unit and polarity word it carries is carried by the references, every word
   all of them carry is in it, and each pair of its names, figures and shared words stands in
   a clause in the order some reference has them (the same roles).
5. Otherwise ``uncertain``, saying what could not be checked ("says 'slipped', which no
   reference says, and which could reverse a claim"). A figure, name or ranking new to the
   references is uncertain rather than beyond when the references themselves often carry one
   no other has (``RARE_SHARE``), as before.

The rule is lexical (no model), so what it cannot read it says it cannot read; a judge model,
when one is configured, decides what it leaves ``uncertain`` (``noise.verdicts``' referee).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

from runs.engine.analysis.facts import COUNTS, Facts, Pool, facts, figure_matches
from runs.engine.analysis.judgements import BEYOND, RARE_SHARE, UNCERTAIN, WITHIN, Judgement
from runs.engine.analysis.lexicon import (
    number_words_as_digits,
    opposites,
    polarity_word,
    prefixed_opposite,
    unit_of,
)
from runs.engine.analysis.structured import Decide, judge_structured

__all__ = ["TEXT_ELSE", "TEXT_FLOOR", "TEXT_MARGIN", "judge_text", "listed", "quantile"]

ABSENT = "<absent>"  # noise._ABSENT: a leaf a reference's step did not write

# A text says something else when more of its words are in no reference (nor in the rest of
# the reference's step) than TEXT_MARGIN × what the references show against one another —
# their upper quartile, so one odd sample does not widen it for every fork — and more than
# TEXT_FLOOR (on templated prose the references may share every word: any fresh phrasing
# would be "more" than 0). Measured (runs.bench.noise): a margin of 1 to 1.5 and a floor of
# 0.5 to 0.6 give the same rates on both sets of cases; a margin of 2 misses the labelled
# routing text about another topic at k = 5 (2.5: at k = 8 too), a floor of 0.4 adds a false
# alarm at k = 3. A distance to the nearest reference instead (1 − Jaccard of the words,
# against 2 × the upper quartile of the references' nearest-neighbour distances) caught
# nothing this does not and raised the false alarms on the simulated texts at k = 5 from
# 3.9 % to 4.7 %.
TEXT_MARGIN = 1.5
TEXT_FLOOR = 0.5
# Over the limit, a text is "something else" (beyond) only when this share of its words or
# more is in no reference; under it, a fresh rewording is as likely (issue 43: rewordings with
# 53 % to 77 % new words were false alarms on the tuning set), and the verdict is uncertain.
TEXT_ELSE = 0.8
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
    whom whose when where why how because while per via s
    """.split()
)
# The words before a name, figure or word that give it its role in a relation ("from Paris to
# Berlin", "won against Lyon").
ROLE_WORDS = frozenset("from to into onto toward towards against versus vs".split())


# ------------------------------------------------------------------------------ small helpers


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


def _pct(share: float) -> str:
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


def _stem(word: str) -> str:
    """A word without its commonest inflection (adopt / adopts / adopted / adopting)."""
    for suffix in ("ings", "ing", "ies", "ied", "es", "ed", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _word(word: str) -> str:
    """A word as "the same word" reads it: a unit as its unit (kilometres → km), any other
    word by its stem."""
    unit = unit_of(word, after_figure=False)
    return unit[0] if unit is not None else _stem(word)


# ------------------------------------------------------------------------- marks (as before)


def _new_figures(read: Facts, pools: list[Pool]) -> set[str]:
    """The figures of ``read`` no pool quotes. A count (a whole number below 10: "3 risks",
    "4/5") inside the range of the counts the pools quote is not new: counts move with the
    wording ("reviewing 3 figures", "reviewing 4 figures")."""
    counts = [c for p in pools for c in p.counts]
    low, high = (min(counts), max(counts)) if counts else (1, 0)
    return {
        f
        for f in read.figures
        if not any(p.has_figure(f) for p in pools) and not (f in COUNTS and low <= int(f) <= high)
    }


def _replacing_counts(read: Facts, pools: list[Pool], references: list[Facts]) -> set[str]:
    """The counts of ``read`` no pool quotes that stand where a count every reference quotes
    stood ("two eggs" where every reference says three): new, although inside the range."""
    dropped = _dropped("figure", read, references)
    if not any(f in COUNTS for f in dropped):
        return set()
    return {f for f in read.figures if f in COUNTS and not any(p.has_figure(f) for p in pools)}


def _carried_name(name: str, pools: list[Pool]) -> bool:
    """Whether a pool gives ``name``: itself, one part of it ("Lyon-bound"), or it abbreviated
    ("Jan" for January, "Thu" for Thursday: the first letters of a longer word)."""
    if any(p.has_name(name) for p in pools):
        return True
    if "-" in name and any(
        any(p.has_name(part) for p in pools) for part in name.split("-") if len(part) > 1
    ):
        return True
    return len(name) >= 3 and any(
        w.startswith(name) and len(w) > len(name) for p in pools for w in p.words
    )


def _new_names(read: Facts, pools: list[Pool]) -> set[str]:
    return {n for n in read.names if not _carried_name(n, pools)}


def _new_rankings(read: Facts, pools: list[Pool]) -> set[str]:
    return {n for n in read.ranked if not any(n in p.ranked for p in pools)}


def _dropped(mark: str, read: Facts, references: list[Facts]) -> set[str]:
    """The marks every reference text has that ``read`` lacks: with a new mark, a substitution
    ("62.46 where every reference quotes 20.82") rather than a figure added in passing."""
    if not references:
        return set()
    if mark == "figure":

        def quoted(figure: str, text: Facts) -> bool:
            return any(figure_matches(figure, other) for other in text.figures)

        common = {f for f in references[0].figures if all(quoted(f, r) for r in references)}
        return {f for f in common if not quoted(f, read)}
    marks = (lambda f: f.names) if mark == "name" else (lambda f: f.ranked)
    dropped = set(frozenset.intersection(*(marks(r) for r in references))) - marks(read)
    if mark == "name":  # "EMEA" said as "Europe, the Middle East and Africa"
        dropped -= read.initials
    return dropped


# The marks a text can carry that no reference has: (mark, what the text does with it, its
# new marks against the references' pools).
_MARKS: tuple[tuple[str, str, Callable[[Facts, list[Pool]], set[str]]], ...] = (
    ("figure", "quotes", _new_figures),
    ("name", "names", _new_names),
    ("ranking", "ranks or recommends", _new_rankings),
)


def _new_words(read: Facts, pools: list[Pool]) -> float:
    """The share of a text's words (function words aside) that no pool uses."""
    content = read.words - FUNCTION_WORDS
    if not content:
        return 0.0
    return sum(1 for w in content if not any(w in p.words for p in pools)) / len(content)


# ------------------------------------------------------------------------------ the checks


class _Reading:
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


def _reversals(r: _Reading) -> tuple[list[str], set[str]]:
    """The opposites this text says where most references say the other side (beyond), and
    the polarity words it says that no reference says (uncertain: they could reverse a
    claim)."""
    beyond: list[str] = []
    unchecked: set[str] = set()
    for word in sorted(r.new_words):
        opposite = opposites(word) if polarity_word(word) else frozenset()
        said = {
            other
            for ref in r.refs
            for other in ref.words
            if other in opposite or prefixed_opposite(word, other)
        } - r.own.words
        negated = bool(r.own.negations) and not r.most(lambda ref: bool(ref.negations))
        if word in FUNCTION_WORDS and not _beside_figure(word, r.own):
            said = set()  # "up", "over", "down" as particles ("set up", "shut down")
        prefixed = all(prefixed_opposite(word, other) for other in said)
        if said and (negated or (prefixed and r.own.negations)):
            unchecked.add(word)  # "not worn" for "unworn": a negated opposite
        elif said and r.most(
            lambda ref, said=said, word=word: _says_about(ref, said, _around(r.own, word))
        ):
            around = _around(r.own, word)
            count = r.majority(lambda ref, said=said, around=around: _says_about(ref, said, around))
            beyond.append(
                f"says “{word}” where {count} of {len(r.refs)} references say its opposite "
                f"({listed(said)}) of the same thing ({listed(around, 3)})"
            )
        elif said:
            unchecked.add(word)
        elif (opposite & r.pool_words and word not in FUNCTION_WORDS) or any(
            prefixed_opposite(word, other) for other in r.pool_words
        ):
            unchecked.add(word)
    return beyond, unchecked


# How near (in content words of one clause) a polarity word is to what it is said of.
_ABOUT = 3


def _around(read: Facts, word: str) -> set[str]:
    """The content words and figures within ``_ABOUT`` places of ``word`` in its clauses: what
    it is said of ("revenue rose 4 %": revenue, 4, %)."""
    out: set[str] = set()
    for clause in read.clauses:
        tokens = _content(clause)
        for i, token in enumerate(tokens):
            if token == word:
                out |= set(tokens[max(i - _ABOUT, 0) : i] + tokens[i + 1 : i + 1 + _ABOUT])
    return out - {word}


def _says_about(ref: Facts, said: set[str], around: set[str]) -> bool:
    """Whether ``ref`` says one of ``said`` of something in ``around``."""
    return any(_around(ref, other) & around for other in said & ref.words)


def _negation_restated(r: _Reading) -> str:
    """A word that carries the negation one side writes with "not" ("haven't worn" for
    "unworn", "not active" for "inactive"): "X" with a negating prefix on the other side."""
    theirs = r.pool_words
    for word in sorted(r.own.words | theirs):
        for prefix in ("un", "non", "in", "im", "dis"):
            if word.startswith(prefix) and len(word) - len(prefix) >= 3:
                bare = word[len(prefix) :].lstrip("-")
                if (word in r.own.words and bare in theirs) or (
                    word in theirs and bare in r.own.words
                ):
                    return f"“{bare}” and “{word}”"
    return ""


def _beside_figure(word: str, read: Facts) -> bool:
    """Whether ``word`` stands next to a figure in a clause ("down 12 %", "over 25")."""
    for clause in read.clauses:
        for i, token in enumerate(clause):
            if token == word and any(
                t in read.figures for t in clause[max(i - 1, 0) : i] + clause[i + 1 : i + 2]
            ):
                return True
    return False


def _unit_changes(r: _Reading) -> tuple[list[str], set[str]]:
    """The units this text gives that no reference gives: beyond where most references give
    another unit of the same dimension (km → miles, $ → €, million → billion)."""
    beyond: list[str] = []
    unchecked: set[str] = set()
    seen = {unit for ref in r.refs for unit in ref.units} | {
        unit for p in r.pools for unit in p.words
    }
    for dimension, unit in sorted(r.own.dimensions):
        if unit in seen:
            continue
        theirs = {u for ref in r.refs for d, u in ref.dimensions if d == dimension} - r.own.units
        if (
            theirs
            and r.most(lambda ref, theirs=theirs: bool(ref.units & theirs))
            and r.own.figures
            and not _new_figures(r.own, r.pools)
        ):
            # The same figures in another unit: "12 miles" for "12 km". (New figures with it
            # may be a conversion, "1.14 t" for "1140 kg": unchecked.)
            beyond.append(f"gives {unit} where the references give {listed(theirs)} ({dimension})")
        else:
            unchecked.add(unit)
    return beyond, unchecked


def _kinds(r: _Reading) -> dict[str, str]:
    """The tokens whose places carry roles, by kind: names, figures, and the content words
    every reference text has ("buyer", "seller")."""
    shared = (
        frozenset.intersection(*(ref.words for ref in r.refs)) - FUNCTION_WORDS
        if r.refs
        else frozenset()
    )
    kinds = {w: "word" for w in shared & r.own.words}
    kinds.update({f: "figure" for f in r.own.figures})
    # A name a reference also writes in lower case ("Participants" heading a table column,
    # "participants" in a sentence) is a word, not a party to a relation.
    named = set(r.own.names).union(*(ref.names for ref in r.refs)) - r.own.plain
    named -= set().union(*(ref.plain for ref in r.refs))
    kinds.update({n: "name" for n in named & (r.own.names | r.own.words)})
    return kinds


def _pairs(clauses: Iterable[tuple[str, ...]], salient: set[str]) -> set[tuple[str, str]]:
    """Each ordered pair of salient tokens that share a clause, and each (role word, salient
    token) that stand together."""
    out: set[tuple[str, str]] = set()
    for clause in clauses:
        marks = [t for t in clause if t in salient]
        out |= {(a, b) for a, b in combinations(marks, 2) if a != b}
        out |= {
            (a, b)
            for a, b in zip(clause, clause[1:], strict=False)
            if a in ROLE_WORDS and b in salient
        }
    return out


def _related(a: str, b: str, clauses: list[tuple[str, ...]]) -> bool:
    """Whether ``a`` and ``b`` stand in one clause with a word relating them in between (a
    verb, a role word: "Lyon beat Nantes", "from Lisbon to Oslo") — not side by side in a
    list, whose order carries no role."""
    for clause in clauses:
        if a in clause and b in clause:
            i, j = sorted((clause.index(a), clause.index(b)))
            between = clause[i + 1 : j]
            if any(w in ROLE_WORDS or (w not in FUNCTION_WORDS and w.isalpha()) for w in between):
                return True
    return False


def _roles(r: _Reading) -> tuple[list[str], list[str]]:
    """Roles swapped — beyond: two of its names (figures, shared words) stand where the
    references put each other, and with the two exchanged nothing in it stands against what
    the references have — and pairs of names or figures the references have the other way
    round (uncertain: a reworded sentence may reorder them)."""
    kinds = _kinds(r)
    salient = set(kinds)
    theirs = set().union(*(_pairs(ref.clauses, salient) for ref in r.refs)) if r.refs else set()
    together = {frozenset(p) for p in theirs if p[0] not in ROLE_WORDS}
    roles = {token for word, token in theirs if word in ROLE_WORDS}

    def problems(clauses: list[tuple[str, ...]]) -> set[tuple[str, str]]:
        """The pairs that stand against the references: an order they all reverse, a role
        word they never give the token, two tokens that never share a clause in them."""
        out = set()
        for a, b in _pairs(clauses, salient):
            if (a, b) in theirs:
                continue
            if (b, a) in theirs or (a in ROLE_WORDS and b in roles):
                out.add((a, b))
            elif a not in ROLE_WORDS and frozenset((a, b)) not in together:
                out.add(("~", a + " " + b))  # never together in a reference
        return out

    own = list(r.own.clauses)
    against = problems(own)
    ordered = {p for p in against if p[0] != "~"}
    clauses = {clause for ref in r.refs for clause in ref.clauses}
    involved = sorted({t for a, b in against for t in (a, *b.split()) if t in salient})
    for a, b in combinations(involved, 2):
        if (
            kinds[a] != kinds[b]
            or kinds[a] == "word"  # shared words reorder with the wording (measured: 6 of
            or a in COUNTS  # the simulated false alarms); counts move with it
            or b in COUNTS
            or _stem(a) == _stem(b)
            or not _related(a, b, own)
        ):
            continue
        swap = {a: b, b: a}
        swapped = [tuple(swap.get(t, t) for t in clause) for clause in own]
        # Exchanged, a clause of it is a reference's clause word for word; or, where it
        # stood against two or more of the references' pairs, it stands against none.
        if any(x not in clauses and y in clauses for x, y in zip(own, swapped, strict=True)) or (
            len(against) >= 2 and kinds[a] != "word" and not problems(swapped)
        ):
            return [f"swaps {a} and {b}: the references have them the other way round"], []
    shown = [
        f"{b} after “{a}”" if a in ROLE_WORDS else f"{a} before {b}"
        for a, b in sorted(ordered)
        if a in ROLE_WORDS or kinds.get(a) == kinds.get(b) != "word"
    ]
    return [], shown


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


def _edits(r: _Reading) -> tuple[list[str], list[str]]:
    """When the text is one reference edited (``NEAR_COPY``): two of its tokens exchanged
    (beyond: swapped roles), or a figure, name, unit, polarity or negation word changed to
    one no other reference has in that place (beyond), or another word so changed
    (uncertain). An edit some other reference makes at that place too is the step's own
    variation."""
    from difflib import SequenceMatcher

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
            and (single or (len(edits) <= 2 and _marked(old + new, r)))
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


def _marked(tokens: tuple[str, ...], r: _Reading) -> bool:
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


def _dropped_words(r: _Reading) -> set[str]:
    """The content words every reference text has (by their stem) that this text lacks — nor
    says shortened ("Postgres" for PostgreSQL, "Sun" for Sunday) or in another form of the same
    stem ("delivery" for "delivered")."""
    if len(r.refs) < 2:
        return set()
    stems = [{_word(w) for w in ref.words - FUNCTION_WORDS} for ref in r.refs]
    common = set.intersection(*stems)
    mine = {_word(w) for w in r.own.words | r.own.names} | r.own.units
    return {w for w in common - mine if not any(_akin(w, m) for m in mine)}


def _akin(a: str, b: str) -> bool:
    """One word shortened to the other, or both sharing their first five letters."""
    short, long_ = sorted((a, b), key=len)
    return (len(short) >= 3 and long_.startswith(short)) or (len(short) >= 5 and a[:5] == b[:5])


# A token's neighbours: the content tokens this many places either side of it in its clause.
_NEAR = 2


def _content(clause: tuple[str, ...]) -> list[str]:
    return [t for t in clause if t not in FUNCTION_WORDS]


def _pairings(r: _Reading) -> list[str]:
    """Each figure, name or unit of the text beside another, where no reference has the two
    together ("5 years" where the references say "3
    years" and "5 days"): words taken from the references and put together anew."""
    plain = r.own.plain.union(*(ref.plain for ref in r.refs))
    anchors = set(r.own.figures) | (set(r.own.names) - plain) | set(r.own.units)
    carried = r.pool_words | {f for p in r.pools for f in p.figures}

    def together(read: Facts) -> set[frozenset[str]]:
        out = set()
        for clause in read.clauses:
            tokens = _content(clause)
            for i, token in enumerate(tokens):
                out |= {frozenset((token, t)) for t in tokens[i + 1 : i + 1 + _NEAR] if t != token}
        return out

    theirs = set().union(*(together(ref) for ref in r.refs))
    seen_apart = {t for pair in theirs for t in pair}
    new: list[str] = []
    for pair in together(r.own) - theirs:
        a, b = sorted(pair)
        if not (a in carried and b in carried and a in seen_apart and b in seen_apart):
            continue
        # Both marks (a figure and its unit, two names, a figure and a name): the text's
        # claims. (With a word every reference has as well: 4 misses fewer on 482 tuning
        # cases, 15 more uncertain.)
        figures = a in r.own.figures and b in r.own.figures  # a list of figures
        if a in anchors and b in anchors and not figures:
            new.append(f"{a} with {b}")
    return sorted(new)


def judge_text(value: str, observed: list[Any], pools: list[Pool], decide: Decide) -> Judgement:
    """The verdict on text ``value`` against the references (``observed``: the parent's value
    first, ``<absent>`` where a reference wrote nothing) and their steps' ``pools``;
    ``decide`` judges a JSON text's fields (``noise.decide``)."""
    r = _Reading(value, observed, pools)
    if not r.texts:
        return Judgement(BEYOND, "no reference wrote a text here")
    shaped = judge_structured(value, [observed[i] for i in r.texts], decide)
    if shaped is not None:
        return shaped
    same = normalised(value)
    if any(normalised(observed[i]) == same for i in r.texts):
        return Judgement(
            WITHIN,
            "within: the same text as a reference once case, spacing, punctuation and number "
            "words are set aside",
        )
    beyond: list[str] = []
    unsure: list[str] = []
    reported: set[str] = set()  # a name new to every reference is not also a new ranking
    for mark, verb, new_marks in _MARKS:
        new = new_marks(r.own, pools) - reported
        if mark == "figure":
            new |= _replacing_counts(r.own, pools, r.refs)
        if not new:
            continue
        reported |= new
        # What the references do themselves: the marks each has that no *other* one has.
        # (A single reference text has no other to be compared with: nothing to discount.)
        theirs = [len(new_marks(facts(observed[i]), pools[:i] + pools[i + 1 :])) for i in r.texts]
        showing, most = (sum(1 for n in theirs if n), max(theirs)) if len(r.texts) > 1 else (0, 0)
        what = f"{verb} {listed(new)}, which no reference {'ranks' if mark == 'ranking' else verb}"
        instead = _dropped(mark, r.own, r.refs)
        if instead:
            every = "ranks" if mark == "ranking" else verb
            what += f", instead of {listed(instead)}, which every reference {every}"
        if instead:
            beyond.append(what)
        elif showing / len(r.texts) <= RARE_SHARE:
            # Said in passing, replacing nothing every reference says: a change, or a draw
            # that adds a detail; the rule cannot tell which.
            unsure.append(f"{what}, and replaces nothing every reference {verb.split()[0]}")
        elif len(new) > most:
            unsure.append(f"{what}, more than any reference carries ({most}) that no other has")
        else:
            unsure.append(
                f"{what}, but {showing} of {len(r.texts)} references carry a {mark} no other "
                f"has ({_pct(RARE_SHARE)} or more): too few samples to tell"
            )
    if len(r.texts) >= 2:
        negating = [bool(ref.negations) for ref in r.refs]
        restated = _negation_restated(r)
        if r.own.negations and not any(negating):
            what = f"negates ({listed(set(r.own.negations))}) where no reference does"
            (unsure if restated else beyond).append(
                what + (f", but says {restated} as they do" if restated else "")
            )
        elif not r.own.negations and all(negating):
            said = {n for ref in r.refs for n in ref.negations}
            what = f"drops the negation every reference has ({listed(said)})"
            (unsure if restated else beyond).append(
                what + (f", but says {restated} as they do" if restated else "")
            )
    reversed_, polarity = _reversals(r)
    units_changed, units = _unit_changes(r)
    beyond += reversed_ + units_changed
    swapped, orders = _roles(r) if len(r.texts) >= 2 and not beyond else ([], [])
    beyond += swapped
    edited, unseen_edits = _edits(r) if len(r.texts) >= 2 and not beyond else ([], [])
    beyond += edited
    unsure += unseen_edits
    if beyond:
        return Judgement(BEYOND, "beyond: " + "; ".join(beyond))
    if len(r.texts) < 2:
        why = "only one reference wrote a text here: no spread to compare its words with"
        return Judgement(UNCERTAIN, "uncertain: " + "; ".join([*unsure, why]))
    fresh = _new_words(r.own, pools)
    usual = quantile(
        [_new_words(facts(observed[i]), pools[:i] + pools[i + 1 :]) for i in r.texts], 0.75
    )
    limit = max(TEXT_MARGIN * usual, TEXT_FLOOR)
    threshold = (
        f"{_pct(fresh)} of its words are in no reference; the limit is {_pct(limit)} "
        f"(the larger of {TEXT_MARGIN:g} × the {_pct(usual)} the references differ by among "
        f"themselves, upper quartile, and the {_pct(TEXT_FLOOR)} floor)"
    )
    if fresh > limit and fresh >= TEXT_ELSE:
        return Judgement(
            BEYOND, f"beyond: {threshold}, and {_pct(TEXT_ELSE)} or more: it says something else"
        )
    if fresh > limit:
        unsure.append(
            f"more of its words are in no reference than the limit, but under "
            f"{_pct(TEXT_ELSE)}: a rewording or another claim"
        )
    if polarity:
        unsure.append(
            f"says {listed(f'“{w}”' for w in polarity)}, which no reference says and which "
            "could reverse a claim"
        )
    if units:
        unsure.append(f"gives {listed(units)}, a unit no reference gives")
    if orders:
        unsure.append(
            f"has {listed(orders, 3)} in a clause where the references have the other order: "
            "could not check the roles"
        )
    paired = _pairings(r)
    if paired:
        unsure.append(
            f"puts {listed(paired, 3)} together, which no reference does: could not check "
            "the words keep their meaning"
        )
    missing = _dropped_words(r)
    if missing:
        unsure.append(
            f"leaves out {listed(missing)}, which every reference has: could not check it "
            "is said another way"
        )
    if unsure:
        return Judgement(UNCERTAIN, f"uncertain: {'; '.join(unsure)} ({threshold})")
    return Judgement(
        WITHIN,
        f"within: {threshold}; every figure, name, unit and polarity word it carries is also "
        "in the references, in the same roles",
    )
