"""Roles in a text against its references: which of its names, figures and shared words
stand in a relation to which ("Lyon beat Nantes", "from Lisbon to Oslo"), whether two of them
are exchanged (beyond), ordered otherwise or paired anew (uncertain) — for the noise rule's
verdict on a text (:mod:`.texts`)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from runs.engine.analysis.facts import COUNTS, Facts
from runs.engine.analysis.reading import (
    FUNCTION_WORDS,
    ROLE_WORDS,
    Reading,
    content_tokens,
    stem,
)

__all__ = ["pairings", "roles"]


def _kinds(r: Reading) -> dict[str, str]:
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


def roles(r: Reading) -> tuple[list[str], list[str]]:
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
            or stem(a) == stem(b)
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


# A token's neighbours: the content tokens this many places either side of it in its clause.
_NEAR = 2


def pairings(r: Reading) -> list[str]:
    """Each figure, name or unit of the text beside another, where no reference has the two
    together ("5 years" where the references say "3
    years" and "5 days"): words taken from the references and put together anew."""
    plain = r.own.plain.union(*(ref.plain for ref in r.refs))
    anchors = set(r.own.figures) | (set(r.own.names) - plain) | set(r.own.units)
    carried = r.pool_words | {f for p in r.pools for f in p.figures}

    def together(read: Facts) -> set[frozenset[str]]:
        out = set()
        for clause in read.clauses:
            tokens = content_tokens(clause)
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
