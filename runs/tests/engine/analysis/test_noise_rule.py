"""The noise rule by leaf type (issues 17 and 30): numbers against the samples' range
(widened), categories against the set of values seen with the number of samples in mind
(``uncertain`` when rare values are common among them), texts by what they state — figures,
names, rankings, negation — and by how many of their words no sample used; every verdict with
its reason. Its false-alarm, miss and uncertain rates are measured by leaf type on the labelled
set kept beside this file (``noise_cases``) and on simulated cases (``runs.bench.noise``)."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from runs.bench import noise as noise_cases
from runs.bench.noise import (
    KINDS,
    Tally,
    measure,
    measure_labelled,
    noise_figures,
    tuning_cases,
    unseen_cases,
    with_simulated_judge,
)
from runs.engine.analysis.facts import facts, figure_matches
from runs.engine.analysis.noise import (
    BEYOND,
    NO_SAMPLES,
    UNCERTAIN,
    WITHIN,
    decide,
    is_text,
    judge,
    leaf_kind,
)
from runs.engine.apps.registry import get_pipeline
from runs.lib.hashing import canonical_json
from runs.tests.engine.analysis.noise_cases import ABSENT, CASES

# --- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fork", "observed", "verdict"),
    [
        (0.7, [0.6, 0.8, 0.75], WITHIN),  # inside the range seen
        (0.85, [0.6, 0.8, 0.75], WITHIN),  # outside it, inside half its width beyond the top
        (0.95, [0.6, 0.8, 0.75], BEYOND),  # farther than half the width
        (0.45, [0.6, 0.8, 0.75], BEYOND),
        (20.8212, [20.8211, 20.8211, 20.8211], BEYOND),  # a deterministic number: any change
        (2.4, [1, 2, "2"], WITHIN),  # the text "2" does not stop 2.4 being judged on 1..2 widened
        (7, ["<absent>", "<absent>"], BEYOND),  # the parent never had a number here
    ],
)
def test_a_number_is_judged_against_the_sampled_range_widened_by_half_its_width(
    fork, observed, verdict
):
    assert judge(fork, observed) == verdict


def test_a_numbers_verdict_says_the_range_it_was_judged_against():
    assert decide(0.95, [0.6, 0.8, 0.75]).why == (
        "outside the references' range 0.6 to 0.8 widened by half its width (0.5 to 0.9)"
    )
    assert decide(0.85, [0.6, 0.8, 0.75]).why.startswith("outside the references' range 0.6 to")
    assert decide(0.7, [0.6, 0.8, 0.75]).why == "inside the references' range 0.6 to 0.8"


def test_a_boolean_is_a_category_not_a_number():
    assert judge(True, [0, 1, 0, 1]) == BEYOND  # within 0..1, but True was never produced
    assert judge(False, [True, False]) == WITHIN


# --- categories -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fork", "observed", "verdict"),
    [
        ("B", ["C", "C", "A", "C", "A"], BEYOND),  # a winning group the samples never gave
        ("A", ["C", "C", "A", "C", "A"], WITHIN),
        (None, ["C", "A", "C", "A"], BEYOND),
        ("<absent>", ["x y", "<absent>", "x z"], WITHIN),  # the parent sometimes lacked it
        ("<absent>", ["x y", "x z"], BEYOND),  # the step always wrote a text here
        # Every sample its own value: a new one is what the step does, not the change.
        ("east", ["north", "south", "west"], UNCERTAIN),
    ],
)
def test_a_category_is_judged_against_the_set_of_values_seen(fork, observed, verdict):
    assert judge(fork, observed) == verdict


def test_a_label_never_seen_is_uncertain_when_the_samples_show_rare_labels():
    """Issue 30: a routing label the step gives one time in ten is missing from 8 samples as
    often as not; the old rule called it beyond-noise (a false alarm 12 % of the time). When
    one reference in nine holds a label no other does, the chance that a ninth draw does the
    same is about one in nine (Good–Turing): too few samples to tell."""
    references = ["billing", "account", "billing", "refunds", "billing", "billing", "account",
                  "billing", "account"]  # fmt: skip

    judged = decide("shipping", references)

    assert judged.verdict == UNCERTAIN
    assert judged.why == (
        "“shipping” was never given, but 1 of 9 references gave a value no other did "
        "(“refunds”), over the 5% share under which a value never given is the change: new "
        "values turn up that often, too few samples to tell"
    )
    assert issue_17_rule("shipping", references) == BEYOND  # what it used to say
    # Without a rare label among them, a new label is the change ...
    without = ["billing" if r == "refunds" else r for r in references]
    assert decide("shipping", without).verdict == BEYOND
    assert decide("shipping", without).why == (
        "“shipping” was never given; the references gave “billing” ×6, “account” ×3 (values "
        "no other reference gave: 0%, within the 5% share)"
    )
    # ... and with enough samples one rare label no longer hides it (1 in 21 is under 5 %).
    assert judge("shipping", [*references, *["billing"] * 12]) == BEYOND


def test_a_one_word_string_is_a_category_and_more_words_are_text():
    assert not is_text("east") and not is_text("  C  ") and not is_text(3)
    assert is_text("cost per conversion")
    assert [leaf_kind(v) for v in (3, 2.5, True, None, "east", "a b", ABSENT)] == [
        "number", "number", "category", "category", "category", "text", "category"
    ]  # fmt: skip


# --- what a text states ---------------------------------------------------------------------


def test_figures_are_the_numbers_a_text_quotes_not_the_digits_of_a_name():
    read = facts("Order 48213: 1,234 units at 0,5 EUR on the U5 line, P0001 and 2026-09-01.")

    assert read.figures == {"48213", "1234", "0.5", "2026", "9", "1"}
    assert {"u5", "p0001", "eur"} <= read.names


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("20.8211", "20.82", True),  # quoted less precisely
        ("20.8211", "21", True),
        ("0.4667", "46.7", True),  # a rate as its percentage
        ("0.225", "22.5", True),
        ("0.4667", "0.5", False),  # one significant digit left: another figure
        ("17.91", "71.91", False),
        ("4.2", "2.4", False),
    ],
)
def test_a_figure_matches_itself_rounded_or_as_a_percentage(a, b, same):
    assert figure_matches(a, b) is same


def test_names_are_capitalised_words_inside_sentences_acronyms_and_group_letters():
    read = facts(
        "A caseworker called Acme about group B. Hamburg's Senate met. The USD figure stands. "
        "Overall, I think Lisbon leads. A 4.2 billion plan."
    )

    assert read.names == {"acme", "B", "hamburg", "senate", "usd", "lisbon"}
    # "A" as an article, "The", "Overall" and "I" are not names; "Hamburg's" is, possessive.


def test_ranked_names_are_the_names_in_a_clause_with_a_ranking_word():
    read = facts("Group C is cheapest at 17.91 USD, ahead of A (20.82) and B (25.96); adopt C.")

    assert read.ranked == {"C", "usd"}
    assert facts("B converts best but A costs less than C.").ranked == {"B"}


def test_negations_are_read_with_their_contractions():
    assert facts("We should not adopt it; it isn't cheaper, no longer.").negations == (
        "not", "isn't", "no"
    )  # fmt: skip
    assert facts("Adopt policy C instead.").negations == ("instead",)
    assert facts("Adopt policy C now.").negations == ()


# --- text -----------------------------------------------------------------------------------

REWORDINGS = [
    "Group C has the lowest cost per conversion at 20.82, so adopt policy C.",
    "At 20.82 per conversion, group C is the cheapest; policy C should be adopted.",
    "Policy C is cheapest: group C converts at 20.82 per conversion. Adopt it.",
    "The lowest cost per conversion, 20.82, belongs to group C, so we should adopt policy C.",
    "Group C wins on cost: 20.82 per conversion, so adopting C is recommended.",
    "With a cost per conversion of 20.82, policy C is the one to adopt.",
]


def test_a_rewording_of_the_samples_is_within_noise_and_says_why():
    fresh = "Group C converts at 20.82 per conversion, the lowest cost: adopt policy C."

    judged = decide(fresh, REWORDINGS)

    assert judged.verdict == WITHIN
    assert judged.why.startswith(
        "within: 0% of its words are in no reference; the limit is 50% (the larger of 1.5 × "
        "the 17% the references differ by among themselves, upper quartile, and the 50% floor)"
    )


def test_a_text_naming_another_winner_in_the_same_words_is_beyond_noise():
    """Issue 30: the same sentence with B for C — same figure, one word apart — was
    within-noise 20 times in 20 under the distance rule."""
    other = "Group B has the lowest cost per conversion at 20.82, so adopt policy B."

    judged = decide(other, REWORDINGS)

    assert judged.verdict == BEYOND
    assert (
        judged.why
        == "beyond: names B, which no reference names, instead of C, which every reference names"
    )
    assert issue_17_rule(other, REWORDINGS) == WITHIN  # what it used to say


def test_a_text_ranking_first_another_of_the_names_the_samples_gave_is_beyond_noise():
    """Every sample names all three groups; only which one comes first changes."""
    samples = [
        "Group C is cheapest at 17.91 per conversion, ahead of A (20.82) and B (25.96).",
        "Cost per conversion: C 17.91, A 20.82, B 25.96. Policy C is the one to adopt.",
        "Policy C leads with 17.91 per conversion; A follows at 20.82 and B trails at 25.96.",
        "C has the lowest cost per conversion (17.91); A (20.82) and B (25.96) cost more.",
    ]
    other = "Group B is cheapest at 17.91 per conversion, ahead of A (20.82) and C (25.96)."

    judged = decide(other, samples)

    assert judged.verdict == BEYOND
    assert judged.why == (
        "beyond: ranks or recommends B, which no reference ranks, instead of C, which every reference ranks"
    )
    assert issue_17_rule(other, samples) == WITHIN
    fresh = "At 17.91 per conversion C is cheapest; A costs 20.82 and B 25.96."
    assert judge(fresh, samples) == WITHIN


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            "Group C has the lowest cost per conversion at 20.82, but do not adopt policy C.",
            "beyond: negates (not) where no reference does",
        ),
        (
            "Group C no longer has the lowest cost per conversion at 20.82; adopt policy C.",
            "beyond: negates (no) where no reference does",
        ),
    ],
)
def test_a_negated_claim_is_beyond_noise(text, why):
    judged = decide(text, REWORDINGS)

    assert (judged.verdict, judged.why) == (BEYOND, why)
    assert issue_17_rule(text, REWORDINGS) == WITHIN


def test_dropping_the_negation_every_sample_has_is_beyond_noise():
    samples = [
        "No evidence of fraud was found in the 14 transactions reviewed.",
        "We reviewed 14 transactions and found no sign of fraud.",
        "None of the 14 transactions looks fraudulent.",
        "The review of 14 transactions found nothing suggesting fraud.",
    ]

    judged = decide("Evidence of fraud was found in the 14 transactions reviewed.", samples)

    assert judged.verdict == BEYOND
    assert judged.why == (
        "beyond: drops the negation every reference has (no, none, nothing), and says fraud "
        "without it"
    )
    assert judge("There is no sign of fraud in the 14 transactions.", samples) == WITHIN


def test_a_changed_figure_is_beyond_noise_however_few_words_differ():
    changed = "Group C has the lowest cost per conversion at 62.46, so adopt policy C."

    judged = decide(changed, REWORDINGS)

    assert judged.verdict == BEYOND
    assert judged.why == (
        "beyond: quotes 62.46, which no reference quotes, instead of 20.82, which every reference quotes"
    )
    # The same figure rounded, or as a percentage, is not a new figure.
    assert judge("Group C is cheapest at about 20.8 per conversion; adopt C.", REWORDINGS) == WITHIN


def test_a_changed_figure_is_beyond_noise_when_the_samples_quote_different_figures():
    """Issue 30: when the samples quote different figures of a table, the rule before took
    any text's figures for jitter (37 % of the downstream texts quoting figures no sample
    produced were within-noise)."""
    samples = [
        "Group C is cheapest at 17.91 per conversion, against 20.82 for A.",
        "C costs 17.91 per conversion and B 25.96, so adopt C.",
        "At 17.91 per conversion C beats A, which converts 27 of 120.",
        "Adopt C: 17.91 per conversion, with 46 conversions from 120 participants.",
    ]
    changed = "Group C is cheapest at 53.74 per conversion, against 20.82 for A."

    judged = decide(changed, samples)

    assert judged.verdict == BEYOND
    assert judged.why == (
        "beyond: quotes 53.74, which no reference quotes, instead of 17.91, which every reference quotes"
    )
    assert issue_17_rule(changed, samples) == WITHIN  # what it used to say
    assert judge("C is cheapest: 17.91 per conversion, B costs 25.96.", samples) == WITHIN


def test_a_new_figure_is_uncertain_when_the_samples_quote_new_figures_themselves():
    samples = [
        "Order 48213 was charged twice at 59.90 EUR; refund one charge.",
        "Order 48213: 59.90 EUR charged two times, refund the duplicate.",
        "Double billing on order 48213, 3 days ago (59.90 EUR); refund one charge.",
        "The customer paid 59.90 EUR twice for order 48213 and wants a refund.",
    ]

    added = "Order 48213 was charged twice at 59.90 EUR, 14 days ago; refund one charge."

    judged = decide(added, samples)

    assert judged.verdict == UNCERTAIN
    assert judged.why.startswith(
        "uncertain: quotes 14, which no reference quotes, but 1 of 4 references carry a figure "
        "no other has (5% or more): too few samples to tell"
    )
    # A figure that takes the place of one every sample quotes is the change all the same.
    changed = "Order 48231 was charged twice at 59.90 EUR; refund one charge."
    assert decide(changed, samples).why == (
        "beyond: quotes 48231, which no reference quotes, instead of 48213, which every reference quotes"
    )


def test_a_figure_or_name_another_field_of_the_step_gave_is_not_new():
    """A list item may state what another item stated in the samples: each reference's whole
    step (the context) is what a text is compared with."""
    samples = ["Group A costs 20.82 per conversion.", "Group A costs 20.82 each."]
    steps = [[*samples[:1], "Group C costs 17.91 per conversion."],
             [*samples[1:], "Group C costs 17.91 each."]]  # fmt: skip
    fresh = "Group C costs 17.91 per conversion."

    assert decide(fresh, samples).verdict == BEYOND
    assert judge(fresh, samples, context=steps) == WITHIN


def test_a_text_about_something_else_is_beyond_noise_although_the_samples_varied():
    """The defect of the rule before issue 17: any text that varied across the samples was
    within-noise whatever the fork's text said."""
    unrelated = "the weather turned mild and sunny across the coast this week"

    judged = decide(unrelated, REWORDINGS)

    assert len(set(REWORDINGS)) > 1  # the samples varied
    assert judged.verdict == BEYOND
    assert judged.why.endswith("it says something else")
    assert old_rule(unrelated, REWORDINGS) == WITHIN  # what it used to say


