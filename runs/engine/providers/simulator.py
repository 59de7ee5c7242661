"""The offline provider simulator: Rewind's embedded default "model".

Why it exists: Rewind must run, fork and diff pipelines with no key and no network, and
its tests must exercise the real transport path (dead endpoint, a 400 on
``response_format``, model substitution) without a real provider. It must also answer
unchanged applications written on the ``openai`` SDK (Burr's shipped examples), so it
speaks enough of the OpenAI HTTP API for them. The simulator:

* answers, in-process (:meth:`Simulator.transport`) or as a real HTTP server on loopback
  (:meth:`Simulator.serve`, or ``python -m runs.engine.providers.simulator --port N``):

  - ``/chat/completions``: text, ``tools``/``tool_choice`` (one tool call whose
    arguments fill the tool's JSON schema; after a ``role: tool`` result, text quoting
    it), ``response_format`` ``json_schema`` (a JSON object valid for the schema) and
    ``stream: true`` (``text/event-stream`` chunks, then ``data: [DONE]``);
  - ``/embeddings`` (deterministic bag-of-words vectors, ``float`` or ``base64``);
  - ``/images/generations`` (a clearly fake placeholder URL or a 1x1 PNG, no network);
  - ``/responses`` (the Responses API: text, function calls, ``text.format``
    ``json_schema``, streaming) and the legacy ``/completions``;
  - ``GET /models``; any other path is a 404 in OpenAI's error format. Every endpoint is
    accepted under any base-URL prefix (``/v1/chat/completions``, ``/chat/completions``);

* derives its answer from the prompt: every number in the user message is quoted
  verbatim, together with the message's salient words, so a changed upstream number
  visibly changes downstream prose (which is what makes forks and diffs meaningful);
* recognises a few prompt shapes real apps use: a ``JSON keys: a, b, c`` line in the
  system message (a compact JSON object with exactly those keys), a "json object with
  these keys" bullet list, "respond with a single word out of: a, b, c" (exactly one of
  the listed words, the one that best matches the request), "questions joined by
  newlines", "respond with only code", a poem, an email draft;
* is deterministic at temperature 0 (seeded from the sha256 of the canonical request;
  ``stream``/``stream_options`` do not count, so a streamed answer equals the plain one)
  and jitters at temperature > 0 (seeded from ``os.urandom``). An absent temperature is
  1, as with OpenAI. A one-word choice, a tool choice and an enum value vary above 0 only
  between equally good candidates, so routing on them stays stable.

It is a simulator, not a model, and says so: the response carries
``system_fingerprint: "rewind-simulator"``, image URLs point at ``simulator.invalid``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import os
import random
import re
import struct
import sys
import threading
import uuid
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

SIMULATOR_MODEL = "rewind-sim-1"
SIMULATOR_BASE_URL = "simulator://local"
SIMULATOR_FINGERPRINT = "rewind-simulator"
SIMULATOR_EMBEDDING_DIMENSIONS = 64
SIMULATOR_IMAGE_HOST = "https://simulator.invalid/images"


@dataclass
class SimulatorOptions:
    """Misbehaviours to switch on, so tests can drive every failure path of the engine."""

    reject_response_format: bool = False
    substitute_model: str | None = None
    garbage: bool = False
    empty: bool = False
    status: int | None = None


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


def _canonical(body: Any) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


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


# -- matching a request against candidates (one-word choices, tools, enum values) -------

# Words that stand for a concept a candidate may be named after ("draw" asks for an image).
_CONCEPTS: dict[str, tuple[str, ...]] = {
    "image": (
        "image draw drawing picture paint painting sketch illustrate illustration photo "
        "photograph render logo art artwork portrait visual wallpaper icon"
    ).split(),
    "code": (
        "code coding program programming function script python javascript typescript java "
        "rust golang sql html css implement implementation algorithm bug debug compile "
        "refactor snippet regex class method sort loop api"
    ).split(),
    "poem": "poem poetry verse rhyme sonnet haiku limerick lyric lyrics song ode".split(),
    "question": (
        "what who whom whose when where why how which explain tell describe define "
        "capital history fact facts meaning"
    ).split(),
    "answer": "what who whom whose when where why how which explain tell describe".split(),
    "generate": "write create make generate produce compose build draft design".split(),
    "summary": "summarize summarise summary tldr condense shorten brief".split(),
    "translate": "translate translation translating".split(),
    "search": "search find lookup look browse google research".split(),
    "weather": "weather temperature rain forecast sunny snow wind humidity".split(),
    "positive": (
        "good great love loved excellent amazing happy wonderful fantastic best enjoy "
        "enjoyed perfect awesome pleased recommend"
    ).split(),
    "negative": (
        "bad terrible hate hated awful poor worst disappointing disappointed broken "
        "horrible angry refund useless slow"
    ).split(),
    "math": "calculate compute sum add multiply divide subtract plus minus times math".split(),
}
_TRIGGERS: dict[str, set[str]] = {}
for _concept, _words in _CONCEPTS.items():
    for _w in _words:
        _TRIGGERS.setdefault(_w, set()).add(_concept)

_TOKEN_RE = re.compile(r"[A-Za-z]+")


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _bag(text: str) -> Counter:
    """The request's words (stemmed, snake_case split) plus the concepts they evoke."""
    bag: Counter = Counter()
    for raw in _TOKEN_RE.findall(text.lower()):
        for concept in _TRIGGERS.get(raw, ()):
            bag[concept] += 1
        word = _stem(raw)
        if word != raw:
            for concept in _TRIGGERS.get(word, ()):
                bag[concept] += 1
        if len(word) >= 3 and raw not in _STOPWORDS:
            bag[word] += 1
    if "?" in text:
        bag["question"] += 1
        bag["answer"] += 1
    return bag


def _candidate_words(text: str) -> set[str]:
    """A candidate's own words (stemmed) and the concepts they name."""
    words: set[str] = set()
    for raw in _TOKEN_RE.findall(text.lower()):
        stem = _stem(raw)
        words |= _TRIGGERS.get(raw, set()) | _TRIGGERS.get(stem, set())
        if stem in _CONCEPTS or (len(stem) >= 3 and raw not in _STOPWORDS):
            words.add(stem)
    return words


def _best(
    candidates: Sequence[str],
    bag: Counter,
    rng: random.Random,
    describe: Sequence[str] | None = None,
    fallback: str | None = None,
) -> str:
    """The candidate whose words overlap ``bag`` most; ties (and no overlap, when there is
    no ``fallback``) are broken by ``rng``: deterministic at temperature 0, varied above."""
    scores = []
    for i, name in enumerate(candidates):
        words = _candidate_words(describe[i] if describe else name)
        scores.append(sum(bag[w] for w in words))
    top = max(scores) if scores else 0
    if top == 0 and fallback is not None:
        return fallback
    best = [c for c, s in zip(candidates, scores, strict=True) if s == top]
    return best[0] if len(best) == 1 else rng.choice(best)


# -- one word out of a listed set --------------------------------------------------------

