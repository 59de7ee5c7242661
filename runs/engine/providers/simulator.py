"""The offline provider simulator: Rewind's embedded default "model".

Why it exists: Rewind must run, fork and diff pipelines with no key and no network, and
its tests must exercise the real transport path (dead endpoint, a 400 on
``response_format``, model substitution) without a real provider. So the simulator:

* speaks the OpenAI ``/chat/completions`` wire format (``id``, ``object``, ``model``,
  ``choices[0].message.content``, ``usage``), in-process (:meth:`Simulator.transport`)
  or as a real HTTP server on loopback (:meth:`Simulator.serve`, or
  ``python -m runs.engine.providers.simulator --port N``);
* derives its answer from the prompt: every number in the user message is quoted
  verbatim, together with the message's salient words, so a changed upstream number
  visibly changes downstream prose (which is what makes forks and diffs meaningful);
* is deterministic at temperature 0 (seeded from the sha256 of the canonical request)
  and jitters at temperature > 0 (seeded from ``os.urandom``);
* honours a ``JSON keys: a, b, c`` line in the system message by answering a compact JSON
  object with exactly those keys.

It is a simulator, not a model, and says so: the response carries
``system_fingerprint: "rewind-simulator"``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

SIMULATOR_MODEL = "rewind-sim-1"
SIMULATOR_BASE_URL = "simulator://local"
SIMULATOR_FINGERPRINT = "rewind-simulator"


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


def compose(messages: list[dict], rng: random.Random) -> str:
    """The answer for ``messages``: a compact JSON object if the system message asks for
    ``JSON keys``, otherwise prose. Every number of the user message is quoted verbatim
    somewhere (as long as there is at least one string to put it in)."""
    system = "\n".join(
        _message_text(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
    )
    user = "\n".join(
        _message_text(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "user"
    )
    nums = _numbers(user)
    writer = _Writer(rng, _salient_words(user))
    base = rng.randrange(1000)
    keys = _json_keys(system)

    if keys is None:
        return writer.sentence(nums, shift=0, variant=base, follow_up=True)

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
        else:
            result[key] = writer.sentence(
                assigned[(key, 0)], shift=index, variant=base + index, follow_up=rng.random() < 0.6
            )
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def _error(status: int, message: str, kind: str = "invalid_request_error") -> tuple[int, dict]:
    return status, {"error": {"message": message, "type": kind, "code": status}}


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


# -- the simulator -------------------------------------------------------------------


class Simulator:
    """An OpenAI-compatible chat-completions endpoint that needs no key and no network.

    ``requests`` records every body that reached ``/chat/completions`` (in order), so
    tests can count calls, e.g. to check the one allowed ``response_format`` retry.
    """

    def __init__(self, options: SimulatorOptions | None = None) -> None:
        self.options = options or SimulatorOptions()
        self.requests: list[dict] = []
        self._lock = threading.Lock()

    # The pure core -------------------------------------------------------------------

    def respond(self, body: dict) -> tuple[int, dict]:
        """Answer one chat-completions request body with ``(status, response JSON)``."""
        opts = self.options
        if not isinstance(body, dict):
            return _error(400, "request body must be a JSON object")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return _error(400, "'messages' must be a non-empty list")
        if opts.status is not None:
            if opts.status == 429:
                return _error(429, "rate limit exceeded (simulated)", "rate_limit_error")
            return _error(
                opts.status, f"simulated provider failure (HTTP {opts.status})", "server_error"
            )
        if opts.reject_response_format and body.get("response_format") is not None:
            return _error(400, "'response_format' is not supported by this model")

        model = body.get("model") if isinstance(body.get("model"), str) else None
        model = model or SIMULATOR_MODEL
        try:
            temperature = float(body.get("temperature", 1.0))
        except (TypeError, ValueError):
            return _error(400, "'temperature' must be a number")

        digest = hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()
        if temperature > 0:
            rng = random.Random(os.urandom(8))
            response_id = f"chatcmpl-sim-{os.urandom(12).hex()}"
        else:
            rng = random.Random(int(digest[:16], 16))
            response_id = f"chatcmpl-sim-{digest[:24]}"

        if opts.empty:
            content = ""
        elif opts.garbage:
            words = _salient_words(
                "\n".join(_message_text(m.get("content")) for m in messages if isinstance(m, dict))
            )
            noise = "".join(rng.choice("#@%&~^|") for _ in range(6))
            content = f"<<garbled output>> {noise} {{{words[0]}:: ,, ]] {noise[::-1]}"
        else:
            content = compose(messages, rng)

        prompt_chars = sum(
            len(_message_text(m.get("content"))) for m in messages if isinstance(m, dict)
        )
        prompt_tokens = _tokens(prompt_chars)
        completion_tokens = _tokens(len(content))
        return 200, {
            "id": response_id,
            "object": "chat.completion",
            "created": 0,
            "model": opts.substitute_model or model,
            "system_fingerprint": SIMULATOR_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def dispatch(self, method: str, path: str, raw: bytes) -> tuple[int, dict]:
        """Route one HTTP request (shared by the in-process and the loopback transport)."""
        path = path.split("?", 1)[0].rstrip("/")
        if path in ("/chat/completions", "/v1/chat/completions"):
            if method != "POST":
                return _error(405, f"method {method} not allowed on {path}")
            try:
                body = json.loads(raw.decode("utf-8") or "null")
            except (ValueError, UnicodeDecodeError):
                return _error(400, "request body is not valid JSON")
            with self._lock:
                self.requests.append(body)
            return self.respond(body)
        if path in ("/models", "/v1/models") and method == "GET":
            model = self.options.substitute_model or SIMULATOR_MODEL
            return 200, {"object": "list", "data": [{"id": model, "object": "model"}]}
        return _error(404, f"unknown path {path or '/'}", "not_found_error")

    # Transports ----------------------------------------------------------------------

    def transport(self) -> httpx.MockTransport:
        """In-process transport: ``ChatClient(SIMULATOR_BASE_URL, transport=sim.transport())``."""

        def handler(request: httpx.Request) -> httpx.Response:
            status, body = self.dispatch(request.method, request.url.path, request.read())
            return httpx.Response(status, json=body)

        return httpx.MockTransport(handler)

    def _make_server(self, host: str, port: int) -> ThreadingHTTPServer:
        simulator = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "RewindSimulator/1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length > 0 else b""
                status, body = simulator.dispatch(self.command, self.path, raw)
                data = json.dumps(body, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
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