def test_one_odd_sample_does_not_widen_the_threshold_for_every_fork():
    """Issue 30: the distance threshold came from the most isolated sample, so one sample
    about something else made every fork's text within-noise."""
    odd = "Quarterly revenue rose on strong cloud sales in every region."
    unrelated = "the weather turned mild and sunny across the coast this week"

    assert judge(unrelated, [*REWORDINGS, odd]) == BEYOND
    assert issue_17_rule(unrelated, [*REWORDINGS, odd]) == WITHIN


def test_a_text_that_never_varied_is_beyond_noise_at_any_change():
    judged = decide("Group C wins, adopt C.", ["Group C wins, adopt it."] * 3)

    assert judged.verdict == BEYOND
    assert judged.why == (
        "every reference gave the same text: the step never varied here, so any other value "
        "is the change"
    )


def test_a_text_against_a_single_sample_text_is_uncertain_unless_it_states_something_new():
    assert judge("Group C wins again.", ["Group C wins.", ABSENT]) == UNCERTAIN
    assert judge("Group B wins.", ["Group C wins.", ABSENT]) == BEYOND
    assert judge("Group B wins.", [ABSENT, "C"]) == BEYOND  # no reference wrote a text


def test_one_sample_is_no_samples():
    assert decide("a b", ["c d"]) == decide("a b", ["c d"], None)
    assert decide("a b", ["c d"]).verdict == NO_SAMPLES