_OPTION_NOUNS = (
    r"(?:modes?|options?|categor(?:y|ies)|labels?|class(?:es)?|choices?|intents?|values?|"
    r"words?|answers?|types?|actions?|routes?|tags?|topics?|sentiments?|responses?|outputs?)"
)
_CHOICE_INTRO_RE = re.compile(
    r"(?:\b(?:(?:following|these|possible|available|allowed|valid|supported)\s+(?:[a-z-]+\s+){0,2}?)?"
    + _OPTION_NOUNS
    + r"(?:\s+(?:are|is|include))?\s*:"
    r"|\b(?:one|exactly one|only one|any one) of(?: the following| these)?(?:\s+[a-z]+)?\s*:"
    r"|\b(?:one|exactly one|only one) of\s*(?=[\[({]))"
    r"[ \t]*(?P<list>[^\n]+)",
    re.IGNORECASE,
)
_ONE_WORD_RE = re.compile(
    r"\b(?:single|one)[\s-]word\b|\bone of\b|\bexactly one\b|\bnothing else\b"
    r"|\bno other (?:text|words?)\b|\bonly (?:one|the (?:\w+ )?(?:name|label|category|mode|word|option|class))\b"
    r"|\b(?:respond|reply|answer)(?:ing)? (?:only )?with (?:only |just )?(?:the|one|a) (?:\w+ )?"
    r"(?:label|category|mode|option|class|word)\b",
    re.IGNORECASE,
)
_YES_NO_RE = re.compile(
    r"\b(?:answer|respond|reply)\b[^.\n?]{0,40}?[\"'`*]?\b(yes|true)\b[\"'`*]?\s*(?:or|/)\s*"
    r"[\"'`*]?\b(no|false)\b",
    re.IGNORECASE,
)
_ONLY_RE = re.compile(r"\b(?:only|just|single|one word|nothing else)\b", re.IGNORECASE)
_LIST_END_RE = re.compile(r"[.!?;\])}](?:\s|$|[A-Z\"'])|[\])}]")
_OPTION_RE = re.compile(r"^[A-Za-z0-9][\w-]*(?: [A-Za-z0-9][\w-]*){0,2}$")
_FALLBACK_OPTIONS = (
    "unknown other none neutral unclear misc miscellaneous general default fallback "
    "irrelevant unsure not_sure n/a na"
).split()
_FALLBACK_RE = re.compile(
    r"(?:\bif none\b|\bif no\b|\botherwise\b|\bif (?:you are |you're )?unsure\b|\bif unclear\b"
    r"|\bif nothing\b|\bdoes not fit\b|\bdoesn't fit\b)[^.\n]*?[\"'`*]([\w-]+)[\"'`*]",
    re.IGNORECASE,
)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_INSTRUCTION_CUE_RE = re.compile(
    r"\b(?:respond|reply)(?:ing)?\b|\bsingle word\b|\bone word\b|\bnone of\b|\bwould be\b",
    re.IGNORECASE,
)


def _parse_options(listing: str) -> list[str]:
    end = _LIST_END_RE.search(listing)
    listing = listing[: end.start()] if end else listing
    options: list[str] = []
    for part in re.split(r",|\||/|\bor\b|\band\b", listing):
        item = part.strip().strip("\"'`*[](){}<>.:").strip()
        if not item:
            continue
        if not _OPTION_RE.match(item):
            break
        options.append(item)
    return list(dict.fromkeys(options)) if len(set(options)) >= 2 else []


def _choice_options(text: str) -> list[str] | None:
    """The listed options when ``text`` asks for exactly one of them, else None."""
    for match in _CHOICE_INTRO_RE.finditer(text):
        options = _parse_options(match.group("list"))
        if options and (_ONE_WORD_RE.search(text) or "one of" in match.group(0).lower()):
            return options
    yes_no = _YES_NO_RE.search(text)
    if yes_no and _ONLY_RE.search(text):
        return [yes_no.group(1), yes_no.group(2)]
    return None


