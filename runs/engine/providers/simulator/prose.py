"""Reading a prompt and writing prose about it: the simulator's core answer."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any

# -- answer generation ---------------------------------------------------------------

# A minus sign only counts when it is not a hyphen inside a word ("2024-01" is 2024, 01).
_NUMBER_RE = re.compile(r"(?:(?<![\w.])-)?\d+(?:\.\d+)?")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")
_JSON_KEYS_RE = re.compile(r"^[ \t>*#-]*json keys\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)

_STOPWORDS = frozenset(
    """
    about above after again against also among an and any are around as at be because been
    before being below between both but by can could did does doing down during each either
    else even every few for from further given had has have having here how however into
    is it its itself just least less like made make many may might more most much must
    near need neither never next none nor not now of off often once only onto other our
    ours out over own per please rather really same shall should since some such than that
    the their theirs them then there these they this those though through thus together too
    toward under until upon very was were what when where whether which while who whom
    whose why will with within without would yet you your yours answer question reply
    respond return write using used use following below above based give provide keys json
    input output text value values figure figures number numbers item items list
    """.split()
)

_OPENINGS_WITH_NUMBERS = (
    "Reviewing {count} ({nums}): the evidence on {words} points to {conclusion}.",
    "Taking {figs} into account, the material on {words} suggests {conclusion}.",
    "With {figs} in view, the discussion of {words} indicates {conclusion}.",
    "Across {figs}, the notes on {words} converge on {conclusion}.",
    "Weighing {figs} against the context on {words}, the clearest reading is {conclusion}.",
)
_OPENINGS_PLAIN = (
    "The material on {words} points to {conclusion}.",
    "Read as a whole, the notes on {words} suggest {conclusion}.",
    "On the question of {words}, the evidence indicates {conclusion}.",
    "Looking at {words}, the clearest reading is {conclusion}.",
    "The context on {words} supports {conclusion}.",
)
_CONCLUSIONS = (
    "a measurable difference in {w1}",
    "{w1} as the main driver, with {w2} secondary",
    "a trade-off between {w1} and {w2}",
    "a case for revisiting {w1} before acting on {w2}",
    "steady but uneven progress on {w1}",
    "a link between {w1} and {w2} that merits a closer look",
)
_FOLLOW_UPS_WITH_NUMBERS = (
    "The largest figure, {largest}, deserves the most scrutiny.",
    "Most of the weight rests on {largest}.",
)
_FOLLOW_UPS = (
    "Further data on {w3} would sharpen this view.",
    "Confidence in this reading is {hedge}.",
    "This conclusion depends mostly on {w1}.",
    "A second look at {w2} is advisable.",
)
_HEDGES = ("moderate", "reasonably high", "tentative", "fair", "guarded")
_TITLE_KEYS = ("title", "headline", "name", "label", "subject", "topic", "heading")
_FALLBACK_WORDS = ("the topic", "the evidence", "the context")


def _message_text(content: Any) -> str:
    """A message's content as text (plain string or a list of ``{"text": ...}`` parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p if isinstance(p, str) else str(p.get("text", "")) if isinstance(p, dict) else ""
            for p in content
        )
    return str(content)


def _numbers(text: str) -> list[str]:
    """Every number in ``text``, verbatim, first occurrence order, without duplicates."""
    return list(dict.fromkeys(_NUMBER_RE.findall(text)))


def _salient_words(text: str, limit: int = 8) -> list[str]:
    """The most frequent non-stopwords (ties broken by first appearance): stable."""
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    for i, match in enumerate(_WORD_RE.finditer(text)):
        word = match.group(0).lower().strip("'-")
        if len(word) < 4 or word in _STOPWORDS:
            continue
        counts[word] = counts.get(word, 0) + 1
        first.setdefault(word, i)
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return ranked[:limit] or list(_FALLBACK_WORDS)


def _join(words: Sequence[str]) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _json_keys(system_text: str) -> list[str] | None:
    """Keys from the last ``JSON keys: a, b, c`` line, or None when there is none."""
    matches = _JSON_KEYS_RE.findall(system_text)
    if not matches:
        return None
    keys = [k.strip().strip("`'\"[]{}.").strip() for k in matches[-1].split(",")]
    keys = [k for k in keys if k]
    return list(dict.fromkeys(keys)) or None


def _key_kind(key: str) -> str:
    """'number', 'list' or 'string', from the key's name alone."""
    low = key.lower()
    if low in ("confidence", "score") or low.endswith(("_confidence", "_score")):
        return "number"
    if "list" in low:
        return "list"
    # Plural-looking names are lists; "status", "analysis", "process" only look plural.
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return "list"
    return "string"


def _chunks(items: list[str], k: int) -> list[list[str]]:
    """Split ``items`` into ``k`` contiguous, near-equal chunks (some may be empty)."""
    size, extra = divmod(len(items), k)
    out, start = [], 0
    for i in range(k):
        end = start + size + (1 if i < extra else 0)
        out.append(items[start:end])
        start = end
    return out


def _largest(nums: list[str]) -> str:
    return max(nums, key=lambda n: (float(n), -nums.index(n)))