def simulated(change: tuple[str, Any] | None, seed: int) -> dict[str, Any]:
    """The demo pipeline's outputs from the simulator, draws seeded by ``seed``."""
    sim = noise_cases._Simulation(get_pipeline("research"), Path(settings.REWIND_DATA_DIR))
    full = None if change is None else ("analyse", *change)
    return sim.run(random.Random(seed), change=full)


@pytest.mark.parametrize(("step", "path"), [("critique", "issues"), ("publish", None)])
def test_simulated_texts_rewordings_stay_within_noise_and_a_changed_conclusion_does_not(step, path):
    """Real simulator prose at temperature > 0 (critique's first issue; the published report,
    a tool's text over the llm steps' prose): fresh unchanged draws are never beyond the noise
    of 5 samples and at least half within it — the rest uncertain, each saying what it could
    not check (the published report is long and quotes other figures in each draw; a draw that
    leaves out words every sample has, or edits a sample's figures, is not shown to be the
    same) — and draws where region east makes B the best group are beyond it."""

    def text(change: tuple[str, Any] | None, seed: int) -> str:
        output = simulated(change, seed)[step]
        return output[path][0] if path else output

    references = [text(None, seed) for seed in range(6)]
    fresh = [text(None, seed) for seed in range(100, 120)]
    east = [text(("region", "east"), seed) for seed in range(100, 120)]

    assert len(set(references)) == 6  # the samples all differ
    verdicts = [decide(t, references) for t in fresh]
    assert BEYOND not in {v.verdict for v in verdicts}
    assert sum(v.verdict == WITHIN for v in verdicts) >= 10
    assert all(v.why.startswith("uncertain: ") for v in verdicts if v.verdict == UNCERTAIN)
    assert sum(judge(t, references) == BEYOND for t in east) >= 18
    assert {old_rule(t, references) for t in east} == {WITHIN}  # what it used to say