def _choice_request(user: str, options: list[str]) -> str:
    """The user's own request inside a choice prompt: the sentences that are not the
    instruction (the list, the examples naming an option, "respond with a single word")."""
    lowered = [o.lower() for o in options]
    kept = []
    for sentence in _SENTENCE_SPLIT_RE.split(user):
        low = sentence.lower()
        named = sum(1 for o in lowered if re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", low))
        quoted = any(re.search(rf"[\"'`*]{re.escape(o)}[\"'`*]", low) for o in lowered)
        if named >= 2 or quoted or _INSTRUCTION_CUE_RE.search(sentence):
            continue
        kept.append(sentence)
    return " ".join(kept).strip() or user


def _choose_option(options: list[str], system: str, user: str, rng: random.Random) -> str:
    everything = f"{system}\n{user}"
    fallback = None
    named = _FALLBACK_RE.search(everything)
    if named:
        fallback = next((o for o in options if o.lower() == named.group(1).lower()), None)
    if fallback is None:
        fallback = next((o for o in options if o.lower() in _FALLBACK_OPTIONS), None)
    bag = _bag(_choice_request(user, options))
    return _best(options, bag, rng, fallback=fallback)


# -- other prompt shapes real apps use ---------------------------------------------------

_JSON_BULLETS_INTRO_RE = re.compile(r"\bjson\b[^\n]*\bkeys?\b[^\n]*$", re.IGNORECASE | re.MULTILINE)
_BULLET_KEY_RE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*[\"'`]?([A-Za-z_][\w]*)[\"'`]?\s*:")
_LINES_RE = re.compile(
    r"\b(?:joined|separated|delimited)\s+by\s+(?:a\s+)?new\s*-?\s*lines?\b"
    r"|\bone\s+per\s+line\b|\beach\s+on\s+(?:its\s+own|a\s+new|a\s+separate)\s+line\b",
    re.IGNORECASE,
)
_COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_AT_MOST_RE = re.compile(
    r"\b(?:at most|up to|no more than|maximum of|max(?:imum)?)\s+(\d+|one|two|three|four|five|six)\b",
    re.IGNORECASE,
)
_CODE_RE = re.compile(
    r"\b(?:only|just)\b[^.\n]{0,15}\bcode\b"
    r"|\b(?:write|generate|create|implement|give me|show me)\b[^.\n]{0,40}"
    r"\b(?:code|function|script|program|snippet|regex)\b",
    re.IGNORECASE,
)
_POEM_RE = re.compile(r"\b(?:poem|poetry|verse|haiku|sonnet|limerick)s?\b", re.IGNORECASE)
_DRAFT_RE = re.compile(r"\bdraft\b", re.IGNORECASE)
_EMAIL_RE = re.compile(r"\be-?mail\b", re.IGNORECASE)

# Words of the instruction, not of the content, in the prompts of apps we answer.
_INSTRUCTION_WORDS = frozenset(
    """
    questions question clarifying clarification clarifications clarify email emails user
    users sender original task tasks instructions instruction newlines newline joined
    generate generating return string empty valuable time feel leverage included asking
    chatbot responses response behalf prompt prompted mode modes draft first list less
    only must okay really code respond responding text snippet function script program
    poem poetry verse haiku sonnet limerick write information already asked received
    answers previous feedback incorporate following based assistant helpful
    """.split()
)


def _content_words(text: str, limit: int = 8) -> list[str]:
    words = [
        w for w in _salient_words(text, limit + 24) if w not in _INSTRUCTION_WORDS and "'" not in w
    ]
    if not words or words == list(_FALLBACK_WORDS):
        return list(_FALLBACK_WORDS)
    return words[:limit]


_CONTENT_SPLIT_RE = re.compile(r"(?<=[.!?])\s*(?=[A-Z*])|\n+")
_INSTRUCTION_SENTENCE_RE = re.compile(
    r"\b(?:please|respond|reply|return|your (?:first )?task|joined by|newlines?|clarif\w*"
    r"|at most|must be the only|if you do not|you are a|you have already)\b",
    re.IGNORECASE,
)


_INTRODUCER_RE = re.compile(r"^.*?\b(?:is|are|this|follows?|below)\s*:\s*", re.IGNORECASE)


def _content_text(text: str) -> str:
    """``text`` without its instruction sentences ("generate at most 3 questions"); what
    follows an introducer ("The email you are to respond to is: ...") is content."""
    kept = []
    for sentence in _CONTENT_SPLIT_RE.split(text):
        sentence = _INTRODUCER_RE.sub("", sentence or "", count=1)
        if sentence.strip() and not _INSTRUCTION_SENTENCE_RE.search(sentence):
            kept.append(sentence)
    return "\n".join(kept) or text


def _json_bullet_keys(text: str) -> list[str] | None:
    """Keys from a "json object with these keys:" line followed by ``- key: ...`` bullets."""
    lines = text.splitlines()
    for match in _JSON_BULLETS_INTRO_RE.finditer(text):
        start = text.count("\n", 0, match.start()) + 1
        keys: list[str] = []
        for line in lines[start:]:
            bullet = _BULLET_KEY_RE.match(line)
            if bullet:
                keys.append(bullet.group(1))
            elif line.strip() or keys:
                break
        if len(keys) >= 1:
            return list(dict.fromkeys(keys))
    return None


_QUESTION_TEMPLATES = (
    "Should the reply commit to {w1}, or keep it open for now?",
    "What tone do you want for the part about {w1}: formal or friendly?",
    "Is there a date or deadline for {w1} that I should mention?",
    "Do you want me to mention {w2} explicitly?",
    "Is there anything about {w1} and {w2} that should stay out of the reply?",
    "Should I propose a next step on {w2}?",
)
_LINE_TEMPLATES = (
    "{W1} and {w2}, first of all.",
    "A closer look at {w2}.",
    "What {w1} means for {w3}.",
    "The link between {w3} and {w1}.",
    "Next steps on {w2}.",
    "Open points on {w1}.",
)


def _lines_answer(user: str, rng: random.Random) -> str:
    """At most N items (questions when questions are asked for), one per line."""
    content = _content_text(user)
    words = _content_words(content)
    w = (words * 3)[:3]
    nums = _numbers(content)
    limit = _AT_MOST_RE.search(user)
    most = 3
    if limit:
        token = limit.group(1).lower()
        most = int(token) if token.isdigit() else _COUNT_WORDS[token]
    most = max(1, min(most, 6))
    questions = re.search(r"\bquestions?\b", user, re.IGNORECASE) is not None
    templates = _QUESTION_TEMPLATES if questions else _LINE_TEMPLATES
    count = rng.randint(1, most)
    picked = [
        t.format(w1=w[0], w2=w[1], w3=w[2], W1=w[0].capitalize())
        for t in rng.sample(templates, count)
    ]
    if nums and picked:
        picked[0] = (
            f"Should the reply confirm {_join(nums)} as stated?"
            if questions
            else f"The figures {_join(nums)}."
        )
    return "\n".join(picked)


_CODE_NOISE = frozenset(
    """
    code coding function script program programming snippet python javascript typescript
    java rust golang sql implement implementation language
    """.split()
)
_CODE_BODIES = (
    (("sort", "sorted", "order"), "return sorted(values)"),
    (("reverse", "reversed", "backwards"), "return values[::-1]"),
    (("sum", "total", "add"), "return sum(values)"),
    (("max", "maximum", "largest", "biggest"), "return max(values)"),
    (("min", "minimum", "smallest"), "return min(values)"),
    (("count", "length", "size"), "return len(values)"),
    (
        ("unique", "dedupe", "deduplicate", "distinct", "duplicates"),
        "return list(dict.fromkeys(values))",
    ),
)


def _code_answer(user: str, rng: random.Random) -> str:
    """Only code (no prose, no fence): a small, valid Python function named after the
    request; it is a placeholder and says so in its docstring."""
    words = [w for w in _content_words(user) if w not in _CODE_NOISE] or ["task"]
    name = "_".join(re.sub(r"[^a-z0-9]", "_", w) for w in words[:2]).strip("_") or "solve"
    if not name[0].isalpha():
        name = f"solve_{name}"
    tokens = set(_TOKEN_RE.findall(user.lower()))
    body = next(
        (code for triggers, code in _CODE_BODIES if tokens & set(triggers)),
        rng.choice(("return list(values)", "return [value for value in values]")),
    )
    lines = [
        f"def {name}(values):",
        f'    """{" ".join(words[:3]).capitalize()}: a placeholder answer from the Rewind simulator."""',
    ]
    nums = _numbers(user)
    if nums:
        lines.append(f"    # figures from the request: {', '.join(nums)}")
    lines.append(f"    {body}")
    return "\n".join(lines)


_POEM_STANZAS = (
    (
        "Of {w1} the quiet morning speaks,",
        "where {w2} and {w3} meet;",
        "a measure of {w1} the evening keeps,",
        "and {w2} makes the line complete.",
    ),
    (
        "{W1} rises with the light,",
        "{w2} follows close behind,",
        "and {w3}, held through the night,",
        "is what the dawn will find.",
    ),
)


def _poem_answer(user: str, rng: random.Random) -> str:
    words = _content_words(user)
    w = (words * 3)[:3]
    stanza = [
        line.format(w1=w[0], w2=w[1], w3=w[2], W1=w[0].capitalize())
        for line in rng.choice(_POEM_STANZAS)
    ]
    nums = _numbers(user)
    if nums:
        stanza.insert(2, f"counting {_join(nums)} along the way,")
    return "\n".join(stanza)


def _email_answer(user: str, rng: random.Random) -> str:
    content = _content_text(user)
    words = _content_words(content)
    nums = _numbers(content)
    writer = _Writer(rng, words)
    base = rng.randrange(1000)
    w = (words * 2)[:2]
    about = _join(w) if w[0] != w[1] else w[0]
    body = writer.sentence(nums, shift=0, variant=base, follow_up=False)
    closing = rng.choice(
        (
            f"Please let me know if anything about {w[0]} needs a change.",
            f"I am happy to talk through {w[1]} if that helps.",
            f"Let me know how you would like to proceed on {w[0]}.",
        )
    )
    return f"Hi,\n\nThank you for your message about {about}. {body}\n\n{closing}\n\nBest regards"


def compose_text(messages: list[dict], rng: random.Random) -> str:
    """A text answer: :func:`compose` unless the prompt has one of the shapes above."""
    system = _role_text(messages, "system", "developer")
    if _json_keys(system) is not None:
        return compose(messages, rng)
    user = _last_user(messages)
    options = _choice_options(f"{system}\n{user}")
    if options:
        return _choose_option(options, system, user, rng)
    keys = _json_bullet_keys(f"{system}\n{user}")
    if keys:
        writer = _Writer(rng, _salient_words(user))
        base = rng.randrange(1000)
        return _fill_keys(keys, _numbers(user), writer, base, rng)
    if _LINES_RE.search(user):
        return _lines_answer(user, rng)
    if _CODE_RE.search(user):
        return _code_answer(user, rng)
    if _POEM_RE.search(user) and re.search(
        r"\b(?:write|generate|compose|create|make|give)\b", user, re.IGNORECASE
    ):
        return _poem_answer(user, rng)
    if _DRAFT_RE.search(user) and _EMAIL_RE.search(f"{system}\n{user}"):
        return _email_answer(user, rng)
    return compose(messages, rng)


# -- JSON schema values (tool arguments, response_format json_schema) -------------------

_NAME_KEYS = frozenset(
    """
    location city town place country destination origin address region area where venue
    name person author company organisation organization recipient customer contact
    full_name first_name last_name username user owner team
    """.split()
)
_QUERY_KEYS = frozenset("query q search search_query keywords keyword term terms topic".split())
_VERBATIM_KEYS = frozenset("question prompt text input message request instruction".split())
_URL_KEYS = frozenset("url uri link href website homepage image_url source_url".split())
_LONG_TEXT_HINTS = (
    "summary description reason reasoning explanation rationale answer analysis content body "
    "details notes comment message response result feedback justification thought plan "
    "conclusion recommendation finding insight"
).split()
_PROBABILITY_HINTS = ("confidence", "score", "probability", "likelihood", "ratio", "rate", "weight")
_LEADING_NON_NAMES = frozenset(
    """
    what whats please the is can could tell find show get give hi hello write draw generate
    create make look search who how why where when which book send set a an i it in on at
    for and or but my our your this that these those there here if do does did are was
    """.split()
)
_PROPER_RE = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_ISO_DATE_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def _proper_nouns(text: str) -> list[str]:
    """Capitalised word runs that look like names ("Paris", "Grace Hopper"), those inside
    a sentence first (a sentence's first word is capitalised anyway: "Review ...")."""
    inside: list[str] = []
    initial: list[str] = []
    for match in _PROPER_RE.finditer(text):
        words = match.group(0).split()
        while words and words[0].lower().replace("'", "") in _LEADING_NON_NAMES:
            words = words[1:]
        if not words or (len(words) == 1 and words[0].lower() in _STOPWORDS):
            continue
        before = text[: match.start()].rstrip()
        at_start = not before or before[-1] in ".!?:;\n\"'"
        (initial if at_start and words == match.group(0).split() else inside).append(
            " ".join(words).strip("'")
        )
    return list(dict.fromkeys(inside + initial))


class _SchemaFiller:
    """Builds a value valid for a JSON schema from the prompt's words and numbers.

    ``all_properties``: fill every declared property (structured output) or only the
    required ones (tool arguments; every property when the schema marks none required).
    """

    def __init__(self, root: Any, rng: random.Random, text: str, *, all_properties: bool) -> None:
        self.root = root if isinstance(root, dict) else {}
        self.rng = rng
        self.text = text
        self.bag = _bag(text)
        self.nums = _numbers(text)
        self.pending = list(self.nums)  # numbers still to quote in prose
        self.words = _content_words(text)
        self.writer = _Writer(rng, self.words)
        self.names = _proper_nouns(text)
        self.all_properties = all_properties
        self.slot = 0  # varies the words of successive string values
        self.number_slot = 0
        self.name_slot = 0

    def _next_name(self) -> int:
        self.name_slot += 1
        return self.name_slot - 1

    # Schema plumbing ---------------------------------------------------------------

    def _resolve(self, schema: Any, hops: int = 0) -> dict:
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and hops < 32:
            target: Any = self.root
            for part in ref[1:].split("/"):
                if not part:
                    continue
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            merged = {
                **self._resolve(target, hops + 1),
                **{k: v for k, v in schema.items() if k != "$ref"},
            }
            return merged
        if isinstance(schema.get("allOf"), list):
            merged: dict = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = self._resolve(part, hops + 1)
                for key, value in part.items():
                    if key == "properties":
                        merged["properties"] = {**merged.get("properties", {}), **value}
                    elif key == "required":
                        merged["required"] = list(dict.fromkeys(merged.get("required", []) + value))
                    else:
                        merged.setdefault(key, value)
            return merged
        return schema

    @staticmethod
    def _type(schema: dict) -> str:
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if isinstance(kind, str):
            return kind
        if "properties" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        return "string"

    # Values ------------------------------------------------------------------------

    def value(self, schema: Any, key: str = "", depth: int = 0) -> Any:
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._enum(schema["enum"])
        for combinator in ("anyOf", "oneOf"):
            branches = schema.get(combinator)
            if isinstance(branches, list) and branches:
                resolved = [self._resolve(b) for b in branches]
                chosen = next((b for b in resolved if self._type(b) != "null"), resolved[0])
                base = {k: v for k, v in schema.items() if k != combinator}
                return self.value({**base, **chosen}, key, depth)
        kind = self._type(schema)
        if depth > 12:  # a recursive schema: stop with the smallest valid value
            return {
                "object": {},
                "array": [],
                "string": "",
                "integer": 0,
                "number": 0,
                "boolean": False,
            }.get(kind)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, key, depth)
        if kind == "integer":
            return self._number(schema, key, integer=True)
        if kind == "number":
            return self._number(schema, key, integer=False)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self._string(schema, key)

    def _enum(self, values: list) -> Any:
        texts = [v for v in values if isinstance(v, str)]
        if len(texts) == len(values):
            return _best(texts, self.bag, self.rng)
        return self.rng.choice(values)

    def _object(self, schema: dict, depth: int) -> dict:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [k for k in schema.get("required") or [] if isinstance(k, str)]
        if self.all_properties or not required:
            keys = list(props) + [k for k in required if k not in props]
        else:
            keys = [k for k in props if k in required] + [k for k in required if k not in props]
        result = {key: self.value(props.get(key, {}), key, depth + 1) for key in keys}
        minimum = schema.get("minProperties")
        extra = schema.get("additionalProperties")
        if isinstance(minimum, int) and len(result) < minimum and extra is not False:
            extra_schema = extra if isinstance(extra, dict) else {"type": "string"}
            for word in self.words + [f"key_{i}" for i in range(minimum)]:
                if len(result) >= minimum:
                    break
                result.setdefault(word, self.value(extra_schema, word, depth + 1))
        return result

    def _array(self, schema: dict, key: str, depth: int) -> list:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            return [self.value(item, key, depth + 1) for item in prefix]
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        low = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 1
        high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
        high = max(low, min(high if high is not None else low + 2, low + 2))
        count = self.rng.randint(low, high)
        values: list = []
        enum = self._resolve(items).get("enum")
        if schema.get("uniqueItems") and isinstance(enum, list):
            return self.rng.sample(enum, min(max(count, low), len(enum)))
        singular = key[:-1] if key.endswith("s") else key
        for _ in range(count * 3):
            if len(values) >= count:
                break
            value = self.value(items, singular, depth + 1)
            if schema.get("uniqueItems") and value in values:
                continue
            values.append(value)
        return values

    def _number(self, schema: dict, key: str, *, integer: bool) -> int | float:
        low, high = schema.get("minimum"), schema.get("maximum")
        step = 1 if integer else 0.01
        if isinstance(schema.get("exclusiveMinimum"), int | float):
            low = schema["exclusiveMinimum"] + step
        if isinstance(schema.get("exclusiveMaximum"), int | float):
            high = schema["exclusiveMaximum"] - step
        low = low if isinstance(low, int | float) else None
        high = high if isinstance(high, int | float) else None

        def fits(v: float) -> bool:
            return (low is None or v >= low) and (high is None or v <= high)

        lowered = key.lower()
        probability = not integer and any(h in lowered for h in _PROBABILITY_HINTS)
        candidates = []
        for text in self.nums:
            number = float(text)
            if probability and not 0 <= number <= 1:
                continue
            if (not integer or number.is_integer()) and fits(number):
                candidates.append(int(number) if integer or number.is_integer() else number)
        if candidates:
            self.number_slot += 1
            return candidates[(self.number_slot - 1) % len(candidates)]
        if probability and fits(0.55) and fits(0.95):
            return round(self.rng.uniform(0.55, 0.95), 2)
        if integer:
            lo = math.ceil(low) if low is not None else (high - 9 if high is not None else 1)
            hi = math.floor(high) if high is not None else lo + 9
            return self.rng.randint(int(lo), int(max(lo, hi)))
        lo = low if low is not None else (high - 100 if high is not None else 0.0)
        hi = high if high is not None else lo + 100
        value = round(self.rng.uniform(lo, hi), 2)
        return min(max(value, lo), hi)

    def _string(self, schema: dict, key: str) -> str:
        low = key.lower()
        fmt = schema.get("format")
        self.slot += 1
        shift = self.slot
        words = self.writer._rotated(shift)
        slug = "-".join(re.sub(r"[^a-z0-9]+", "-", w) for w in words[:2]).strip("-") or "item"
        dates = _ISO_DATE_RE.findall(self.text)
        if fmt == "date-time":
            value = f"{dates[0] if dates else '2025-01-15'}T12:00:00Z"
        elif fmt == "date" or low == "date" or low.endswith(("_date", "_on")):
            value = dates[0] if dates else "2025-01-15"
        elif fmt == "time":
            value = "12:00:00"
        elif fmt == "email" or "email" in low:
            value = f"{re.sub(r'[^a-z0-9]+', '.', words[0]).strip('.') or 'someone'}@example.com"
        elif fmt in ("uri", "url", "iri") or low in _URL_KEYS or low.endswith("_url"):
            value = f"https://example.invalid/{slug}"
        elif fmt == "uuid" or low in ("uuid", "guid"):
            value = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        elif low == "id" or low.endswith("_id"):
            value = f"{slug}-{self.rng.randrange(1000, 10000)}"
        elif low in _NAME_KEYS or low.endswith(("_name", "_city", "_location")):
            value = (
                self.names[self._next_name() % len(self.names)]
                if self.names
                else " ".join(w.capitalize() for w in words[:2])
            )
        elif low in _QUERY_KEYS or low.endswith("query"):
            value = " ".join(self.words[:4] + self.nums[:2])
        elif low in _VERBATIM_KEYS and not self.all_properties:
            value = " ".join(self.text.split())[:300]
        elif any(t in low for t in _TITLE_KEYS):
            value = self.writer.title(self.nums, shift=shift)
        elif self.all_properties or any(h in low for h in _LONG_TEXT_HINTS):
            nums, self.pending = self.pending, []
            value = self.writer.sentence(
                nums,
                shift=shift,
                variant=self.rng.randrange(1000),
                follow_up=self.rng.random() < 0.4,
            )
        else:
            value = " ".join(words[:3])
        minimum = schema.get("minLength")
        maximum = schema.get("maxLength")
        if isinstance(minimum, int):
            while len(value) < minimum:
                value = f"{value} {' '.join(self.words)}".strip() if self.words else value + "x"
        if isinstance(maximum, int) and maximum >= 0:
            value = value[:maximum]
        return value


