"""What a text claims against its references: the figures, names and rankings it adds or
puts in place of the references' (:mod:`.facts`), the negation it adds or drops, the opposite
words it says (:mod:`.lexicon`), the units it changes — each a reason for the noise rule's
verdict on a text (:mod:`.texts`)."""

from __future__ import annotations

from collections.abc import Callable

from runs.engine.analysis.facts import COUNTS, Facts, Pool, figure_matches, same_quantity
from runs.engine.analysis.judgements import RARE_SHARE
from runs.engine.analysis.lexicon import opposites, polarity_word, prefixed_opposite
from runs.engine.analysis.reading import (
    FUNCTION_WORDS,
    MOST,
    Reading,
    content_tokens,
    listed,
    pct,
)

__all__ = ["converted", "marks", "negation", "new_figures", "reversals", "unit_changes"]


def new_figures(read: Facts, pools: list[Pool]) -> set[str]:
    """The figures of ``read`` no pool quotes. A count (a whole number below 10: "3 risks",
    "4/5") inside the range of the counts the pools quote is not new: counts move with the
    wording ("reviewing 3 figures", "reviewing 4 figures")."""
    counts = [c for p in pools for c in p.counts]
    low, high = (min(counts), max(counts)) if counts else (1, 0)
    return {
        f
        for f in read.figures
        if not any(p.has_figure(f) or p.has_quantity(read.quantities, f) for p in pools)
        and not (f in COUNTS and low <= int(f) <= high)
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
        said_otherwise = {  # in other units: "250 g" for "0.25 kg"
            q[0]
            for q in references[0].quantities
            for mine in read.quantities
            if same_quantity(q, mine)
        }
        return {f for f in common if not quoted(f, read)} - said_otherwise
    marks = (lambda f: f.names) if mark == "name" else (lambda f: f.ranked)
    dropped = set(frozenset.intersection(*(marks(r) for r in references))) - marks(read)
    if mark == "name":  # "EMEA" said as "Europe, the Middle East and Africa"
        dropped -= read.initials
    return dropped


# The marks a text can carry that no reference has: (mark, what the text does with it, its
# new marks against the references' pools).
_MARKS: tuple[tuple[str, str, Callable[[Facts, list[Pool]], set[str]]], ...] = (
    ("figure", "quotes", new_figures),
    ("name", "names", _new_names),
    ("ranking", "ranks or recommends", _new_rankings),
)


def reversals(r: Reading) -> tuple[list[str], set[str]]:
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
        tokens = content_tokens(clause)
        for i, token in enumerate(tokens):
            if token == word:
                out |= set(tokens[max(i - _ABOUT, 0) : i] + tokens[i + 1 : i + 1 + _ABOUT])
    return out - {word}


def _says_about(ref: Facts, said: set[str], around: set[str]) -> bool:
    """Whether ``ref`` says one of ``said`` of something in ``around``."""
    return any(_around(ref, other) & around for other in said & ref.words)


# Negation words that often say a thing another way ("costs nothing" for "free", "instead
# of 15 thousand" for "down from"): a text with only these is not shown to negate.
WEAK_NEGATIONS = frozenset({"nothing", "without", "instead"})


def _negated_words(r: Reading) -> set[str]:
    """The content words just after a negation (its first three) in most reference texts ("no
    *evidence* of *fraud*")."""
    counts: dict[str, int] = {}
    for ref in r.refs:
        seen = set()
        for clause in ref.clauses:
            for i, token in enumerate(clause[:-1]):
                if token in {"no", "not", "never", "none", "nothing", "without"} or token.endswith(
                    ("n't", "n’t")
                ):
                    following = [t for t in clause[i + 1 : i + 6] if t not in FUNCTION_WORDS]
                    seen.update(following[:3])
        for word in seen:
            counts[word] = counts.get(word, 0) + 1
    return {w for w, n in counts.items() if n > MOST * len(r.refs)}


def _negation_restated(r: Reading) -> str:
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


def converted(dimension: str, r: Reading) -> bool:
    """Whether every quantity of ``dimension`` the text gives is one a reference gives in
    other units ("1.14 tonnes" for "1,140 kg")."""
    mine = [q for q in r.own.quantities if q[1] == dimension]
    return bool(mine) and all(
        any(same_quantity(q, theirs) for ref in r.refs for theirs in ref.quantities) for q in mine
    )


def unit_changes(r: Reading) -> tuple[list[str], set[str]]:
    """The units this text gives that no reference gives: beyond where most references give
    another unit of the same dimension (km → miles, $ → €, million → billion)."""
    beyond: list[str] = []
    unchecked: set[str] = set()
    seen = {unit for ref in r.refs for unit in ref.units} | {
        unit for p in r.pools for unit in p.words
    }
    for dimension, unit in sorted(r.own.dimensions):
        if unit in seen or converted(dimension, r):
            continue
        theirs = {u for ref in r.refs for d, u in ref.dimensions if d == dimension} - r.own.units
        if (
            theirs
            and r.most(lambda ref, theirs=theirs: bool(ref.units & theirs))
            and r.own.figures
            and not new_figures(r.own, r.pools)
        ):
            # The same figures in another unit: "12 miles" for "12 km". (New figures with it
            # may be a conversion, "1.14 t" for "1140 kg": unchecked.)
            beyond.append(f"gives {unit} where the references give {listed(theirs)} ({dimension})")
        else:
            unchecked.add(unit)
    return beyond, unchecked


def marks(r: Reading) -> tuple[list[str], list[str]]:
    """The figures, names and rankings the text has that no reference has: beyond when they
    take the place of one every reference has, uncertain otherwise (added in passing, or the
    references themselves often carry one no other has: ``RARE_SHARE``)."""
    beyond: list[str] = []
    unsure: list[str] = []
    pools = r.pools
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
        theirs = [
            len(new_marks(ref, pools[:i] + pools[i + 1 :]))
            for i, ref in zip(r.texts, r.refs, strict=True)
        ]
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
                f"has ({pct(RARE_SHARE)} or more): too few samples to tell"
            )
    return beyond, unsure


def negation(r: Reading) -> tuple[list[str], list[str]]:
    """A negation the text adds where no reference negates, or drops where every one does:
    beyond with a strong negation word, or with what the references negate said bare;
    uncertain when it says the same thing another way ("haven't worn" for "unworn") or with
    weak negation words only."""
    beyond: list[str] = []
    unsure: list[str] = []
    if len(r.texts) >= 2:
        negating = [bool(ref.negations) for ref in r.refs]
        restated = _negation_restated(r)
        if r.own.negations and not any(negating):
            what = f"negates ({listed(set(r.own.negations))}) where no reference does"
            strong = set(r.own.negations) - WEAK_NEGATIONS
            if restated:
                unsure.append(f"{what}, but says {restated} as they do")
            elif not strong:
                unsure.append(f"{what}, with words that often say a thing another way")
            else:
                beyond.append(what)
        elif not r.own.negations and all(negating):
            said = {n for ref in r.refs for n in ref.negations}
            what = f"drops the negation every reference has ({listed(said)})"
            kept = _negated_words(r) & r.own.words
            if restated:
                unsure.append(f"{what}, but says {restated} as they do")
            elif kept:
                beyond.append(f"{what}, and says {listed(kept)} without it")
            else:
                unsure.append(f"{what}, and not what they negate: it may say it another way")
    return beyond, unsure
