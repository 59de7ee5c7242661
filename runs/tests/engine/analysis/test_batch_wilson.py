"""The 95 % Wilson score interval of a flip rate, against published values (Newcombe 1998,
"Two-sided confidence intervals for the single proportion", Table I) and the closed forms
at 0 and n."""

from __future__ import annotations

import pytest

from runs.engine.analysis.batches.wilson import wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),  # Newcombe, example (a)
        (15, 148, 0.0624, 0.1605),  # Newcombe, example (b)
        (0, 20, 0.0, 0.1611),  # Newcombe, example (c)
        (1, 29, 0.0061, 0.1718),  # Newcombe, example (d)
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_it_matches_published_intervals(k, n, low, high):
    assert wilson(k, n) == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def test_it_is_closed_form_at_the_edges():
    z2 = 1.959963984540054**2
    assert wilson(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    assert wilson(10, 10) == (pytest.approx(10 / (10 + z2)), pytest.approx(1.0))


def test_no_trials_know_nothing_and_bad_counts_are_refused():
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(-1, 2)