def _schema_answer(schema: Any, text: str, rng: random.Random) -> str:
    """A compact JSON document valid for ``schema`` (structured output)."""
    value = _SchemaFiller(schema, rng, text, all_properties=True).value(schema)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- tools -------------------------------------------------------------------------------


@dataclass
class _ToolCall:
    id: str
    name: str
    arguments: str


def _function_tools(tools: Any) -> list[dict]:
    """``{"name", "description", "parameters"}`` of every function tool, in either the
    Chat Completions shape (``{"type": "function", "function": {...}}``) or the
    Responses shape (``{"type": "function", "name": ...}``)."""
    found = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict) or tool.get("type", "function") != "function":
            continue
        fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if isinstance(fn.get("name"), str) and fn["name"]:
            found.append(
                {
                    "name": fn["name"],
                    "description": str(fn.get("description") or ""),
                    "parameters": fn.get("parameters")
                    if isinstance(fn.get("parameters"), dict)
                    else {"type": "object", "properties": {}},
                }
            )
    return found


def _describe_tool(tool: dict) -> str:
    params = tool["parameters"].get("properties")
    names = " ".join(params) if isinstance(params, dict) else ""
    return f"{tool['name'].replace('_', ' ')} {tool['description']} {names}"


def _tool_plan(body: dict, messages: list[dict]) -> tuple[list[dict], str | None] | None:
    """``(candidate tools, forced name or None)`` when this request should answer with a
    tool call, else None. Raises ValueError for a ``tool_choice`` naming no given tool."""
    tools = _function_tools(body.get("tools"))
    if not tools:
        return None
    choice = body.get("tool_choice", "auto")
    forced: str | None = None
    required = False
    if choice == "none":
        return None
    if choice == "required":
        required = True
    elif isinstance(choice, dict):
        if choice.get("type") == "allowed_tools":
            allowed = (
                choice.get("allowed_tools")
                if isinstance(choice.get("allowed_tools"), dict)
                else choice
            )
            names = {
                t.get("name") or (t.get("function") or {}).get("name")
                for t in allowed.get("tools") or []
                if isinstance(t, dict)
            }
            tools = [t for t in tools if t["name"] in names] or tools
            required = allowed.get("mode") == "required"
        else:
            fn = choice.get("function") if isinstance(choice.get("function"), dict) else choice
            forced = fn.get("name") if isinstance(fn.get("name"), str) else None
            if forced is not None and forced not in {t["name"] for t in tools}:
                raise ValueError(f"tool_choice names '{forced}', which is not among the tools")
            required = True
    last = messages[-1] if messages else {}
    if not required and isinstance(last, dict) and last.get("role") in ("tool", "function"):
        return None  # the tool answered: now answer the user
    return tools, forced


