"""The judge's question and how its answer is read.

The question is fixed: one system message (it names the task and the answer's shape, and
carries the simulator's ``JUDGE_MARKER``, by which the offline simulator knows to answer it)
and one user message, the candidate and its references as one JSON object. The same leaf,
references and model always make the same request — the same cache key — so an answer, once
given, is read back instead of asked again.

The answer is read strictly: one JSON object, exactly ``{"verdict": "same" | "different",
"reason": "<text>"}``. Anything else is :class:`AnswerError` — never a verdict guessed from
prose around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runs.engine.providers.simulator import JUDGE_MARKER
from runs.lib.hashing import canonical_json
from runs.lib.jsontext import JSONTextError, parse_json

# Bump when the question's wording or shape changes: earlier answers then become misses (the
# key covers the messages), and this tag names the version in the cache entry's request.
QUESTION_VERSION = "rewind-judge@1"
# The cache entries' node name: what the admin's cache list shows for a judge's answers.
JUDGE_NODE = "rewind-judge"
# Enough for a verdict and a sentence; a longer answer is cut by the provider and fails to parse.
MAX_ANSWER_TOKENS = 300
# A reason is shown beside a verdict: one line, at most this long.
MAX_REASON_CHARS = 400
VERDICTS = ("same", "different")

SYSTEM = (
    f"{JUDGE_MARKER} You judge changes for Rewind, a debugger of LLM pipelines. A step of a "
    "pipeline was run several times on the same input; the REFERENCES are the texts it "
    "produced there on its own (its normal variation). A changed run produced the CANDIDATE. "
    "Decide whether the CANDIDATE says the same as the references — the same facts, figures, "
    "names, ranking, roles and polarity, in any wording — or says something different. The "
    'user message is a JSON object {"candidate": "...", "references": ["...", ...]}. Answer '
    'with exactly one JSON object and nothing else: {"verdict": "same" | "different", '
    '"reason": "<one sentence>"}.'
)


class AnswerError(ValueError):
    """Why an answer is not the judge's verdict (the message says it)."""


@dataclass(frozen=True)
class Answer:
    """A judge's verdict on one candidate: ``same`` or ``different``, and its reason."""

    verdict: str
    reason: str


def references_of(references: list[str]) -> list[str]:
    """The references as asked: each distinct text once, in the order given (the sampled run's
    first, then its samples'), so the same values make the same question."""
    return list(dict.fromkeys(references))


def messages(candidate: str, references: list[str]) -> list[dict[str, str]]:
    """The chat messages that ask the judge about ``candidate``."""
    asked = {"candidate": candidate, "references": references_of(references)}
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": canonical_json(asked)},
    ]


def request(provider: str, model: str, candidate: str, references: list[str]) -> dict[str, Any]:
    """The judge's request as the LLM cache key reads it (``calls.keys.llm_key_parts``): what
    answers (``provider``), the model, temperature 0, the messages, a JSON answer."""
    return {
        "provider": provider,
        "model": model,
        "temperature": 0.0,
        "messages": messages(candidate, references),
        "response_format": {"type": "json_object"},
        "max_tokens": MAX_ANSWER_TOKENS,
        "code_version": QUESTION_VERSION,
    }


def parse_answer(content: str) -> Answer:
    """The verdict in ``content``, read strictly (see the module's docstring)."""
    try:
        value = parse_json(content.strip())
    except JSONTextError as exc:
        raise AnswerError(f"the answer is {exc}") from None
    if not isinstance(value, dict):
        raise AnswerError(f"the answer is a JSON {type(value).__name__}, not an object")
    if set(value) != {"verdict", "reason"}:
        keys = ", ".join(sorted(map(str, value))) or "none"
        raise AnswerError(f"the answer's keys are {keys}, not exactly verdict and reason")
    verdict, reason = value["verdict"], value["reason"]
    if verdict not in VERDICTS:
        raise AnswerError(f"the verdict is {canonical_json(verdict)[:40]}, not same or different")
    if not isinstance(reason, str) or not reason.strip():
        raise AnswerError("the reason is not a text")
    reason = " ".join(reason.split())
    if len(reason) > MAX_REASON_CHARS:
        reason = reason[: MAX_REASON_CHARS - 1] + "…"
    return Answer(verdict, reason)
