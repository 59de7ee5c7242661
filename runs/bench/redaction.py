"""``rewind_bench``'s redaction figures (issue 40, item 4, "linear cost"): what keying and
redacting a captured call costs as its request grows and fills with matches, timed in the
process on the capture core itself (no HTTP: the figure is the core's own work).

- throughput: ``StepCalls.prepare`` — the call recognised, its credentials found by position,
  its body keyed (credentials as their fingerprints, the rest exactly), what looks like a secret
  noted — on a chat request of 0.25, 0.5 and 1 MB dense with key-shaped tokens (AWS, GitHub,
  OpenAI, Stripe, Slack keys and JWTs, one every ~200 bytes); goal ≤ 0.1 s at 1 MB, and
  linear: time(1 MB) ÷ time(0.25 MB) ≤ 5 (linear is 4; the code before issue 40 took 15);
- the same on 10,000 short strings in one request, and on 1 MB whose credential fields
  (``api_key``, the bearer token) reappear in its messages (the known-secrets path);
- the storing path of a 1 MB answer, dense the same way and quoting the request's credentials:
  ``StepCalls.recorded`` (the answer as stored) and the cache entry's column as the writer
  prepares it (compressed, sealed when it holds what looks like a secret); SQL is not timed;
- the overhead of one live call: ``prepare`` and the storing path (request and answer columns)
  of a 5 KB chat request of words never seen before; goal ≤ 1 ms.

Every text is new in every round (words drawn from a vocabulary made for the round), so no
cache of earlier texts helps; the variants are timed in interleaved rounds, rotated each round,
and each row gives the median round (the best beside it). Anchor of each time row: parsing the
same bytes and writing them back as canonical JSON, measured in the same rounds — the floor of
any keying.
"""

from __future__ import annotations

import base64
import json
import random
import statistics
import string
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from runs.bench.measure import figure
from runs.engine.calls.capture.core import Answer, Outgoing, StepCalls
from runs.lib.hashing import canonical_json
from runs.models import LLMCacheEntry

MB = 1_000_000
SIZES = (250_000, 500_000, 1_000_000)  # the request sizes of the linearity series (bytes)
GOAL_S = 0.1  # the 1 MB request, the 10,000 strings, the known secrets, the 1 MB answer
LINEAR_GOAL = 5.0  # time(1 MB) ÷ time(0.25 MB): linear is 4
OVERHEAD_GOAL_S = 0.001  # a 5 KB live call: prepare + storing its answer
SHORT_STRINGS = 10_000
TOKEN_EVERY = 25  # words between two key-shaped tokens (~200 bytes)
MESSAGE_BYTES = 3_000  # a chat message's content: a few KB, as a conversation's turns are
SMALL_BYTES = 5_000
SMALL_CALLS = 50  # live calls a round of the overhead figure
ROUNDS = 5  # at least: a round takes about a second, and a shared machine is noisy
URL = "https://api.openai.com/v1/chat/completions"
_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits


# -- what is sent -----------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _token(rng: random.Random) -> str:
    """One key-shaped token, of a kind detect-secrets' rules recognise."""

    def pick(chars: str, n: int) -> str:
        return "".join(rng.choices(chars, k=n))

    kind = rng.randrange(6)
    if kind == 0:
        return "AKIA" + pick(_UPPER, 16)
    if kind == 1:
        return "ghp_" + pick(_ALNUM, 36)
    if kind == 2:
        return "sk-" + pick(_ALNUM, 20) + "T3BlbkFJ" + pick(_ALNUM, 20)
    if kind == 3:
        return "sk_live_" + pick(_ALNUM, 24)
    if kind == 4:
        return f"xoxb-{rng.randrange(10**11)}-{rng.randrange(10**12)}-" + pick(
            string.ascii_lowercase + string.digits, 24
        )
    header = _b64(b'{"alg":"HS256","typ":"JWT"}')
    payload = _b64(json.dumps({"sub": pick(_ALNUM, 12), "iat": rng.randrange(10**9)}).encode())
    return f"{header}.{payload}.{_b64(rng.randbytes(32))}"


class _Words:
    """Words never seen before: a vocabulary made for one round, drawn from at random."""

    def __init__(self, rng: random.Random, size: int = 4000) -> None:
        self.rng = rng
        letters = string.ascii_lowercase
        self.vocabulary = ["".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(size)]
        self.tokens = 0

    def text(self, approx: int, *, tokens: bool = True, quoting: tuple[str, ...] = ()) -> str:
        """``approx`` characters (to a word) of words, a token every ``TOKEN_EVERY`` words when
        ``tokens``, one of ``quoting`` (credentials of the request) every 50 words."""
        rng, out, length = self.rng, [], 0
        next_token = rng.randrange(TOKEN_EVERY) if tokens else -1
        next_quote = rng.randrange(50) if quoting else -1
        while length < approx:
            for word in rng.choices(self.vocabulary, k=64):
                if len(out) == next_token:
                    word = _token(rng)  # noqa: PLW2901
                    next_token += TOKEN_EVERY
                    self.tokens += 1
                elif next_quote >= 0 and len(out) >= next_quote:
                    word = rng.choice(quoting)  # noqa: PLW2901
                    next_quote += 50
                out.append(word)
                length += len(word) + 1
                if length >= approx:
                    break
        return " ".join(out)