# --- the rules before ---------------------------------------------------------------------------


def old_rule(fork_value: Any, observed: list[Any], context: Any = None) -> str:
    """The rule before issue 17: a text that varied at all was within-noise for any value."""
    if len(observed) < 2:
        return NO_SAMPLES
    seen = {canonical_json(v) for v in observed}
    if canonical_json(fork_value) in seen:
        return WITHIN
    if len(seen) == 1:
        return BEYOND
    numbers = [v for v in observed if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) == len(observed):
        if isinstance(fork_value, bool) or not isinstance(fork_value, int | float):
            return BEYOND
        return WITHIN if min(numbers) <= fork_value <= max(numbers) else BEYOND
    return WITHIN


def issue_17_rule(fork_value: Any, observed: list[Any], context: Any = None) -> str:
    """The rule before issue 30: a text within 1.4 × the largest nearest-sample distance
    (Jaccard over words and figures) of its nearest sample; any category never seen beyond."""
    import re

    def tokens(text: str) -> tuple[frozenset[str], frozenset[str]]:
        words = re.findall(r"\d+(?:[.,]\d+)*|[^\W\d_]+", text.lower())
        return frozenset(words), frozenset(w for w in words if w[0].isdigit())

    def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
        return 1 - len(a & b) / len(a | b) if a | b else 0.0

    def distance(a: tuple, b: tuple) -> float:
        return max(jaccard(a[0], b[0]), jaccard(a[1], b[1]))

    if len(observed) < 2:
        return NO_SAMPLES
    seen = {canonical_json(v) for v in observed}
    if canonical_json(fork_value) in seen:
        return WITHIN
    if len(seen) == 1:
        return BEYOND
    numbers = [v for v in observed if isinstance(v, int | float) and not isinstance(v, bool)]
    if isinstance(fork_value, int | float) and not isinstance(fork_value, bool):
        low, high = (min(numbers), max(numbers)) if numbers else (1, 0)
        slack = 0.5 * (high - low)
        return WITHIN if numbers and low - slack <= fork_value <= high + slack else BEYOND
    if not is_text(fork_value):
        return BEYOND
    texts = [tokens(v) for v in observed if isinstance(v, str) and v != ABSENT]
    if len(texts) < 2:
        return BEYOND
    nearest = min(distance(tokens(fork_value), t) for t in texts)
    spread = max(
        min(distance(t, u) for j, u in enumerate(texts) if j != i) for i, t in enumerate(texts)
    )
    return WITHIN if nearest <= 1.4 * spread else BEYOND


