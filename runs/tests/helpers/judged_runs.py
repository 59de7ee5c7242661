"""Runs whose diff has a text leaf the noise rule leaves ``uncertain``, for the judge's tests
(``engine/judging/test_judge.py``, ``views/test_compare_judge.py``,
``commands/test_command_diff_judge.py``).

The rule is being tuned elsewhere, so these tests never depend on what it decides:
``rule_says_uncertain`` makes ``noise.decide`` answer ``uncertain`` for every changed leaf, and
``judged_runs`` writes, as rows (nothing executes), a sampled run A (one step, ``summarise``,
whose ``summary`` is a text), its finished samples, and a fork B whose summary is the
candidate. The offline simulator's judge answers ``same`` when every word of the candidate is a
word of a reference (``SAME_CANDIDATE``) and ``different`` otherwise (``DIFFERENT_CANDIDATE``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from runs.engine.analysis import noise
from runs.models import Run

JUDGE_MODEL = "judge-sim"
BY = f"judge:{JUDGE_MODEL}"
STEP, PATH = "summarise", "summary"
REFERENCES = (
    "policy B is cheapest this quarter",
    "this quarter policy B is the cheapest",
    "policy B is the cheapest one this quarter",
)
SAME_CANDIDATE = "this quarter the cheapest policy is B"
DIFFERENT_CANDIDATE = "policy C is cheapest this quarter"
RULE_WHY = "the rule cannot tell (planted by the test)"


@pytest.fixture
def rule_says_uncertain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every changed leaf the rule is asked about is ``uncertain`` (``RULE_WHY``)."""

    def decide(fork_value: Any, observed: list[Any], context: Any = None) -> noise.Judgement:
        return noise.Judgement(noise.UNCERTAIN, RULE_WHY)

    monkeypatch.setattr(noise, "decide", decide)


def judged_runs(
    run_row: Callable[..., Run],
    node_row: Callable[..., Any],
    candidate: str,
    references: tuple[str, ...] = REFERENCES,
) -> tuple[Run, Run]:
    """(A, B): A sampled ``len(references) - 1`` times, its step's summary ``references[0]``
    and each sample's the next reference; B a fork of A whose summary is ``candidate``."""
    a = run_row(sample_count=len(references) - 1)
    node_row(a, 0, name=STEP, output={PATH: references[0]}, output_sha256="a" * 64)
    for i, text in enumerate(references[1:], start=1):
        sample = run_row(parent=a, sample_of=a, fork_node=STEP, fork_sequence_id=0)
        node_row(sample, 0, name=STEP, output={PATH: text}, output_sha256=f"{i:064x}")
    b = run_row(parent=a, fork_node=STEP, fork_sequence_id=0)
    node_row(b, 0, name=STEP, output={PATH: candidate}, output_sha256="b" * 64)
    return a, b


def judge_requests(simulator: Any) -> list[dict]:
    """The chat requests ``simulator`` received that were the judge's question."""
    from runs.engine.providers.simulator import JUDGE_MARKER

    return [
        body
        for body in simulator.requests
        if any(JUDGE_MARKER in str(m.get("content", "")) for m in body.get("messages", []))
    ]
