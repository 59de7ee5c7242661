"""The second labelled set's shape (issue 43): checked without running the noise rule."""

from __future__ import annotations

from runs.tests.engine.analysis import noise_cases, noise_cases_unseen
from runs.tests.engine.analysis.noise_cases_unseen import BEYOND, CASES, WITHIN


def _words(value: object) -> int:
    return len(value.split()) if isinstance(value, str) else 0


def test_enough_cases_and_families():
    assert len(CASES) >= 120
    assert len({case.family for case in CASES}) >= 32


def test_every_value_is_text_of_two_words_or_more():
    for case in CASES:
        assert len(case.references) == 9, (case.family, case.name)
        for reference in case.references:
            assert _words(reference) >= 2, (case.family, reference)
        assert _words(case.candidate) >= 2, (case.family, case.name)


def test_truths_and_their_balance():
    assert {case.truth for case in CASES} <= {BEYOND, WITHIN}
    within = sum(case.truth == WITHIN for case in CASES) / len(CASES)
    assert 0.35 <= within <= 0.60, within


def test_no_candidate_is_one_of_its_references():
    for case in CASES:
        assert case.candidate not in case.references, (case.family, case.name)


def test_a_family_shares_its_references():
    by_family: dict[str, tuple] = {}
    for case in CASES:
        assert by_family.setdefault(case.family, case.references) == case.references, case.family


def test_nothing_shared_with_the_first_set():
    assert noise_cases_unseen.CASES is not noise_cases.CASES
    assert not {case.family for case in CASES} & {case.family for case in noise_cases.CASES}
    seen = {ref for case in noise_cases.CASES for ref in case.references if isinstance(ref, str)}
    shared = {ref for case in CASES for ref in case.references if ref in seen}
    assert not shared, shared