# --- the labelled set -----------------------------------------------------------------------


def test_the_labelled_set_is_varied_and_labelled():
    kinds = Counter(leaf_kind(case.candidate) for case in CASES)
    truths = Counter((leaf_kind(case.candidate), case.truth) for case in CASES)

    assert len(CASES) >= 60 and len({case.family for case in CASES}) >= 25
    assert min(kinds[kind] for kind in KINDS) >= 15
    assert all(truths[kind, truth] >= 5 for kind in KINDS for truth in (WITHIN, BEYOND))
    assert all(len(case.references) == 9 for case in CASES)  # k = 8; the first six: k = 5
    assert len({(case.family, case.name) for case in CASES}) == len(CASES)


def test_the_rule_meets_its_goals_on_the_labelled_set_at_k_8(capsys):
    """Issue 43's goals at k = 8: false alarms ≤ 5 %, misses ≤ 10 %, uncertain ≤ 40 % (issue
    30's was 20 %: a text is now within-noise only on evidence, uncertain otherwise). The
    rates are printed by leaf type, at k = 5 too (``rewind_bench`` prints the same)."""
    rates = {k: measure_labelled(samples=k) for k in (8, 5)}
    with capsys.disabled():
        for k, measured in rates.items():
            for kind in KINDS:
                print(f"\nlabelled set, k = {k}, {kind}: {measured.kind(kind).summary()}", end="")
        print()

    at_8 = rates[8]
    assert at_8.false_alarm_rate <= 0.05, at_8.total.summary()
    assert at_8.miss_rate <= 0.10, at_8.total.summary()
    assert at_8.uncertain_rate <= 0.40, at_8.total.summary()
    assert at_8.kind("text").false_alarm_rate <= 0.05
    assert sum((at_8.kind(kind) for kind in KINDS), Tally()) == at_8.total
    before = measure_labelled(issue_17_rule)
    assert before.kind("text").miss_rate > 0.8  # what the rule before missed: most texts
    assert before.kind("category").false_alarm_rate > 0.2  # and the rare labels


