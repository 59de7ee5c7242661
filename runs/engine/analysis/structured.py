"""JSON and code held in text, compared as what they are rather than as prose.

A step that writes a tool call as a JSON string, a config snippet or a SQL query writes text
whose every character may matter: ``"rain": true`` and ``"rain": false`` differ by one word,
``>=`` and ``>`` by one character. Read as prose, both are rewordings. Read here:

- **JSON text** (an object or an array, bare or in a fenced block) is parsed, flattened to its
  fields (``args.city``), and each field is judged as a leaf of its own against the same field
  of the references (``noise.decide``: a category, a number, a text); keys in another order or
  other spacing are the same JSON;
- **code** (a fenced block, a SQL statement, or lines dense with code punctuation) is split
  into tokens — identifiers, numbers, strings, operators — with spacing, layout and comments
  set aside: the same tokens as a reference is the same code; an operator or a literal that
  every reference has and this does not (with another in its place) is a change; anything
  else is code the rule cannot check.

A text that is neither, or whose references are not (most of them), is left to the prose
reading (:mod:`.texts`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Any

from runs.engine.analysis.judgements import ABSENT, BEYOND, UNCERTAIN, WITHIN, Judgement
from runs.engine.analysis.leaves import flatten

__all__ = ["judge_structured", "parse_json_text"]

_FENCE_RE = re.compile(r"^\s*```[\w+-]*\s*\n(.*?)\n?```\s*$", re.DOTALL)
_SQL_RE = re.compile(
    r"^\s*(?:with\b.*?\bselect\b.*?\bfrom|select\b.*?\bfrom|insert\s+into|update\b.*?\bset|"
    r"delete\s+from|create\s+(?:table|index|view))\b",
    re.IGNORECASE | re.DOTALL,
)
_CODE_LINE_RE = re.compile(
    r"^\s*(def|class|return|import|from|if|elif|else|for|while|function|const|let|var|fn)\b"
    r"|[;{}]\s*$|^\s*[\w.\[\]]+\s*[-+*/]?=\s*\S",
    re.MULTILINE,
)
_CODE_TOKEN_RE = re.compile(
    r"""(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
    r"|(?P<number>\d+(?:\.\d+)?)"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>>=|<=|==|!=|<>|&&|\|\||->|=>|\*\*|//|\+=|-=|\*=|/=|::|[-+*/%<>=!&|^~?:.,;()\[\]{}])"
)
_COMMENT_RE = re.compile(r"#[^\n]*|--[^\n]*|//[^\n]*")
# Words that are operators in code ("and", "or", "not", "in", "is"; SQL's AND, OR, LIKE …).
_WORD_OPERATORS = frozenset(
    "and or not in is like between asc desc union intersect except true false null none".split()
)

Decide = Callable[[Any, list[Any]], Judgement]
# Code this close to a reference (the share of its tokens in order) is that reference edited,
# and an operator or literal replaced in it is the change; further off, it is code written
# another way (a loop for a comprehension, a subquery for a join), which the rule cannot check.
CODE_NEAR = 0.8


def _unfenced(text: str) -> str:
    match = _FENCE_RE.match(text)
    return match.group(1) if match else text


def parse_json_text(text: str) -> Any | None:
    """The JSON object or array ``text`` holds (bare or in a fenced block), or None."""
    body = _unfenced(text).strip()
    if not body or body[0] not in "{[":
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _is_code(text: str) -> bool:
    if _FENCE_RE.match(text) or _SQL_RE.match(text):
        return True
    lines = [line for line in text.splitlines() if line.strip()]
    return len(_CODE_LINE_RE.findall(text)) >= max(1, len(lines) // 2) and bool(
        re.search(r"[=(){};]", text)
    )


def _code_tokens(text: str) -> tuple[tuple[str, str], ...]:
    """(kind, token): names lowercased only for SQL (its keywords' case is free)."""
    body = _COMMENT_RE.sub(" ", _unfenced(text))
    sql = bool(_SQL_RE.match(body))
    out = []
    for match in _CODE_TOKEN_RE.finditer(body):
        kind = match.lastgroup or "op"
        token = match.group()
        if kind == "name":
            token = token.lower() if sql else token
            if token.lower() in _WORD_OPERATORS:
                kind, token = "op", token.lower()
        elif kind == "string":
            token = token[1:-1]
        out.append((kind, token))
    return _comparisons_name_first(out)