def _tool_call(
    tools: list[dict], forced: str | None, messages: list[dict], rng: random.Random, call_id: str
) -> _ToolCall:
    user = _last_user(messages)
    if forced is not None:
        tool = next(t for t in tools if t["name"] == forced)
    else:
        names = [t["name"] for t in tools]
        chosen = _best(names, _bag(user), rng, describe=[_describe_tool(t) for t in tools])
        tool = tools[names.index(chosen)]
    schema = tool["parameters"]
    arguments = _SchemaFiller(schema, rng, user, all_properties=False).value(schema)
    if not isinstance(arguments, dict):
        arguments = {}
    return _ToolCall(call_id, tool["name"], json.dumps(arguments, ensure_ascii=False))


def _flatten(value: Any, prefix: str = "") -> list[str]:
    """``key value`` facts of a parsed tool result (numbers kept verbatim)."""
    if isinstance(value, dict):
        facts = []
        for key, item in value.items():
            label = f"{prefix} {key}".strip().replace("_", " ")
            facts.extend(_flatten(item, label))
        return facts
    if isinstance(value, list):
        if all(not isinstance(v, dict | list) for v in value):
            shown = ", ".join(_scalar(v) for v in value)
            return [f"{prefix} {shown}".strip()] if value else []
        return [fact for item in value for fact in _flatten(item, prefix)]
    return [f"{prefix} {_scalar(value)}".strip()]


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _quote_result(name: str, text: str) -> str:
    try:
        parsed = json.loads(text, parse_float=str, parse_int=str)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict | list) and parsed:
        facts = _flatten(parsed)
        shown = _join(facts[:10])
        missing = [n for n in _numbers(text) if n not in shown]
        if missing:
            shown += f" (also {_join(missing)})"
        return f"According to {name}, {shown}."
    flat = " ".join(text.split())
    if not flat:
        return f"{name} returned nothing."
    if len(flat) <= 240:
        return f'According to {name}: "{flat}".'
    nums = _numbers(flat)
    figures = f", with the figures {_join(nums)}" if nums else ""
    return f"According to {name}, the result covers {_join(_salient_words(flat, 5))}{figures}."