# --- the measured rates on simulated cases --------------------------------------------------


def test_the_rates_are_measured_by_leaf_type_and_reproducible():
    rates = measure(cases=9)

    assert rates.unchanged_leaves > 100 and rates.caused_leaves > 100
    assert set(rates.kinds) == set(KINDS)
    assert all(rates.kind(kind).leaves > 10 for kind in KINDS)
    assert rates == measure(cases=9)  # seeded: the same cases every time
    assert rates != measure(cases=9, seed=1)  # other seeds, other draws


def test_a_bad_rule_measures_worse():
    ours = measure(cases=9)
    everything_within = measure(lambda value, observed, context=None: WITHIN, cases=9)
    everything_beyond = measure(lambda value, observed, context=None: BEYOND, cases=9)
    old = measure(old_rule, cases=9)
    before = measure(issue_17_rule, cases=9)

    assert (everything_within.false_alarm_rate, everything_within.miss_rate) == (0, 1)
    assert (everything_beyond.false_alarm_rate, everything_beyond.miss_rate) == (1, 0)
    assert old.miss_rate > 1.5 * ours.miss_rate  # the old rule waved the changed texts through
    # Issue 30: the rule before missed half the texts a change caused; this one few.
    assert before.kind("text").miss_rate > 0.4
    assert ours.kind("text").miss_rate < 0.1
    assert ours.false_alarm_rate < 0.1


def test_the_bench_reports_the_rates_with_goals_and_by_leaf_type():
    rows = {row["figure"]: row for row in noise_figures()}

    simulated, labelled = measure(), measure_labelled()
    false_alarms = rows[
        "noise rule: false alarms (beyond-noise on an unchanged replay's changed leaves)"
    ]
    assert false_alarms["value"] == round(simulated.false_alarm_rate, 6)
    assert false_alarms["goal"] == "≤ 0.05" and false_alarms["pass"]
    assert f"of {simulated.unchanged_leaves} leaves" in false_alarms["note"]
    misses = rows["noise rule: misses (within-noise on leaves a real tool change caused)"]
    assert misses["value"] == round(simulated.miss_rate, 6) and misses["goal"] == "≤ 0.25"
    prefix = f"noise rule, labelled set ({len(tuning_cases())} cases), k = 8"
    for name, value, goal in (
        ("false alarms", labelled.false_alarm_rate, "≤ 0.05"),
        ("misses", labelled.miss_rate, "≤ 0.1"),
        ("uncertain", labelled.uncertain_rate, "≤ 0.4"),
    ):
        row = rows[f"{prefix}: {name}"]
        assert (row["value"], row["goal"], row["pass"]) == (round(value, 6), goal, True)
    for title in ("labelled set, k = 8", "labelled set, k = 5", "simulated, k = 5"):
        for kind in KINDS:
            row = rows[f"noise rule, {title}, {kind} leaves"]
            assert row["pass"] is None and row["note"].startswith("false alarms ")
    assert rows["noise rule, simulated, k = 5, text leaves"]["note"] == (
        simulated.kind("text").summary()
    )


