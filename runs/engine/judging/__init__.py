"""The judge: a model, when one is configured, that decides the text leaves the noise rule
calls ``uncertain`` (``REWIND_JUDGE_MODEL``; empty, the default, is no judge).

- ``question``  the fixed question (messages, the request its cache key covers) and the
                strict reading of its answer (``{"verdict": "same" | "different", "reason"}``)
- ``judge``     ``Judge``, a ``noise.Referee``: asked through the LLM cache (a question asked
                again costs 0 tokens and gives the same verdict), each live call recorded as a
                ``JudgeCall`` (the budget counts it), a gate for the budget; ``configured_judge``

Analysis stays read-only: ``diff_runs`` and ``noise.verdicts`` take a judge as their
``referee``, and the edges make it — the compare page within the user's budget
(``runs.budgets.judge_for``), ``rewind_diff`` without one.

May import: ``runs.engine.calls`` (cache, keys, in-flight lock, pricing),
``runs.engine.providers`` (the configured client; the simulator's ``JUDGE_MARKER``),
``runs.engine.analysis.noise`` (``Judgement`` and its verdicts), ``runs.models`` and
``runs.lib``. Nothing in the engine imports it.
"""

from __future__ import annotations

from runs.engine.judging.judge import Gate, Judge, configured_judge
from runs.engine.judging.question import (
    JUDGE_NODE,
    Answer,
    AnswerError,
    messages,
    parse_answer,
)

__all__ = [
    "JUDGE_NODE",
    "Answer",
    "AnswerError",
    "Gate",
    "Judge",
    "configured_judge",
    "messages",
    "parse_answer",
]
