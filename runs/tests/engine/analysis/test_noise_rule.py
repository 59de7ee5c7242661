"""The noise rule by leaf type (issue 17, item 4): numbers against the samples' range (widened),
categories against the set of values seen, text by its distance to the nearest sample compared
with the distances among the samples — and its false-alarm and miss rates, measured on
simulated cases with a known answer (``noise_eval``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from runs.bench import noise as noise_cases
from runs.bench.noise import noise_figures
from runs.engine.analysis.noise import (
    BEYOND,
    NO_SAMPLES,
    WITHIN,
    is_text,
    judge,
    text_distance,
)
from runs.engine.apps.registry import get_pipeline
from runs.lib.hashing import canonical_json

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


def test_a_boolean_is_a_category_not_a_number():
    assert judge(True, [0, 1, 0]) == BEYOND  # within 0..1, but True was never produced
    assert judge(False, [True, False]) == WITHIN


# --- categories -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fork", "observed", "verdict"),
    [
        ("B", ["C", "C", "A", "C"], BEYOND),  # a winning group the samples never gave
        ("A", ["C", "C", "A", "C"], WITHIN),
        (None, ["C", "A"], BEYOND),
        ("<absent>", ["x y", "<absent>", "x z"], WITHIN),  # the parent sometimes lacked it
        ("<absent>", ["x y", "x z"], BEYOND),
        ("east", ["north", "south", "west"], BEYOND),  # varied, but never to east
    ],
)
def test_a_category_is_judged_against_the_set_of_values_seen(fork, observed, verdict):
    assert judge(fork, observed) == verdict


def test_a_one_word_string_is_a_category_and_more_words_are_text():
    assert not is_text("east") and not is_text("  C  ") and not is_text(3)
    assert is_text("cost per conversion")


# --- text -----------------------------------------------------------------------------------

REWORDINGS = [
    "Group C has the lowest cost per conversion at 20.82, so adopt policy C.",
    "At 20.82 per conversion, group C is the cheapest; policy C should be adopted.",
    "Policy C is cheapest: group C converts at 20.82 per conversion. Adopt it.",
    "The lowest cost per conversion, 20.82, belongs to group C, so we should adopt policy C.",
]


def test_text_distance_is_zero_for_the_same_words_and_one_for_nothing_shared():
    assert text_distance("Group C wins at 20.82", "group c WINS at 20.82!") == 0
    assert text_distance("alpha beta", "gamma delta") == 1
    # the same words, other figures: far apart, however much wording they share
    assert text_distance("cost 20.82 for group C", "cost 62.46 for group C") == 1


def test_a_rewording_of_the_samples_is_within_noise():
    fresh = "Group C converts at 20.82 per conversion, the lowest cost: adopt policy C."

    assert judge(fresh, REWORDINGS) == WITHIN


def test_a_text_with_a_different_conclusion_is_beyond_noise():
    other = "Group B has the lowest cost per conversion at 62.46, so adopt policy B."

    assert judge(other, REWORDINGS) == BEYOND


def test_a_text_about_something_else_is_beyond_noise_although_the_samples_varied():
    """The defect of the old rule: any text that varied across the samples was within-noise
    whatever the fork's text said."""
    unrelated = "The weather in Paris is mild and sunny this week."

    assert len(set(REWORDINGS)) > 1  # the samples varied
    assert judge(unrelated, REWORDINGS) == BEYOND
    assert old_rule(unrelated, REWORDINGS) == WITHIN  # what it used to say


def test_a_text_that_never_varied_is_beyond_noise_at_any_change():
    assert judge("Group C wins, adopt C.", ["Group C wins, adopt it."] * 3) == BEYOND


def test_one_sample_is_no_samples():
    assert judge("a b", ["c d"]) == NO_SAMPLES


def simulated(change: tuple[str, Any] | None, seed: int) -> dict[str, Any]:
    """The demo pipeline's outputs from the simulator, draws seeded by ``seed``."""
    sim = noise_cases._Simulation(get_pipeline("research"), Path(settings.REWIND_DATA_DIR))
    full = None if change is None else ("analyse", *change)
    return sim.run(random.Random(seed), change=full)


@pytest.mark.parametrize(("step", "path"), [("critique", "issues"), ("publish", None)])
def test_simulated_texts_rewordings_stay_within_noise_and_a_changed_conclusion_does_not(step, path):
    """Real simulator prose at temperature > 0 (critique's first issue; the published report,
    a tool's text over the llm steps' prose): fresh unchanged draws are within the noise of 5
    samples, draws where region east makes B the best group are beyond it."""

    def text(change: tuple[str, Any] | None, seed: int) -> str:
        output = simulated(change, seed)[step]
        return output[path][0] if path else output

    references = [text(None, seed) for seed in range(6)]
    fresh = [text(None, seed) for seed in range(100, 120)]
    east = [text(("region", "east"), seed) for seed in range(100, 120)]

    assert len(set(references)) == 6  # the samples all differ
    assert sum(judge(t, references) == WITHIN for t in fresh) >= 18
    assert sum(judge(t, references) == BEYOND for t in east) >= 18
    assert {old_rule(t, references) for t in east} == {WITHIN}  # what it used to say


# --- the measured rates ---------------------------------------------------------------------


def old_rule(fork_value: Any, observed: list[Any]) -> str:
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


def test_the_rates_are_measured_and_reproducible():
    rates = noise_cases.measure(cases=9)

    assert rates.unchanged_leaves > 100 and rates.caused_leaves > 100
    assert rates == noise_cases.measure(cases=9)  # seeded: the same cases every time
    assert rates != noise_cases.measure(cases=9, seed=1)  # other seeds, other draws


def test_a_bad_rule_measures_worse():
    ours = noise_cases.measure(cases=9)
    everything_within = noise_cases.measure(lambda value, observed: WITHIN, cases=9)
    everything_beyond = noise_cases.measure(lambda value, observed: BEYOND, cases=9)
    old = noise_cases.measure(old_rule, cases=9)

    assert (everything_within.false_alarm_rate, everything_within.miss_rate) == (0, 1)
    assert (everything_beyond.false_alarm_rate, everything_beyond.miss_rate) == (1, 0)
    assert old.miss_rate > 1.5 * ours.miss_rate  # the old rule waved the changed texts through
    assert ours.false_alarm_rate < 0.1


def test_the_bench_reports_both_rates_with_goals():
    false_alarms, misses = noise_figures()

    assert false_alarms["figure"].startswith("noise rule: false alarms")
    assert misses["figure"].startswith("noise rule: misses")
    rates = noise_cases.measure()
    assert false_alarms["value"] == round(rates.false_alarm_rate, 6)
    assert misses["value"] == round(rates.miss_rate, 6)
    assert false_alarms["goal"] == "≤ 0.05" and misses["goal"] == "≤ 0.25"
    assert false_alarms["pass"] == (rates.false_alarm_rate <= 0.05)
    assert f"of {rates.unchanged_leaves} leaves" in false_alarms["note"]