def test_the_bench_reports_the_set_the_rule_never_saw_apart():
    """Issue 43: a rule tuned while looking at its test set is not measured by it. The unseen
    set is measured and reported beside the tuning set, its goals shown, PASS or FAIL."""
    rows = {row["figure"]: row for row in noise_figures()}
    unseen = measure_labelled(cases=unseen_cases())
    prefix = f"noise rule, unseen set ({unseen.cases} text cases, never tuned on), k = 8"

    for name, value, goal in (
        ("false alarms", unseen.false_alarm_rate, "≤ 0.05"),
        ("misses", unseen.miss_rate, "≤ 0.1"),
        ("uncertain", unseen.uncertain_rate, "≤ 0.4"),
    ):
        row = rows[f"{prefix}: {name}"]
        assert (row["value"], row["goal"]) == (round(value, 6), goal)
        assert row["pass"] is (value <= float(goal.split()[1]))
    assert unseen.cases >= 100 and {leaf_kind(c.candidate) for c in unseen_cases()} == {"text"}
    # The simulator's stand-in judge: reported, never a goal (the simulator is not a model).
    judged = rows[f"noise rule with the simulator's judge, unseen set ({unseen.cases} text cases, "
                  "never tuned on), k = 8"]  # fmt: skip
    assert judged["pass"] is None and judged["note"].endswith("(the simulator is not a model)")
    assert measure_labelled(with_simulated_judge, cases=unseen_cases()).uncertain < unseen.uncertain
    tuned = {(c.family, c.candidate) for c in tuning_cases()}
    assert not tuned & {(c.family, c.candidate) for c in unseen_cases()}


# --- issue 43: what ordinary words carry ------------------------------------------------------
# Each of these was within-noise under the rule before (a lexical reading: figures, capitalised
# names, ranking words, English negations and the share of new words).

SALES = [
    "Quarterly revenue rose 4 % on stronger subscription renewals.",
    "Revenue for the quarter rose by 4 %, driven by subscription renewals.",
    "Subscription renewals were stronger, so quarterly revenue rose 4 %.",
    "The quarter's revenue rose 4 % thanks to stronger renewals of subscriptions.",
    "Stronger subscription renewals meant revenue rose 4 % this quarter.",
]


def test_a_reversal_by_antonym_is_beyond_noise_and_says_which_words():
    judged = decide("Quarterly revenue fell 4 % on weaker subscription renewals.", SALES)

    assert judged.verdict == BEYOND
    assert "says “fell” where 5 of 5 references say its opposite (rose)" in judged.why
    assert judge("Revenue rose 4 % this quarter on stronger subscription renewals.", SALES) == (
        WITHIN
    )


PACKING = [
    "Pack the tent, the stove, a water filter and two headlamps.",
    "You will need the tent, a stove, the water filter and 2 headlamps.",
    "Bring: tent, stove, water filter, two headlamps.",
    "Take the tent and stove, plus a water filter and two headlamps.",
    "The list: a tent, a stove, one water filter, two headlamps.",
]


def test_a_replaced_list_item_is_not_within_noise_and_names_the_item():
    judged = decide("Pack the tent, a compass, a water filter and two headlamps.", PACKING)

    assert judged.verdict != WITHIN
    assert "leaves out stove, which every reference has" in judged.why


RECIPE = [
    "Whisk three eggs with 200 ml of milk, then fold in the flour.",
    "Beat 3 eggs into 200 ml milk and fold the flour in.",
    "Combine three eggs and 200 ml of milk; fold in the flour last.",
    "Mix 200 ml of milk with three whisked eggs, then add the flour.",
    "Whisk the milk (200 ml) with 3 eggs before folding in flour.",
]


def test_a_number_written_as_a_word_is_a_figure():
    judged = decide("Whisk two eggs with 200 ml of milk, then fold in the flour.", RECIPE)

    assert judged.verdict == BEYOND
    assert (
        "quotes 2, which no reference quotes, instead of 3" in judged.why
        or "is a reference with “3” changed to “2”" in judged.why
    )
    # "3" for "three" is the same figure, and so is "three" for "3".
    assert judge("Whisk 3 eggs with 200 ml of milk, then fold in the flour.", RECIPE) == WITHIN