def _tool_result_answer(messages: list[dict], rng: random.Random) -> str:
    """Prose after ``role: tool`` results: quotes each result, then closes on the request."""
    names: dict[str, str] = {}
    for m in messages:
        for call in (m.get("tool_calls") or []) if isinstance(m, dict) else []:
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                names[str(call.get("id"))] = str(call["function"].get("name") or "the tool")
    results = []
    for m in reversed(messages):
        if not isinstance(m, dict) or m.get("role") not in ("tool", "function"):
            break
        results.insert(0, m)
    parts = [
        _quote_result(
            names.get(str(m.get("tool_call_id"))) or str(m.get("name") or "the tool"),
            _message_text(m.get("content")).strip(),
        )
        for m in results
    ]
    words = _content_words(_last_user(messages))
    w = (words * 2)[:2]
    closing = rng.choice(
        (
            f"That answers the question about {_join(dict.fromkeys(w))}.",
            f"This is what the request on {w[0]} needed.",
            f"Those results settle the point about {w[0]}.",
        )
    )
    return " ".join(parts + [closing])


def _error(
    status: int, message: str, kind: str = "invalid_request_error", code: Any = None
) -> tuple[int, dict]:
    """An error body in OpenAI's shape: ``{"error": {message, type, param, code}}``."""
    return status, {
        "error": {
            "message": message,
            "type": kind,
            "param": None,
            "code": status if code is None else code,
        }
    }


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


def _seed_body(body: dict) -> dict:
    """What the answer depends on: the request without its transport-only keys."""
    return {k: v for k, v in body.items() if k not in ("stream", "stream_options")}


def _json_schema_of(response_format: Any) -> Any:
    """The schema of a ``json_schema`` response format, or None for any other format."""
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema")
    spec = spec if isinstance(spec, dict) else response_format  # Responses API: flat
    schema = spec.get("schema")
    return schema if isinstance(schema, dict) else {"type": "object"}


def _pieces(text: str) -> list[str]:
    """``text`` cut into word-sized pieces whose concatenation is ``text``."""
    return re.findall(r"\S+\s*|\s+", text)


