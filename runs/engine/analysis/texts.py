"""The noise rule for a text leaf: ``beyond-noise`` on what it claims, ``within-noise`` only on
evidence, ``uncertain`` otherwise — each with the rule and the threshold that decided it.

A text is judged against the references' texts (the parent's value and its samples') and, per
reference, everything its step wrote (its :class:`.facts.Pool`). In order:

1. **JSON or code held in text** is compared structurally (:mod:`.structured`): a JSON text
   field by field (each field judged as a leaf of its own), code token by token.
2. **The same text**: equal to a reference once case, spacing, punctuation and number words
   are set aside ("3 of the 4" and "three of the four") is ``within-noise``.
3. **Beyond**, however few words differ (:mod:`.claims`, :mod:`.roles`, :mod:`.edits`), when
   it puts a figure, name or ranking in place of one every reference has (a figure written as
   a word, or in other units, is the same figure: "250 g" for "0.25 kg"); negates where no
   reference does (a strong negation word), or drops the negation every reference has and
   says bare what they negate; says an opposite word (:mod:`.lexicon`) where most references
   say the other side of the same thing; gives the same figures in another unit; exchanges
   two names or figures the references have the other way round; is one reference with a
   figure, name, unit or polarity word — or one short run of words — changed to what no other
   reference has there; or says something else: more of its words (function words aside) in
   no reference than ``TEXT_MARGIN`` × what the references show among themselves, more than
   ``TEXT_FLOOR``, and ``TEXT_ELSE`` or more.
4. **Within** only when it can be shown: no more new words than that limit, every figure,
   name, unit and polarity word it carries carried by the references, every word all of them
   carry kept (shortened, in another form, or a unit converted counts), and its names and
   figures in the relations some reference has them in (the same roles).
5. Otherwise ``uncertain``, saying what could not be checked ("leaves out stove, which every
   reference has", "changes “rest” to “walk” in a reference's words", "names Ctrip, which no
   reference names, and replaces nothing every reference names").

The rule is lexical (no model), so what it cannot read it says it cannot read; a judge model,
when one is configured, decides what it leaves ``uncertain`` (``noise.verdicts``' referee).
Its rates are measured on the tuning sets and on a set it never saw (``runs.bench.noise``).
"""

from __future__ import annotations

from typing import Any

from runs.engine.analysis import claims
from runs.engine.analysis.edits import edits
from runs.engine.analysis.facts import Facts, Pool
from runs.engine.analysis.judgements import BEYOND, UNCERTAIN, WITHIN, Judgement
from runs.engine.analysis.reading import (
    FUNCTION_WORDS,
    Reading,
    akin,
    listed,
    normalised,
    pct,
    quantile,
    word_form,
)
from runs.engine.analysis.roles import pairings, roles
from runs.engine.analysis.structured import Decide, judge_structured

__all__ = ["TEXT_ELSE", "TEXT_FLOOR", "TEXT_MARGIN", "judge_text"]

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


def _new_words(read: Facts, pools: list[Pool]) -> float:
    """The share of a text's words (function words aside) that no pool uses."""
    content = read.words - FUNCTION_WORDS
    if not content:
        return 0.0
    return sum(1 for w in content if not any(w in p.words for p in pools)) / len(content)


def _dropped_words(r: Reading) -> set[str]:
    """The content words every reference text has (by their stem) that this text lacks — nor
    says shortened ("Postgres" for PostgreSQL, "Sun" for Sunday) or in another form of the same
    stem ("delivery" for "delivered")."""
    if len(r.refs) < 2:
        return set()
    stems = [{word_form(w) for w in ref.words - FUNCTION_WORDS} for ref in r.refs]
    common = set.intersection(*stems)
    mine = {word_form(w) for w in r.own.words | r.own.names} | r.own.units
    converted = {  # a unit whose quantities the text gives in another ("250 g" for 0.25 kg)
        unit
        for dimension, unit in r.own.dimensions | {d for ref in r.refs for d in ref.dimensions}
        if claims.converted(dimension, r)
    }
    return {w for w in common - mine - converted if not any(akin(w, m) for m in mine)}


def _only_dropping(reason: str, missing: set[str]) -> bool:
    """Whether ``reason`` is an edit's that changes words to nothing, each of them ``missing``
    (by its form: "standard" is missing as "standard")."""
    prefix, end = "changes “", "” to “(nothing)”"
    if not (reason.startswith(prefix) and end in reason):
        return False
    dropped = reason[len(prefix) : reason.index(end)].split()
    return bool(dropped) and all(word_form(w) in missing for w in dropped)


def judge_text(value: str, observed: list[Any], pools: list[Pool], decide: Decide) -> Judgement:
    """The verdict on text ``value`` against the references (``observed``: the parent's value
    first, ``<absent>`` where a reference wrote nothing) and their steps' ``pools``;
    ``decide`` judges a JSON text's fields (``noise.decide``)."""
    r = Reading(value, observed, pools)
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
    beyond, unsure = claims.marks(r)
    if len(r.texts) >= 2:
        negated_beyond, negated_unsure = claims.negation(r)
        beyond += negated_beyond
        unsure += negated_unsure
    reversed_, polarity = claims.reversals(r)
    units_changed, units = claims.unit_changes(r)
    beyond += reversed_ + units_changed
    swapped, orders = roles(r) if len(r.texts) >= 2 and not beyond else ([], [])
    beyond += swapped
    edited, unseen_edits = edits(r) if len(r.texts) >= 2 and not beyond else ([], [])
    beyond += edited
    unsure += unseen_edits
    if beyond:
        return Judgement(BEYOND, "beyond: " + "; ".join(beyond))
    if len(r.texts) < 2:
        why = "only one reference wrote a text here: no spread to compare its words with"
        return Judgement(UNCERTAIN, "uncertain: " + "; ".join([*unsure, why]))
    fresh = _new_words(r.own, pools)
    usual = quantile(
        [
            _new_words(ref, pools[:i] + pools[i + 1 :])
            for i, ref in zip(r.texts, r.refs, strict=True)
        ],
        0.75,
    )
    limit = max(TEXT_MARGIN * usual, TEXT_FLOOR)
    threshold = (
        f"{pct(fresh)} of its words are in no reference; the limit is {pct(limit)} "
        f"(the larger of {TEXT_MARGIN:g} × the {pct(usual)} the references differ by among "
        f"themselves, upper quartile, and the {pct(TEXT_FLOOR)} floor)"
    )
    if fresh > limit and fresh >= TEXT_ELSE:
        return Judgement(
            BEYOND, f"beyond: {threshold}, and {pct(TEXT_ELSE)} or more: it says something else"
        )
    if fresh > limit:
        unsure.append(
            f"more of its words are in no reference than the limit, but under "
            f"{pct(TEXT_ELSE)}: a rewording or another claim"
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
    paired = pairings(r)
    if paired:
        unsure.append(
            f"puts {listed(paired, 3)} together, which no reference does: could not check "
            "the words keep their meaning"
        )
    missing = _dropped_words(r)
    # An edit that only drops words said missing here is said once, as missing.
    unsure = [u for u in unsure if not _only_dropping(u, missing)]
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