class _Writer:
    """Builds readable sentences from the prompt's numbers and words with one RNG."""

    def __init__(self, rng: random.Random, words: list[str]) -> None:
        self.rng = rng
        self.words = words

    def _rotated(self, shift: int) -> list[str]:
        n = len(self.words)
        shift %= n
        rotated = self.words[shift:] + self.words[:shift]
        while len(rotated) < 3:
            rotated.append(rotated[len(rotated) % n])
        return rotated

    def sentence(self, nums: list[str], shift: int, variant: int, follow_up: bool) -> str:
        """1-2 sentences quoting every number in ``nums`` and a few salient words."""
        rng = self.rng
        w = self._rotated(shift)
        focus = w[: rng.randint(2, 3)] if len(set(self.words)) > 1 else w[:1]
        conclusion = _CONCLUSIONS[
            (variant + rng.randrange(len(_CONCLUSIONS))) % len(_CONCLUSIONS)
        ].format(w1=w[0], w2=w[1] if w[1] != w[0] else "the context", w3=w[2])
        if nums:
            template = _OPENINGS_WITH_NUMBERS[variant % len(_OPENINGS_WITH_NUMBERS)]
            text = template.format(
                count="1 figure" if len(nums) == 1 else f"{len(nums)} figures",
                figs=f"the figure {nums[0]}" if len(nums) == 1 else f"the figures {_join(nums)}",
                nums=", ".join(nums),
                words=_join(focus),
                conclusion=conclusion,
            )
        else:
            template = _OPENINGS_PLAIN[variant % len(_OPENINGS_PLAIN)]
            text = template.format(words=_join(focus), conclusion=conclusion)
        if follow_up:
            pool = _FOLLOW_UPS + (_FOLLOW_UPS_WITH_NUMBERS if len(nums) > 1 else ())
            extra = rng.choice(pool).format(
                largest=_largest(nums) if nums else "",
                w1=w[0],
                w2=w[1],
                w3=w[2],
                hedge=rng.choice(_HEDGES),
            )
            text = f"{text} {extra}"
        return text[0].upper() + text[1:]

    def title(self, nums: list[str], shift: int) -> str:
        w = self._rotated(shift)
        head = f"{w[0].capitalize()} and {w[1]}" if w[1] != w[0] else w[0].capitalize()
        return f"{head}: {', '.join(nums)}" if nums else f"{head} in context"


def _role_text(messages: list[dict], *roles: str) -> str:
    return "\n".join(
        _message_text(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") in roles
    )


def _last_user(messages: list[dict]) -> str:
    for m in reversed(messages):
        if isinstance(m, dict) and m.get("role") == "user":
            return _message_text(m.get("content"))
    return ""


def _fill_keys(
    keys: list[str], nums: list[str], writer: _Writer, base: int, rng: random.Random
) -> str:
    """A compact JSON object with exactly ``keys``, every number of ``nums`` quoted."""
    # Plan the shape first, so the numbers can be spread over every string slot.
    kinds = {key: _key_kind(key) for key in keys}
    sizes = {key: rng.randint(2, 4) for key in keys if kinds[key] == "list"}
    slots = [(key, i) for key in keys if kinds[key] != "number" for i in range(sizes.get(key, 1))]
    assigned = dict(zip(slots, _chunks(nums, len(slots)), strict=True)) if slots else {}

    result: dict[str, Any] = {}
    for index, key in enumerate(keys):
        kind = kinds[key]
        if kind == "number":
            result[key] = round(rng.uniform(0.55, 0.95), 2)
        elif kind == "list":
            result[key] = [
                writer.sentence(
                    assigned[(key, i)],
                    shift=index + i,
                    variant=base + index + i,
                    follow_up=rng.random() < 0.3,
                )
                for i in range(sizes[key])
            ]
        elif any(t in key.lower() for t in _TITLE_KEYS):
            result[key] = writer.title(assigned[(key, 0)], shift=index)
        elif key.lower().endswith("query"):
            phrase = " ".join(writer.words[:4])
            extra = assigned[(key, 0)]
            result[key] = f"{phrase} {' '.join(extra)}".strip() if extra else phrase
        else:
            result[key] = writer.sentence(
                assigned[(key, 0)], shift=index, variant=base + index, follow_up=rng.random() < 0.6
            )
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def compose(messages: list[dict], rng: random.Random) -> str:
    """The answer for ``messages``: a compact JSON object if the system message asks for
    ``JSON keys``, otherwise prose. Every number of the (last) user message is quoted
    verbatim somewhere (as long as there is at least one string to put it in). In a
    multi-turn chat the answer is about the last user turn, not the earlier ones."""
    system = _role_text(messages, "system", "developer")
    user = _last_user(messages)
    nums = _numbers(user)
    writer = _Writer(rng, _salient_words(user))
    base = rng.randrange(1000)
    keys = _json_keys(system)

    if keys is None:
        return writer.sentence(nums, shift=0, variant=base, follow_up=True)
    return _fill_keys(keys, nums, writer, base, rng)