_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!=", "<>": "<>"}


def _comparisons_name_first(tokens: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``500 <= amount`` as ``amount >= 500``: a literal compared with a name is written name
    first, so a mirrored comparison reads as the same one."""
    out = list(tokens)
    for i in range(len(out) - 2):
        (k1, t1), (k2, t2), (k3, t3) = out[i : i + 3]
        if k1 in {"number", "string"} and k2 == "op" and t2 in _FLIPPED and k3 == "name":
            before = out[i - 1] if i else ("op", "")
            after = out[i + 3] if i + 3 < len(out) else ("op", "")
            if before[1] not in {".", "(", "-", "+", "*", "/"} and after[1] not in {".", "("}:
                out[i : i + 3] = [(k3, t3), (k2, _FLIPPED[t2]), (k1, t1)]
    return tuple(out)


def _judge_json(candidate: Any, references: list[Any], decide: Decide) -> Judgement:
    mine = flatten(candidate)
    theirs = [flatten(r) for r in references]
    paths = sorted(set(mine).union(*theirs))
    beyond, unsure = [], []
    for path in paths:
        observed = [t.get(path, ABSENT) for t in theirs]
        judged = decide(mine.get(path, ABSENT), observed)
        where = path or "(the whole value)"
        if judged.verdict == BEYOND:
            beyond.append(f"field {where}: {judged.why}")
        elif judged.verdict == UNCERTAIN:
            unsure.append(f"field {where}: {judged.why}")
    read = f"read as JSON, {len(paths)} field(s) against the references' same fields"
    if beyond:
        return Judgement(BEYOND, f"beyond: {read}; " + "; ".join(beyond))
    if unsure:
        return Judgement(UNCERTAIN, f"uncertain: {read}; " + "; ".join(unsure))
    return Judgement(WITHIN, f"within: {read}; every field is within what the references gave")


def _judge_code(candidate: str, references: list[str]) -> Judgement:
    mine = _code_tokens(candidate)
    theirs = [_code_tokens(r) for r in references]
    if mine in theirs:
        return Judgement(
            WITHIN,
            "within: read as code, the same tokens as a reference (spacing, layout and "
            "comments aside)",
        )
    nearest = max(SequenceMatcher(None, t, mine, autojunk=False).ratio() for t in theirs)
    if nearest < CODE_NEAR:
        return Judgement(
            UNCERTAIN,
            f"uncertain: read as code, its tokens are not those of any reference, and it is not "
            f"one of them edited (at most {nearest:.0%} of its tokens in order, under "
            f"{CODE_NEAR:.0%}): could not check it does the same",
        )
    for kind, label in (("op", "operator"), ("number", "literal"), ("string", "literal")):
        counts = [Counter(t for k, t in tokens if k == kind) for tokens in theirs]
        common = counts[0]
        for other in counts[1:]:
            common &= other
        own = Counter(t for k, t in mine if k == kind)
        lacking = common - own
        extra = Counter({t: n for t, n in (own - common).items() if all(c[t] < n for c in counts)})
        if lacking and extra:
            return Judgement(
                BEYOND,
                f"beyond: read as code, it has the {label}(s) {_code(extra)} where every "
                f"reference has {_code(lacking)}",
            )
    return Judgement(
        UNCERTAIN,
        "uncertain: read as code, its tokens are not those of any reference, and no operator "
        "or literal every reference has is replaced: could not check it does the same",
    )


def _code(counts: Counter) -> str:
    return ", ".join(f"`{token}`" for token in sorted(counts))


def judge_structured(candidate: str, references: list[str], decide: Decide) -> Judgement | None:
    """The verdict on a JSON or code text against the reference texts, or None when the
    candidate (or most references) is neither: prose."""
    most = len(references) // 2 + 1
    parsed = parse_json_text(candidate)
    if parsed is not None:
        theirs = [p for r in references if (p := parse_json_text(r)) is not None]
        if len(theirs) >= most:
            return _judge_json(parsed, theirs, decide)
    if _is_code(candidate):
        code = [r for r in references if _is_code(r)]
        if len(code) >= most:
            return _judge_code(candidate, code)
    return None
