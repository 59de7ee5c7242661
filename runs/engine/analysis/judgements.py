"""A verdict on one changed leaf, and who gave it: the noise rule's vocabulary, shared by the
rule's parts (:mod:`.noise`, :mod:`.texts`) and whoever decides what the rule cannot (a
:class:`Referee`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "ABSENT",
    "BEYOND",
    "NO_SAMPLES",
    "RARE_SHARE",
    "RULE",
    "UNCERTAIN",
    "WITHIN",
    "Judgement",
    "Referee",
]

BEYOND, WITHIN, NO_SAMPLES = "beyond-noise", "within-noise", "no-samples"
UNCERTAIN = "uncertain"
RULE = "rule"
# A leaf a run's step did not have: a value of its own, so "the parent sometimes wrote no
# sections[3]" and "the fork wrote none" agree. Not valid JSON, so it never equals a leaf.
ABSENT = "<absent>"

# The share of references showing something no other reference shows — a value never seen
# elsewhere, a figure or a name no other reference has — estimates the chance that one more
# draw does (Good–Turing: singletons / draws). Above this share, a new value is what the step
# does on its own often enough that k samples cannot tell it from a change: uncertain. 5 %, the
# false-alarm goal: simulated, a label the step gives 10 % of the time (others 60/20/10 %) is
# a false alarm 4.6 % of the time at k = 8 with it, 9.3 % with a 15 % share (one singleton in 9
# tolerated) and 10.4 % under the rule before (any label never seen was beyond-noise).
RARE_SHARE = 0.05


@dataclass(frozen=True)
class Judgement:
    """A verdict and why: the figures, names, rankings, negation, words, range or values
    that made it."""

    verdict: str  # BEYOND | WITHIN | UNCERTAIN | NO_SAMPLES
    why: str
    by: str = RULE  # who decided: the rule, or "judge:<model>" (a Referee)


class Referee(Protocol):
    """Decides a text leaf the rule calls ``uncertain`` (a judge model, when one is
    configured: ``runs.engine.judging``). Returns its :class:`Judgement` (``by`` naming it), or
    None when it cannot answer, which leaves the rule's ``uncertain``."""

    def __call__(
        self, candidate: str, references: list[str], uncertain: Judgement
    ) -> Judgement | None: ...
