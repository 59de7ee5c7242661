"""The simulator's answer to Rewind's own judge (``runs.engine.judging``): a stand-in, not a
model.

The judge asks a model whether a changed text says the same as the texts a step produced on
its own (its references). Its system message carries :data:`JUDGE_MARKER`; its user message is
one JSON object ``{"candidate": str, "references": [str, ...]}``. The simulator answers such a
request with the JSON object the judge asks for, ``{"verdict": "same" | "different",
"reason": "..."}``, by a fixed comparison of words — so tests cover the judge's whole path
(ask, cache, budget, show) offline and get the same verdict every time:

- a *word* is a run of letters or digits (``\\w+``), lower-cased;
- ``same`` when every word of the candidate is a word of some reference (the candidate says
  nothing in words the references did not use), the reason saying so;
- ``different`` otherwise, the reason naming up to five of the candidate's words no reference
  uses, in the order they appear.

That is no reading of meaning: "not cheaper" and "cheaper, not" are the same words, and a
rewording in new words is "different". The figures a judge's verdicts reach with the
simulator are reported, never goals (README, "The noise rule").
"""

from __future__ import annotations

import json
import re
from typing import Any

from .prose import _last_user, _message_text

# In the judge's system message; Rewind's judge puts it there (runs.engine.judging.question).
JUDGE_MARKER = "[rewind-judge/1]"
NEW_WORDS_NAMED = 5

_WORD = re.compile(r"\w+")


def judge_question(messages: list[Any]) -> tuple[str, list[str]] | None:
    """(candidate, references) when ``messages`` are the judge's question, else None."""
    system = " ".join(
        _message_text(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "system"
    )
    if JUDGE_MARKER not in system:
        return None
    try:
        asked = json.loads(_last_user(messages))
    except ValueError:
        return None
    if not isinstance(asked, dict):
        return None
    candidate, references = asked.get("candidate"), asked.get("references")
    if not isinstance(candidate, str) or not isinstance(references, list):
        return None
    if not all(isinstance(r, str) for r in references):
        return None
    return candidate, references


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def judge_answer(candidate: str, references: list[str]) -> str:
    """The judge's answer as JSON text: ``same`` when every word of ``candidate`` is used by
    some reference, ``different`` (naming the new words) otherwise."""
    known = {word for reference in references for word in _words(reference)}
    new = list(dict.fromkeys(w for w in _words(candidate) if w not in known))
    if not new:
        answer = {"verdict": "same", "reason": "every word of the candidate is in the references"}
    else:
        named = ", ".join(new[:NEW_WORDS_NAMED]) + (", …" if len(new) > NEW_WORDS_NAMED else "")
        answer = {"verdict": "different", "reason": f"words in no reference: {named}"}
    return json.dumps(answer, ensure_ascii=False)