def _sse(events: Sequence[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out).encode("utf-8")


def _chat_chunks(response: dict, include_usage: bool) -> list[tuple[str | None, Any]]:
    """A chat completion as the ``chat.completion.chunk`` events of a stream."""
    head = {
        "id": response["id"],
        "object": "chat.completion.chunk",
        "created": response["created"],
        "model": response["model"],
        "system_fingerprint": response["system_fingerprint"],
    }

    def chunk(delta: dict, finish: str | None = None) -> tuple[None, dict]:
        data = {
            **head,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            data["usage"] = None
        return None, data

    choice = response["choices"][0]
    message = choice["message"]
    events = []
    calls = message.get("tool_calls") or []
    if calls:
        events.append(chunk({"role": "assistant", "content": None, "refusal": None}))
        for index, call in enumerate(calls):
            start = {
                "index": index,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            events.append(chunk({"tool_calls": [start]}))
            for piece in _pieces(call["function"]["arguments"]):
                events.append(
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                )
    else:
        events.append(chunk({"role": "assistant", "content": "", "refusal": None}))
        events.extend(chunk({"content": piece}) for piece in _pieces(message["content"] or ""))
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        events.append((None, {**head, "choices": [], "usage": response["usage"]}))
    events.append((None, "[DONE]"))
    return events


def _responses_input(body: dict) -> list[dict]:
    """A Responses API request's ``instructions`` and ``input`` as chat messages."""
    messages: list[dict] = []
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        messages.append({"role": "system", "content": body["instructions"]})
    items = body.get("input")
    if isinstance(items, str):
        return messages + [{"role": "user", "content": items}]
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and isinstance(item.get("role"), str):
            messages.append({"role": item["role"], "content": _message_text(item.get("content"))})
        elif kind == "function_call":
            call = {
                "id": str(item.get("call_id") or item.get("id") or ""),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments", "")},
            }
            last = messages[-1] if messages else None
            if last and last.get("role") == "assistant" and last.get("tool_calls"):
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": str(item.get("call_id") or ""),
                    "content": output if isinstance(output, str) else _message_text(output),
                }
            )
    return messages


def _tiny_png(rgb: bytes) -> bytes:
    """A valid 1x1 PNG of colour ``rgb``: a placeholder image, made here, no network."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" + rgb[:3]))
        + chunk(b"IEND", b"")
    )


def _embedding(text: str, dimensions: int) -> list[float]:
    """A unit vector from the text's words (feature hashing): deterministic, and texts
    that share words point the same way, so cosine similarity means something."""
    vector = [0.0] * dimensions
    features = [(w, 1.0) for w in (_stem(t) for t in _TOKEN_RE.findall(text.lower()))]
    features += [(f"#text:{text}", 0.25)]
    for feature, weight in features:
        digest = hashlib.sha256(feature.encode("utf-8")).digest()
        for k in range(2):
            index = int.from_bytes(digest[4 * k : 4 * k + 4], "big") % dimensions
            sign = 1.0 if digest[8 + k] & 1 else -1.0
            vector[index] += sign * weight
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    # Round through float32, so the float and the base64 encodings carry the same values.
    return [struct.unpack("<f", struct.pack("<f", v / norm))[0] for v in vector]


@dataclass
class _Reply:
    """One answer: a JSON body, or the events of a ``text/event-stream``."""

    status: int
    body: dict | None = None
    events: list[tuple[str | None, Any]] | None = field(default=None)


# -- the simulator -------------------------------------------------------------------

_ENDPOINTS = (
    ("/chat/completions", "chat"),
    ("/completions", "completions"),
    ("/embeddings", "embeddings"),
    ("/images/generations", "images"),
    ("/responses", "responses"),
    ("/models", "models"),
)


class Simulator:
    """An OpenAI-compatible endpoint that needs no key and no network.

    ``requests`` records every body that reached ``/chat/completions`` (in order), so
    tests can count calls, e.g. to check the one allowed ``response_format`` retry;
    ``calls`` records ``(endpoint, body)`` for every endpoint.
    """

    def __init__(self, options: SimulatorOptions | None = None) -> None:
        self.options = options or SimulatorOptions()
        self.requests: list[dict] = []
        self.calls: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    # The pure core -------------------------------------------------------------------

    def _fault(self) -> tuple[int, dict] | None:
        status = self.options.status
        if status is None:
            return None
        if status == 429:
            return _error(429, "rate limit exceeded (simulated)", "rate_limit_error")
        return _error(status, f"simulated provider failure (HTTP {status})", "server_error")

    def _model(self, body: dict) -> str:
        model = body.get("model") if isinstance(body.get("model"), str) else None
        return self.options.substitute_model or model or SIMULATOR_MODEL

    def respond(self, body: dict) -> tuple[int, dict]:
        """Answer one chat-completions request body with ``(status, response JSON)``
        (the non-streamed shape, also for ``stream: true``: :meth:`dispatch` streams it)."""
        opts = self.options
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return _error(400, "'messages' must be a non-empty list")
        fault = self._fault()
        if fault is not None:
            return fault
        if opts.reject_response_format and body.get("response_format") is not None:
            return _error(400, "'response_format' is not supported by this model")

        model = body.get("model") if isinstance(body.get("model"), str) else None
        model = model or SIMULATOR_MODEL
        try:
            temperature = float(body.get("temperature", 1.0))
        except (TypeError, ValueError):
            return _error(400, "'temperature' must be a number")

        digest = hashlib.sha256(_canonical(_seed_body(body)).encode("utf-8")).hexdigest()
        if temperature > 0:
            rng = random.Random(os.urandom(8))
            response_id = f"chatcmpl-sim-{os.urandom(12).hex()}"
        else:
            rng = random.Random(int(digest[:16], 16))
            response_id = f"chatcmpl-sim-{digest[:24]}"

        content: str | None
        calls: list[_ToolCall] = []
        if opts.empty:
            content = ""
        elif opts.garbage:
            words = _salient_words(
                "\n".join(_message_text(m.get("content")) for m in messages if isinstance(m, dict))
            )
            noise = "".join(rng.choice("#@%&~^|") for _ in range(6))
            content = f"<<garbled output>> {noise} {{{words[0]}:: ,, ]] {noise[::-1]}"
        else:
            try:
                plan = _tool_plan(body, messages)
            except ValueError as exc:
                return _error(400, str(exc))
            schema = _json_schema_of(body.get("response_format"))
            if plan is not None:
                call_id = f"call_{(digest if temperature <= 0 else os.urandom(12).hex())[:24]}"
                calls = [_tool_call(*plan, messages, rng, call_id)]
                content = None
            elif schema is not None:
                last = messages[-1] if isinstance(messages[-1], dict) else {}
                source = _last_user(messages)
                if last.get("role") in ("tool", "function"):
                    source += "\n" + _message_text(last.get("content"))
                content = _schema_answer(schema, source, rng)
            elif isinstance(messages[-1], dict) and messages[-1].get("role") in (
                "tool",
                "function",
            ):
                content = _tool_result_answer(messages, rng)
            else:
                content = compose_text(messages, rng)

        prompt_chars = sum(
            len(_message_text(m.get("content"))) for m in messages if isinstance(m, dict)
        )
        prompt_tokens = _tokens(prompt_chars)
        produced = content if content is not None else "".join(c.name + c.arguments for c in calls)
        completion_tokens = _tokens(len(produced))
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
        return 200, {
            "id": response_id,
            "object": "chat.completion",
            "created": 0,
            "model": opts.substitute_model or model,
            "system_fingerprint": SIMULATOR_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def embed(self, body: dict) -> tuple[int, dict]:
        """Answer an ``/embeddings`` body: one deterministic vector per input string."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        fault = self._fault()
        if fault is not None:
            return fault
        raw = body.get("input")
        if isinstance(raw, str):
            texts = [raw]
        elif isinstance(raw, list) and raw and all(isinstance(t, int) for t in raw):
            texts = [" ".join(map(str, raw))]  # one input given as token ids
        elif isinstance(raw, list) and raw:
            texts = [
                t if isinstance(t, str) else " ".join(map(str, t)) if isinstance(t, list) else None
                for t in raw
            ]
            if any(t is None for t in texts):
                return _error(400, "'input' items must be strings or lists of token ids")
        else:
            return _error(400, "'input' must be a string or a non-empty list")
        dimensions = body.get("dimensions", SIMULATOR_EMBEDDING_DIMENSIONS)
        if (
            isinstance(dimensions, bool)
            or not isinstance(dimensions, int)
            or not 1 <= dimensions <= 4096
        ):
            return _error(400, "'dimensions' must be an integer from 1 to 4096")
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            return _error(400, "'encoding_format' must be 'float' or 'base64'")
        data = []
        for index, text in enumerate(texts):
            vector = _embedding(text, dimensions)
            encoded: Any = vector
            if encoding == "base64":
                encoded = base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(_tokens(len(t)) for t in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": self._model(body),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def images(self, body: dict) -> tuple[int, dict]:
        """Answer ``/images/generations`` with a clearly fake placeholder (no network)."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        fault = self._fault()
        if fault is not None:
            return fault
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return _error(400, "'prompt' must be a non-empty string")
        n = body.get("n", 1)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
            return _error(400, "'n' must be an integer from 1 to 10")
        fmt = body.get("response_format") or "url"
        if fmt not in ("url", "b64_json"):
            return _error(400, "'response_format' must be 'url' or 'b64_json'")
        data = []
        for index in range(n):
            digest = hashlib.sha256(
                _canonical({**_seed_body(body), "index": index}).encode("utf-8")
            ).hexdigest()
            item: dict[str, Any] = {
                "revised_prompt": f"[simulated placeholder image, nothing was drawn] {prompt}"
            }
            if fmt == "b64_json":
                item["b64_json"] = base64.b64encode(_tiny_png(bytes.fromhex(digest[:6]))).decode()
            else:
                item["url"] = f"{SIMULATOR_IMAGE_HOST}/{digest[:32]}.png"
            data.append(item)
        return 200, {"created": 0, "data": data}

    def complete_legacy(self, body: dict) -> tuple[int, dict]:
        """Answer the legacy ``/completions`` (``prompt`` in, ``choices[0].text`` out)."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        if body.get("stream"):
            return _error(400, "'stream' is not supported on /completions by the simulator")
        prompt = body.get("prompt")
        if isinstance(prompt, list):
            prompt = "\n".join(p for p in prompt if isinstance(p, str))
        if not isinstance(prompt, str):
            return _error(400, "'prompt' must be a string or a list of strings")
        chat = {k: v for k, v in body.items() if k not in ("prompt",)}
        chat["messages"] = [{"role": "user", "content": prompt}]
        status, answer = self.respond(chat)
        if status != 200:
            return status, answer
        return 200, {
            "id": answer["id"].replace("chatcmpl-", "cmpl-", 1),
            "object": "text_completion",
            "created": 0,
            "model": answer["model"],
            "system_fingerprint": SIMULATOR_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "text": answer["choices"][0]["message"]["content"] or "",
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": answer["usage"],
        }

    def respond_responses(self, body: dict) -> tuple[int, dict]:
        """Answer a Responses API body (``/responses``) through the chat core."""
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        messages = _responses_input(body)
        if not any(m.get("role") in ("user", "tool") for m in messages):
            return _error(400, "'input' must be a string or a list holding a user message")
        chat: dict[str, Any] = {
            k: v
            for k, v in body.items()
            if k not in ("input", "instructions", "text", "tools", "tool_choice", "stream")
        }
        chat["messages"] = messages
        if "tools" in body:
            chat["tools"] = [
                {"type": "function", "function": t} for t in _function_tools(body.get("tools"))
            ]
        if "tool_choice" in body:
            chat["tool_choice"] = body["tool_choice"]
        text = body.get("text")
        if isinstance(text, dict) and isinstance(text.get("format"), dict):
            if text["format"].get("type") != "text":
                chat["response_format"] = text["format"]
        status, answer = self.respond(chat)
        if status != 200:
            return status, answer
        message = answer["choices"][0]["message"]
        suffix = answer["id"].removeprefix("chatcmpl-sim-")
        output: list[dict] = []
        for call in message.get("tool_calls") or []:
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call['id'].removeprefix('call_')}",
                    "call_id": call["id"],
                    "name": call["function"]["name"],
                    "arguments": call["function"]["arguments"],
                    "status": "completed",
                }
            )
        if not output:
            output.append(
                {
                    "type": "message",
                    "id": f"msg_sim_{suffix}",
                    "status": "completed",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": message["content"] or "", "annotations": []}
                    ],
                }
            )
        usage = answer["usage"]
        return 200, {
            "id": f"resp_sim_{suffix}",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": answer["model"],
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "temperature": body.get("temperature", 1.0),
            "top_p": body.get("top_p", 1.0),
            "instructions": body.get("instructions"),
            "metadata": body.get("metadata") or {},
            "error": None,
            "incomplete_details": None,
            "text": body.get("text") or {"format": {"type": "text"}},
            "usage": {
                "input_tokens": usage["prompt_tokens"],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage["completion_tokens"],
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": usage["total_tokens"],
            },
        }

    @staticmethod
    def _responses_events(response: dict) -> list[tuple[str | None, Any]]:
        """A Responses API answer as the events of its stream."""
        events: list[tuple[str | None, Any]] = []

        def emit(kind: str, **data: Any) -> None:
            events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

        emit("response.created", response={**response, "status": "in_progress", "output": []})
        emit("response.in_progress", response={**response, "status": "in_progress", "output": []})
        for index, item in enumerate(response["output"]):
            if item["type"] == "function_call":
                emit(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "arguments": "", "status": "in_progress"},
                )
                for piece in _pieces(item["arguments"]):
                    emit(
                        "response.function_call_arguments.delta",
                        item_id=item["id"],
                        output_index=index,
                        delta=piece,
                    )
                emit(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=index,
                    arguments=item["arguments"],
                    name=item["name"],
                )
            else:
                text = item["content"][0]["text"]
                emit(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "content": [], "status": "in_progress"},
                )
                part = {"type": "output_text", "text": "", "annotations": []}
                emit(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=part,
                )
                for piece in _pieces(text):
                    emit(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                emit(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    text=text,
                    logprobs=[],
                )
                emit(
                    "response.content_part.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part={**part, "text": text},
                )
            emit("response.output_item.done", output_index=index, item=item)
        emit("response.completed", response=response)
        return events

    def _route(self, method: str, path: str, raw: bytes) -> _Reply:
        path = path.split("?", 1)[0].rstrip("/")
        endpoint = next((name for suffix, name in _ENDPOINTS if path.endswith(suffix)), None)
        if endpoint is None and re.search(r"/models/[^/]+$", path):
            endpoint = "model"
        if endpoint is None:
            status, body = _error(
                404, f"Invalid URL ({method} {path or '/'})", "invalid_request_error", "unknown_url"
            )
            return _Reply(status, body)
        if endpoint in ("models", "model"):
            if method != "GET":
                return _Reply(*_error(405, f"method {method} not allowed on {path}"))
            model = self.options.substitute_model or SIMULATOR_MODEL
            entry = {"id": model, "object": "model", "created": 0, "owned_by": "rewind-simulator"}
            if endpoint == "model":
                return _Reply(200, {**entry, "id": path.rsplit("/", 1)[1]})
            return _Reply(200, {"object": "list", "data": [entry]})
        if method != "POST":
            return _Reply(*_error(405, f"method {method} not allowed on {path}"))
        try:
            body = json.loads(raw.decode("utf-8") or "null")
        except (ValueError, UnicodeDecodeError):
            return _Reply(*_error(400, "request body is not valid JSON"))
        with self._lock:
            self.calls.append((endpoint, body))
            if endpoint == "chat":
                self.requests.append(body)
        stream = isinstance(body, dict) and body.get("stream") is True
        if endpoint == "chat":
            status, answer = self.respond(body)
            if status == 200 and stream:
                options = body.get("stream_options")
                usage = isinstance(options, dict) and bool(options.get("include_usage"))
                return _Reply(status, events=_chat_chunks(answer, usage))
            return _Reply(status, answer)
        if endpoint == "responses":
            status, answer = self.respond_responses(body)
            if status == 200 and stream:
                return _Reply(status, events=self._responses_events(answer))
            return _Reply(status, answer)
        handler = {
            "completions": self.complete_legacy,
            "embeddings": self.embed,
            "images": self.images,
        }[endpoint]
        return _Reply(*handler(body))

    def dispatch(self, method: str, path: str, raw: bytes) -> tuple[int, dict | bytes]:
        """Route one HTTP request: ``(status, JSON body)``, or ``(status, bytes)`` holding
        a whole ``text/event-stream`` for a streamed answer."""
        reply = self._route(method, path, raw)
        if reply.events is not None:
            return reply.status, _sse(reply.events)
        return reply.status, reply.body or {}

    # Transports ----------------------------------------------------------------------

    def transport(self) -> httpx.MockTransport:
        """In-process transport (sync and async clients): ``ChatClient(SIMULATOR_BASE_URL,
        transport=sim.transport())`` or ``openai.OpenAI(http_client=httpx.Client(
        transport=sim.transport()))``."""

        def handler(request: httpx.Request) -> httpx.Response:
            status, body = self.dispatch(request.method, request.url.path, request.read())
            if isinstance(body, bytes):
                return httpx.Response(
                    status, content=body, headers={"Content-Type": "text/event-stream"}
                )
            return httpx.Response(status, json=body)

        return httpx.MockTransport(handler)

    def _make_server(self, host: str, port: int) -> ThreadingHTTPServer:
        simulator = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "RewindSimulator/1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length > 0 else b""
                reply = simulator._route(self.command, self.path, raw)
                if reply.events is not None:
                    # Streamed for real: one write per event; the connection's end ends it.
                    self.close_connection = True
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for event in reply.events:
                        self.wfile.write(_sse([event]))
                        self.wfile.flush()
                    return
                data = json.dumps(reply.body or {}, ensure_ascii=False).encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _answer  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent: test output and worker logs stay readable."""

        server = ThreadingHTTPServer((host, port), Handler)
        server.daemon_threads = True
        return server

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve on 127.0.0.1 (OS-assigned port) in a daemon thread; yield the base URL."""
        server = self._make_server("127.0.0.1", 0)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m runs.engine.providers.simulator --port N``: serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m runs.engine.providers.simulator",
        description="Rewind's offline provider simulator (OpenAI-compatible, loopback).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--reject-response-format", action="store_true")
    parser.add_argument("--substitute-model", metavar="M", default=None)
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--empty", action="store_true")
    parser.add_argument("--status", type=int, default=None, help="answer every call with it")
    args = parser.parse_args(argv)

    simulator = Simulator(
        SimulatorOptions(
            reject_response_format=args.reject_response_format,
            substitute_model=args.substitute_model,
            garbage=args.garbage,
            empty=args.empty,
            status=args.status,
        )
    )
    server = simulator._make_server(args.host, args.port)
    host, port = server.server_address[:2]
    print(f"http://{host}:{port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