def test_a_unit_changed_is_beyond_noise():
    route = [
        "The trail is 12 km long with 600 m of climbing.",
        "Expect 12 km of trail and about 600 m of ascent.",
        "It's a 12 km hike that climbs 600 m.",
        "A 12 km route, 600 m of elevation gain.",
        "The hike covers 12 km and gains 600 m.",
    ]

    judged = decide("The trail is 12 miles long with 600 m of climbing.", route)

    assert judged.verdict == BEYOND
    assert "gives mile where the references give km (length)" in judged.why
    assert judge("The trail is 12 kilometres long with 600 m of climbing.", route) == WITHIN


def test_swapped_roles_are_beyond_noise():
    match = [
        "Lyon beat Nantes 3-1 at home on Saturday.",
        "Lyon won 3-1 against Nantes at home on Saturday.",
        "On Saturday Lyon beat Nantes 3-1 in front of their home crowd.",
        "A 3-1 home win for Lyon over Nantes on Saturday.",
        "Lyon beat Nantes 3-1 on Saturday, at home.",
    ]

    judged = decide("Nantes beat Lyon 3-1 at home on Saturday.", match)

    assert judged.verdict == BEYOND
    assert "swaps lyon and nantes" in judged.why
    flights = [
        "The cheapest flight goes from Lisbon to Oslo on Friday.",
        "Friday's cheapest option flies from Lisbon to Oslo.",
        "Fly from Lisbon to Oslo on Friday: it is the cheapest.",
        "On Friday, the cheapest flight is from Lisbon to Oslo.",
    ]
    assert judge("The cheapest flight goes from Oslo to Lisbon on Friday.", flights) == BEYOND


def test_every_verdict_on_a_text_states_its_threshold():
    """Issue 43: "15 % of its words are used by no reference" → within-noise, with no
    threshold, read as contradicting the verdict."""
    within = decide("Revenue rose 4 % this quarter on stronger subscription renewals.", SALES)
    assert within.verdict == WITHIN
    assert re.search(r"within: \d+% of its words are in no reference; the limit is 50%", within.why)
    assert "the 50% floor" in within.why
    assert "every figure, name, unit and polarity word it carries is also in the references" in (
        within.why
    )
    other = decide(
        "Churn among enterprise customers doubled after the pricing change last spring.", SALES
    )
    assert other.verdict == BEYOND and "the limit is" in other.why


def test_json_in_text_is_compared_field_by_field():
    calls = [
        '{"tool": "get_weather", "args": {"city": "Porto", "rain": true}}',
        '{"args": {"rain": true, "city": "Porto"}, "tool": "get_weather"}',
        '{"tool": "get_weather", "args": {"city": "Porto", "rain": true}}',
        '```json\n{"tool": "get_weather", "args": {"city": "Porto", "rain": true}}\n```',
    ]

    assert judge('{"tool":"get_weather","args":{"rain":true,"city":"Porto"}}', calls) == WITHIN
    flipped = decide('{"tool": "get_weather", "args": {"city": "Porto", "rain": false}}', calls)
    assert flipped.verdict == BEYOND and "field args.rain" in flipped.why
    other_tool = '{"tool": "get_forecast", "args": {"city": "Porto", "rain": true}}'
    assert judge(other_tool, calls) == BEYOND


def test_code_in_text_is_compared_token_by_token():
    queries = [
        "SELECT name FROM users WHERE age >= 18 ORDER BY name",
        "select name from users where age >= 18 order by name",
        "SELECT name\nFROM users\nWHERE age >= 18\nORDER BY name",
        "SELECT name FROM users WHERE age >= 18 ORDER BY name;",
    ]

    assert judge("SELECT  name FROM users\n  WHERE age >= 18 ORDER BY name", queries) == WITHIN
    changed = decide("SELECT name FROM users WHERE age > 18 ORDER BY name", queries)
    assert changed.verdict == BEYOND and "`>`" in changed.why and "`>=`" in changed.why


def test_three_of_the_four_is_3_of_the_4():
    said = [
        "Three of the four checks passed; the lint step failed.",
        "3 of the 4 checks passed, but lint failed.",
        "Lint failed, while three of the four checks passed.",
        "Three checks out of four passed; lint did not.",
    ]

    assert judge("3 of the 4 checks passed; the lint step failed.", said) == WITHIN