def _chat(messages: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({"model": "gpt-4o-mini", "temperature": 0, "messages": messages, **extra})


def dense_request(size: int, words: _Words) -> bytes:
    """A chat request of about ``size`` bytes whose messages are dense with key-shaped tokens."""
    messages: list[dict[str, Any]] = []
    total = 0
    while total < size:
        content = words.text(min(MESSAGE_BYTES, size - total + 40))
        messages.append({"role": ("user", "assistant")[len(messages) % 2], "content": content})
        total += len(content) + 40
    return _chat(messages).encode()


def short_strings_request(words: _Words) -> bytes:
    """A chat request of ``SHORT_STRINGS`` short messages, one in ten holding a token."""
    messages = []
    for i in range(SHORT_STRINGS):
        content = words.text(48, tokens=False)
        if i % 10 == 0:
            content += " " + _token(words.rng)
            words.tokens += 1
        messages.append({"role": ("user", "assistant")[i % 2], "content": content})
    return _chat(messages).encode()


def credentials(rng: random.Random) -> tuple[str, str]:
    """An ``api_key`` field's value and a bearer token, new each round."""
    key = "".join(rng.choices(_ALNUM, k=40))
    return f"sk-{key[:20]}T3BlbkFJ{key[20:]}", "rw-" + "".join(rng.choices(_ALNUM, k=40))


def known_secrets_request(size: int, words: _Words, keys: tuple[str, str]) -> bytes:
    """A dense chat request carrying ``keys[0]`` as its ``api_key`` field, both keys quoted in
    its messages (the bearer token goes in the header)."""
    messages: list[dict[str, Any]] = []
    total = 0
    while total < size:
        content = words.text(min(MESSAGE_BYTES, size - total + 40), quoting=keys)
        messages.append({"role": ("user", "assistant")[len(messages) % 2], "content": content})
        total += len(content) + 40
    return _chat(messages, api_key=keys[0]).encode()


def chat_answer(content: str) -> bytes:
    """An OpenAI chat completion whose message is ``content``."""
    return json.dumps(
        {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500},
        }
    ).encode()


def outgoing(content: bytes, bearer: str = "sk-bench") -> Outgoing:
    headers = [("content-type", "application/json"), ("authorization", f"Bearer {bearer}")]
    return Outgoing("POST", URL, headers, content, "httpx")


# -- what is timed ----------------------------------------------------------------------------


def prepare(out: Outgoing) -> tuple[StepCalls, Any, dict[str, Any]]:
    """The keying of one request, as a live step's capture does it."""
    calls = StepCalls(sequence_id=0, action="bench")
    _, call, described = calls.prepare(out)
    return calls, call, described


def store(
    calls: StepCalls,
    call: Any,
    described: dict[str, Any],
    answer: Answer,
    parts: dict[str, float] | None = None,
) -> list:
    """The storing path of one live answer short of SQL: the answer as stored (``recorded``,
    kept for the writer), the cache entry's fields, and its request and answer columns as the
    writer prepares them (``parts`` adds up the time of each: "recorded", "columns")."""
    started = time.perf_counter()
    calls.recorded(call, described, answer, started, now=False)
    recorded = time.perf_counter()
    columns = []
    for kept in calls.take_pending():
        fields = calls._entry_fields(*kept)
        for name in ("request", "response"):
            column = LLMCacheEntry._meta.get_field(name)
            columns.append(column.get_db_prep_value(fields[name], connection, prepared=False))
    if parts is not None:
        parts["recorded"] = parts.get("recorded", 0.0) + recorded - started
        parts["columns"] = parts.get("columns", 0.0) + time.perf_counter() - recorded
    return columns


def _floor(content: bytes) -> str:
    """The anchor: the bytes parsed and written back as canonical JSON."""
    return canonical_json(json.loads(content))


@dataclass
class _Variant:
    name: str
    # → the work to time, the bytes it takes, their tokens, and the times of its parts (filled
    # by the work)
    make: Callable[[random.Random], tuple[Callable[[], Any], bytes, int, dict[str, float]]]
    times: list[float] = field(default_factory=list)
    floors: list[float] = field(default_factory=list)
    parts: list[dict[str, float]] = field(default_factory=list)
    size: int = 0
    tokens: int = 0


def _time(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _prepare_variant(build: Callable[[_Words], bytes]) -> Callable:
    def make(rng: random.Random) -> tuple[Callable[[], Any], bytes, int, dict[str, float]]:
        words = _Words(rng)
        content = build(words)
        return (lambda: prepare(outgoing(content))), content, words.tokens, {}

    return make


def _answer_variant(size: int) -> Callable:
    def make(rng: random.Random) -> tuple[Callable[[], Any], bytes, int, dict[str, float]]:
        words = _Words(rng)
        keys = credentials(rng)
        request = _chat(
            [{"role": "user", "content": words.text(400, tokens=False)}], api_key=keys[0]
        )
        calls, call, described = prepare(outgoing(request.encode(), keys[1]))  # untimed
        words.tokens = 0  # the answer's
        body = chat_answer(words.text(size - 400, quoting=keys))
        answer = Answer(200, {"content-type": "application/json"}, body)
        parts: dict[str, float] = {}
        return (lambda: store(calls, call, described, answer, parts)), body, words.tokens, parts

    return make


def _variants() -> list[_Variant]:
    rows = [
        _Variant(f"{size / MB:g} MB", _prepare_variant(lambda w, s=size: dense_request(s, w)))
        for size in SIZES
    ]

    def known(rng: random.Random) -> tuple[Callable[[], Any], bytes, int, dict[str, float]]:
        words = _Words(rng)
        keys = credentials(rng)
        content = known_secrets_request(MB, words, keys)
        return (lambda: prepare(outgoing(content, keys[1]))), content, words.tokens, {}

    rows.append(_Variant("strings", _prepare_variant(short_strings_request)))
    rows.append(_Variant("known", known))
    rows.append(_Variant("answer", _answer_variant(MB)))
    return rows


def _measure(variants: list[_Variant], rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    warm = _Words(rng)  # detect-secrets loaded, the fingerprint key derived: untimed
    prepare(outgoing(dense_request(20_000, warm)))
    for turn in range(rounds):
        order = variants[turn % len(variants) :] + variants[: turn % len(variants)]
        for variant in order:
            work, content, tokens, parts = variant.make(rng)  # new texts each round, untimed
            variant.floors.append(_time(lambda c=content: _floor(c)))
            variant.times.append(_time(work))
            variant.parts.append(parts)
            variant.size, variant.tokens = len(content), tokens


def _small_overhead(rounds: int, seed: int) -> dict:
    """Per call: prepare + the storing path of a 5 KB chat request of new words."""
    rng = random.Random(seed + 1)
    per_call, prepared, floors, split = [], [], [], []
    size = 0
    for _ in range(rounds + 1):  # the first round warms up, untimed
        words = _Words(rng)
        batch = []
        for _ in range(SMALL_CALLS):
            keys = credentials(rng)
            request = _chat(
                [
                    {"role": "system", "content": words.text(800, tokens=False)},
                    {"role": "user", "content": words.text(2400, tokens=False)},
                    {"role": "assistant", "content": words.text(800, tokens=False)},
                    {"role": "user", "content": words.text(SMALL_BYTES - 4200, tokens=False)},
                ]
            ).encode()
            answer = Answer(
                200,
                {"content-type": "application/json"},
                chat_answer(words.text(1000, tokens=False)),
            )
            batch.append((outgoing(request, keys[1]), answer))
        size = sum(len(out.content) for out, _ in batch) // SMALL_CALLS
        floor = _time(lambda b=batch: [(_floor(o.content), _floor(a.body)) for o, a in b])
        parts: dict[str, float] = {}
        started = time.perf_counter()
        keyed = [prepare(out) for out, _ in batch]
        middle = time.perf_counter()
        for (calls, call, described), (_, answer) in zip(keyed, batch, strict=True):
            store(calls, call, described, answer, parts)
        ended = time.perf_counter()
        per_call.append((ended - started) / SMALL_CALLS)
        prepared.append((middle - started) / SMALL_CALLS)
        floors.append(floor / SMALL_CALLS)
        split.append({name: took / SMALL_CALLS for name, took in parts.items()})
    per_call, prepared, floors, split = per_call[1:], prepared[1:], floors[1:], split[1:]
    value, floor = statistics.median(per_call), statistics.median(floors)
    parts = {"prepare": statistics.median(prepared), **_medians(split)}
    return {
        "figure": (
            f"live-call overhead: prepare + storing path, {size / 1000:.1f} KB chat request of "
            "words never seen before and a 1 KB answer (s per call)"
        ),
        "value": round(value, 6),
        "anchor": round(floor, 6),
        "ratio": round(value / floor, 3) if floor else None,
        "goal": f"≤ {OVERHEAD_GOAL_S} s",
        "pass": round(value, 6) <= OVERHEAD_GOAL_S,  # judged as printed
        "bytes": size,
        "parts_s": {name: round(took, 6) for name, took in parts.items()},
        "best_s": round(min(per_call), 6),
        "rounds": len(per_call),
        "note": (
            f"{value * 1000:.3f} ms a call ({_split(parts, 1000, 'ms')}; best "
            f"{min(per_call) * 1000:.3f} ms); median of {len(per_call)} rounds of "
            f"{SMALL_CALLS} calls; anchor: the request and answer parsed and written back as "
            f"canonical JSON, {floor * 1000:.3f} ms"
        ),
    }


def _medians(parts: list[dict[str, float]]) -> dict[str, float]:
    names = [name for name in (parts[0] if parts else {}) if all(name in p for p in parts)]
    return {name: statistics.median(p[name] for p in parts) for name in names}


def _split(parts: dict[str, float], scale: float, unit: str) -> str:
    """What each part of a path took: "prepare 0.4 ms, recorded 0.2 ms, columns 0.1 ms"."""
    return ", ".join(f"{name} {took * scale:.3f} {unit}" for name, took in parts.items())


def _row(name: str, variant: _Variant, goal: float | None, what: str) -> dict:
    median = statistics.median(variant.times)
    floor = statistics.median(variant.floors)
    throughput = variant.size / MB / median if median else 0.0
    parts = _medians(variant.parts)
    row = {
        "figure": name,
        "value": round(median, 6),
        "anchor": round(floor, 6),
        "ratio": round(median / floor, 3) if floor else None,
        "bytes": variant.size,
        "matches": variant.tokens,
        "mb_per_s": round(throughput, 2),
        "best_s": round(min(variant.times), 6),
        "rounds": len(variant.times),
        "note": (
            f"{median:.3f} s, {throughput:.1f} MB/s ({variant.size / MB:.2f} MB, "
            f"{variant.tokens:,} key-shaped tokens; {what})"
            + (f"; {_split(parts, 1, 's')}" if parts else "")
            + f"; best {min(variant.times):.3f} s; median of {len(variant.times)} interleaved "
            f"rounds; anchor: the same bytes parsed and written back as canonical JSON, "
            f"{floor:.3f} s"
        ),
    }
    if parts:
        row["parts_s"] = {part: round(took, 6) for part, took in parts.items()}
    if goal is None:
        return {**row, "pass": None}
    return {**row, "goal": f"≤ {goal} s", "pass": round(median, 6) <= goal}  # as printed


def redaction_figures(repeat: int, seed: int = 40) -> list[dict]:
    """The rows described in the module docstring; ``repeat`` rounds (at least ``ROUNDS``)."""
    rounds = max(ROUNDS, repeat)
    variants = _variants()
    _measure(variants, rounds, seed)
    by = {v.name: v for v in variants}
    prepared = "StepCalls.prepare"
    rows = [
        _row(
            f"redaction and keying of a {size / MB:g} MB chat request dense with key-shaped "
            f"tokens ({prepared})",
            by[f"{size / MB:g} MB"],
            GOAL_S if size == MB else None,
            "reported beside the 1 MB row" if size != MB else "every text new",
        )
        for size in SIZES
    ]
    small, large = by[f"{SIZES[0] / MB:g} MB"], by[f"{SIZES[-1] / MB:g} MB"]
    linear = figure(
        f"redaction and keying is linear: time at {SIZES[-1] / MB:g} MB ÷ at "
        f"{SIZES[0] / MB:g} MB ({prepared})",
        statistics.median(large.times),
        statistics.median(small.times),
        LINEAR_GOAL,
    )
    linear["note"] = (
        f"{large.size / small.size:.2f}× the bytes; linear is {large.size / small.size:.1f}×, "
        "the code before issue 40 took 15× (0.40 s → 6.09 s)"
    )
    rows.append(linear)
    rows.append(
        _row(
            f"redaction and keying of {SHORT_STRINGS:,} short strings in one chat request "
            f"({prepared})",
            by["strings"],
            GOAL_S,
            f"{SHORT_STRINGS:,} messages of ~50 characters, one in ten with a token",
        )
    )
    rows.append(
        _row(
            "redaction and keying of a 1 MB chat request whose credentials (api_key field, "
            f"bearer token) reappear in its messages ({prepared})",
            by["known"],
            GOAL_S,
            "each credential fingerprinted, quoted every 50 words",
        )
    )
    rows.append(
        _row(
            "storing a 1 MB captured answer dense with key-shaped tokens and quoting the "
            "request's credentials (recorded + its cache entry's columns, no SQL)",
            by["answer"],
            GOAL_S,
            "the credentials marked, the column compressed and sealed",
        )
    )
    rows.append(_small_overhead(rounds, seed))
    return rows
