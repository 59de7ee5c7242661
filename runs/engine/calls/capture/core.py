"""The capture core: what a captured call is, its key, its occurrence, its pin, and how its
answer is stored and given back — whatever HTTP library sent it (DESIGN.md, "Capture, whatever
the transport").

While a step runs, every request it sends reaches :class:`StepCalls` through the adapter of
its HTTP library, as an :class:`Outgoing` (method, URL, headers, body bytes); the adapter turns
the :class:`Answer` it gets back into its library's own response. A request in an LLM wire
format (``wire.recognise``) is an LLM call; anything else a tool call. Both are cached under a
content-addressed key — the method, the endpoint (the path of a tool call), the query and the
canonical JSON body (sorted keys), exactly as sent but for the credentials it carried by
position, each its keyed fingerprint (``redaction``); never the host or a header — per
occurrence within the step, and a replay reads back the entry its source's step pinned
(``cache.get_llm``/``cache.get_tool``). A 2xx answer is stored as an answer — an LLM answer
only when it parses as its format and is complete; any other status as a failed attempt, which
a replay gives back to the same attempt (a client's retry takes the same path) and a new
lookup never takes; a transport error is never stored. An answer is stored byte for byte, the
request's credentials marked where it quotes them and given back on a replay that sends them;
what looks like a secret in it is kept exactly and sealed (``runs.models.packed``). A streamed
answer is stored as the bytes it arrived as, so a replay yields the same chunks.

Calls made from threads a step starts belong to it (``threads``): the slot that holds the
step's calls is shared, and this class takes a lock where threads meet.
"""

from __future__ import annotations

import base64
import contextvars
import json
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import InitVar, dataclass, field
from decimal import Decimal
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from runs.engine.calls import cache
from runs.engine.calls.capture import (
    backoff,
    branches,
    counting,
    misses,
    redaction,
    unreachable,
    wire,
)
from runs.engine.calls.inflight import call_lock
from runs.engine.calls.policy import DEFAULT, LIVE, CallPolicy
from runs.engine.calls.pricing import cost_usd
from runs.engine.errors import NodeFailure
from runs.engine.providers.simulator import SIMULATOR_HEADER
from runs.lib import secret_shapes
from runs.lib.hashing import canonical_json, length_prefixed, sha256_text
from runs.models.packed import Scanned, Sealed

HTTP_KEY_VERSION = "rewind-http-key/1"
# Fields of an LLM wire format that describe the caller, not the question (OpenAI's ``user``,
# ``metadata``, ``store``): never part of an LLM call's key. A tool's body keeps every field.
METADATA_FIELDS = frozenset({"user", "metadata", "store"})
# Response headers a replay gives back; the body is stored decoded, so no content-encoding.
KEPT_HEADERS = ("content-type",)
RAW_KEPT = 4000  # characters of an invalid answer kept on the call (the step keeps it all)


class _Slot:
    """Holds the active step's calls. The context variable holds the slot, and the slot the
    calls: Burr runs async hooks as separate tasks (each with a copy of the context), so a
    hook fills a slot the step's own task already holds, rather than setting the variable."""

    calls: StepCalls | None = None


_current: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar(
    "rewind_step_calls", default=None
)
# True while the capture itself sends a call live: a library under the one that made the call
# (http.client under urllib3, urllib3 under requests) passes it through, uncaptured again.
_sending: contextvars.ContextVar[bool] = contextvars.ContextVar("rewind_sending", default=False)
# Every step entered and not yet left, in any thread of the process (``active_steps``).
_active: dict[int, StepCalls] = {}
_active_lock = threading.Lock()
Native = TypeVar("Native")  # a library's own response object


def ensure_slot() -> _Slot:
    """A slot in the current context (call it in the task or thread that runs the steps)."""
    slot = _current.get()
    if slot is None:
        slot = _Slot()
        _current.set(slot)
    return slot


class PreviewStop(Exception):  # noqa: N818 — control flow of a preview
    """A preview reached a call the cache cannot answer."""


class ReplayMiss(NodeFailure, ConnectionRefusedError):
    """A hermetic step made a call its source never made (the message says how it differs)."""


@dataclass
class Outgoing:
    """A request as an adapter hands it over."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    content: bytes
    library: str

    @property
    def path(self) -> str:
        return unquote(urlsplit(self.url).path)

    @property
    def query(self) -> list[tuple[str, str]]:
        return parse_qsl(urlsplit(self.url).query, keep_blank_values=True)


@dataclass
class Answer:
    """A response as the core gives it back (or was given it): status, kept headers, body."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


@dataclass
class Call:
    """One HTTP call a step made, as recorded on its Node."""

    kind: str  # "llm" | "tool"
    endpoint: str
    key: str
    occurrence: int
    cache_source: str  # "live" | "cache" | "tool-cache"
    entry: str = ""  # "llm:ID" / "tool:ID"
    status: int = 0
    model_requested: str = ""
    model_answered: str = ""
    temperature: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: Decimal | None = Decimal(0)
    latency_ms: float = 0.0
    library: str = ""
    method: str = ""
    branch: list[int] = field(default_factory=list)  # the thread the step handed it to
    format: str = ""  # the LLM wire format: openai | anthropic | gemini | ollama
    # What answered an LLM call: "simulator" (Rewind's offline simulator says so in a header
    # of every answer) or "endpoint"; kept on the cache entry, so a replay shows it too.
    provider: str = ""
    cached_tokens: int = 0
    # The answer reported no usage (an OpenAI stream without include_usage): its tokens, and
    # the cost read from them, were counted by Rewind (``counting``), not said by the provider.
    tokens_counted: bool = False
    error: str = ""  # why it got no usable answer (redacted)
    # Not recorded: the credentials of the request, to redact them wherever they show up.
    secrets: frozenset[str] = field(default=frozenset(), repr=False)
    known: redaction.KnownSecrets = field(default_factory=redaction.KnownSecrets, repr=False)
    # The kinds of secret its request's content seemed to hold, and where it went (a warning).
    shapes: list[str] = field(default_factory=list)
    host: str = ""
    broken: bool = False  # a 2xx answer that is not one of its format (the step fails)
    raw: str = field(default="", repr=False)  # that answer, for the step's raw output
    wire_format: wire.WireFormat | None = field(default=None, repr=False)

    def as_json(self) -> dict[str, Any]:
        data = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in _UNRECORDED}
        data["cost_usd"] = None if self.cost_usd is None else str(self.cost_usd)
        return data


_UNRECORDED = frozenset({"secrets", "known", "raw", "wire_format", "host"})


@dataclass
class StepCalls:
    """The calls of the step being executed; active (``with calls:``) while it runs."""

    sequence_id: int
    action: str
    # A shorthand when made on its own (tests, benches): ``live=True`` is ``policy=LIVE``.
    # Read ``live`` as the policy says (the property set after the class).
    live: InitVar[bool] = False
    pins: dict[tuple[int, str, int], Any] = field(default_factory=dict)  # → cache entry
    llm_model: str | None = None  # llm.model / llm.temperature overrides of this step
    llm_temperature: float | None = None
    # How the run answers its calls (``runs.engine.calls.policy``): whether a call is looked
    # up, whether a miss fails the step or stops a preview, whether the step is guarded.
    policy: CallPolicy = DEFAULT
    # The step re-executes its source's with the same inputs and no override of its own: a
    # fork guards it (``policy.guards``).
    unchanged: bool = False
    calls: list[Call] = field(default_factory=list)
    prompt: Any = None  # the messages (or input) of the step's first LLM call
    occurrences: Counter = field(default_factory=Counter)  # by (key, branch)
    branches: Counter = field(default_factory=Counter)  # work handed to threads, by parent
    suspended: int = 0  # > 0 while a declared node makes its own cached call
    # Answers of async calls to store when the step ends (``store_pending``).
    pending: list[tuple[Call, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    uncaptured: list[dict[str, str]] = field(default_factory=list)  # connections it let through
    # Why the capture stopped the step (a refused connection, a miss), whatever the library
    # made of the exception on its way up (an SDK may retry it, or wrap it as "Connection error").
    refused: str = ""
    # The first call that could not connect: the endpoint it tried and where that URL came
    # from (``unreachable``), added to the step's error whatever the library made of it.
    unreachable: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # The run's fence (``runs.engine.execution.fence``): an answer is stored only through
    # ``fence.writing()``, so a step the run gave up on stores none. None: no fence (a preview).
    fence: Any = field(default=None, repr=False)
    # Every live answer kept for later, sync calls' too: a recorded program's writer stores
    # them (``take_pending``, ``store``) with the step, off the step's path.
    deferred: bool = False
    # What the step's code reads from the clock and randomness (``values.StepValues``): the
    # reads it records and, on a replay, the source step's it gives back. None: not recorded.
    values: Any = field(default=None, repr=False)

    def __post_init__(self, live: bool) -> None:
        if live:
            if self.policy not in (DEFAULT, LIVE):
                raise ValueError(f"live=True and a {self.policy.kind} policy: pass one of them")
            self.policy = LIVE

    @property
    def guarded(self) -> bool:
        """Whether no effect the capture did not answer may leave the step (the guard, the
        process and MCP adapters): ``policy.guards`` of this step."""
        return self.policy.guards(self.unchanged)

    @property
    def preview(self) -> bool:
        """Whether a miss stops the step's preview (``policy.stops_at_miss``)."""
        return self.policy.stops_at_miss

    def __enter__(self) -> StepCalls:
        ensure_slot().calls = self
        with _active_lock:
            _active[id(self)] = self
        if self.values is not None:
            self.values.enter()
        return self

    def __exit__(self, *exc: Any) -> None:
        slot = _current.get()
        if slot is not None and slot.calls is self:
            slot.calls = None
        with _active_lock:
            _active.pop(id(self), None)
        if self.values is not None:
            self.values.leave()

    def note_uncaptured(self, endpoint: str, line: str, verb: str = "connected to") -> None:
        """A live step reached ``endpoint`` outside the capture (from ``line``): ``verb`` says
        how ("connected to", "sent a datagram to", "started")."""
        with self.lock:
            if all(u["endpoint"] != endpoint for u in self.uncaptured):
                self.uncaptured.append({"endpoint": endpoint, "line": line, "verb": verb})

    @property
    def secrets(self) -> set[str]:
        """Every credential the step's calls carried (to redact its error messages)."""
        return {s for c in self.calls for s in c.secrets}

    # -- one request ----------------------------------------------------------------------

    def prepare(self, out: Outgoing) -> tuple[bytes | None, Call, dict[str, Any]]:
        """The call ``out`` is, with its key and occurrence; the body to send instead when an
        override rewrote it (else None); and what the key was taken over (redacted)."""
        backoff.forget()  # a sleep from here on is not the last failed attempt's backoff
        body = _json_body(out.content)
        fmt = wire.recognise(out.method, out.path, body)
        replaced = None
        if fmt is not None and isinstance(body, dict):
            if self.llm_model is not None or self.llm_temperature is not None:
                body = wire.rewrite(fmt, body, self.llm_model, self.llm_temperature)
                replaced = json.dumps(body).encode("utf-8")
        query = out.query
        examined = redaction.examine_body(body)
        secrets = frozenset(
            redaction.secrets_in_headers(out.headers)
            | redaction.secrets_in(query)
            | examined.secrets
            | redaction.secrets_in_url(out.url)
        )
        known = redaction.KnownSecrets(secrets)
        described = describe_request(out, body, fmt, query, known, examined.named)
        kind = "llm" if fmt is not None else "tool"
        key = http_cache_key(kind, described)
        path = branches.branch()
        with self.lock:
            n = self.occurrences[key, path]
            self.occurrences[key, path] += 1
        call = Call(kind=kind, endpoint=described["endpoint"], key=key,
                    occurrence=branches.occurrence(path, n), branch=list(path),
                    cache_source="live", library=out.library, method=out.method,
                    format=fmt.family if fmt else "", secrets=secrets, known=known,
                    wire_format=fmt)  # fmt: skip
        shapes = redaction.kinds_of_secrets(
            None, [*examined.texts, *(v for _, v in query), out.path]
        )
        if shapes:  # content that looks like a secret: kept, and said (``shape_warnings``)
            call.shapes, call.host = sorted(shapes), urlsplit(out.url).hostname or out.url
        if fmt is not None and isinstance(body, dict):
            with self.lock:
                if self.prompt is None:  # from the keyed body: its credentials already marked
                    self.prompt = wire.prompt_of(fmt, described["body"])
            call.model_requested = wire.model_requested(fmt, body)
            call.temperature = wire.temperature_requested(fmt, body)
        return replaced, call, described

    def lookup(self, call: Call) -> Any:
        if not self.policy.reads_cache:
            return None
        pinned = self.pins.get((self.sequence_id, call.key, call.occurrence))
        get = cache.get_llm if call.kind == "llm" else cache.get_tool
        entry = get(call.key, call.occurrence, pinned)
        if entry is None and call.branch:
            # A branch its source did not have (a fork that fanned out otherwise): the same
            # request's first answer, from whichever branch or step made it.
            entry = get(call.key, None)
        return entry

    def replayed(self, call: Call, entry: Any) -> Answer:
        stored = entry.response if call.kind == "llm" else entry.result
        call.cache_source = "cache" if call.kind == "llm" else "tool-cache"
        call.entry = f"{call.kind}:{entry.pk}"
        call.status = int(stored["status"])
        if entry.failed:
            backoff.owe()  # the client retries as it did; its backoff sleep does not wait
        if call.kind == "llm":
            call.model_answered = entry.model_answered
            call.provider = entry.provider
        self._add(call)
        body = call.known.restored_bytes(_body_bytes(stored))  # the credentials it quoted
        return Answer(call.status, dict(stored.get("headers") or {}), body)

    def recorded(
        self, call: Call, described: dict, answer: Answer, started: float, *, now: bool = True
    ) -> None:
        """Store a live answer and note what it cost. A 2xx answer is stored as an answer (an
        LLM answer only if it parses as its format: one that does not is never stored); any
        other status as a failed attempt — what this attempt got, replayed to the runs that
        pin it so a client's retry takes the same path, never served to a new lookup. With
        ``now=False`` (an async call: the ORM may not run in the event loop) the answer is kept
        for ``store_pending``, which the recorder calls in the run's thread when the step ends:
        one hop a step instead of one a call."""
        call.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        call.status = answer.status
        stored = _stored_response(answer, call.known, tool=call.kind != "llm")
        ok = 200 <= answer.status < 300
        keep = True  # the answer, or a failed attempt's status and body
        if call.kind == "llm":
            fmt = call.wire_format
            simulated = SIMULATOR_HEADER.lower() in {name.lower() for name in answer.headers}
            call.provider = "simulator" if simulated else "endpoint"
            usage = wire.usage_of(fmt, answer.body, answer.content_type)
            problem = wire.invalid(fmt, answer.body, answer.content_type) if ok and fmt else None
            if ok and fmt and problem is None and not usage.reported:
                # No usage in the answer (a stream without include_usage): counted, and said so.
                body = described.get("body")
                usage = (
                    counting.counted_usage(fmt, body, answer.body, answer.content_type, usage)
                    or usage
                )
            call.model_answered = usage.model
            call.prompt_tokens = usage.prompt_tokens
            call.completion_tokens = usage.completion_tokens
            call.total_tokens = usage.total_tokens
            call.cached_tokens = usage.cached_tokens
            call.tokens_counted = usage.counted
            # An answer whose usage is neither reported nor counted has an unknown cost, never
            # a zero; a refused attempt (a 429, a 5xx) is not charged.
            call.cost_usd = (
                cost_usd(
                    usage.model or call.model_requested, call.prompt_tokens, call.completion_tokens
                )
                if usage.reported or usage.counted
                else (None if ok else Decimal(0))
            )
            if problem is not None:
                call.error = f"{call.endpoint} answered {answer.status}, but {problem}"
                call.broken = True
                call.raw = redaction.redact_text(
                    answer.body.decode("utf-8", "replace"), call.secrets
                )
                keep = False  # never an answer, nor an attempt to replay: the step fails
        if keep and not now:
            with self.lock:
                self.pending.append((call, described, stored))
        elif keep:
            self._store(call, described, stored)
        self._add(call)

    def store_pending(self) -> None:
        """Store the answers ``recorded(..., now=False)`` kept (in a thread the ORM may use)."""
        self.store(self.take_pending())

    def take_pending(self) -> list[tuple[Call, dict[str, Any], dict[str, Any]]]:
        """The answers kept so far, handed over: whoever takes them stores them (``store``)."""
        with self.lock:
            pending, self.pending = self.pending, []
        return pending

    def store(self, answers: list[tuple[Call, dict[str, Any], dict[str, Any]]]) -> None:
        """Store answers ``take_pending`` handed over; each call then names its entry."""
        store_answers([(self, answers)])

    def _store(self, call: Call, described: dict, stored: dict[str, Any]) -> None:
        store_answers([(self, [(call, described, stored)])])

    def _entry_fields(self, call: Call, described: dict, stored: dict[str, Any]) -> dict:
        failed = not 200 <= int(stored["status"]) < 300
        if call.kind == "llm":
            return {
                "key": call.key,
                "occurrence": call.occurrence,
                "failed": failed,
                "node_name": self.action,
                "provider": call.provider,
                "model_requested": call.model_requested,
                "model_answered": call.model_answered,
                # Scanned above: sealed when it held a shape, not scanned again when it did not.
                "request": Sealed(described) if call.shapes else Scanned(described),
                "response": stored,
                "usage": {
                    "prompt_tokens": call.prompt_tokens,
                    "completion_tokens": call.completion_tokens,
                    "total_tokens": call.total_tokens,
                    **({"counted": True} if call.tokens_counted else {}),
                },
            }
        return {
            "key": call.key,
            "occurrence": call.occurrence,
            "failed": failed,
            "tool": f"{call.method} {described['endpoint']}"[:100],
            "tool_version": "http",
            # Looked into in SQL, so never sealed: what looks like a secret as its fingerprint.
            "args": redaction.masked_shapes(described) if call.shapes else described,
            "result": stored,
        }

    def failed(self, call: Call, started: float, error: BaseException, url: str = "") -> None:
        """A call that got no answer (a transport error): recorded, never cached."""
        call.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        call.error = redaction.redact_text(f"{type(error).__name__}: {error}", call.secrets)
        if url and unreachable.is_unreachable(error):
            hint = redaction.redact_text(unreachable.describe(url, error), call.secrets)
            with self.lock:
                self.unreachable = self.unreachable or hint
        self._add(call)

    # -- the whole exchange, for adapters -------------------------------------------------

    def exchange(
        self, out: Outgoing, send: Callable[[bytes | None], tuple[Answer, Native]]
    ) -> tuple[Answer, Native | None]:
        """Answer ``out``: from the cache (no native response), else by ``send(body)`` — the
        body an override rewrote, or None for the request as it was — which returns the
        answer read to its end and the library's own response. Identical LLM calls in flight
        go out once."""
        replaced, call, described = self.prepare(out)
        entry = self.lookup(call)
        if entry is not None:  # a hit takes no lock
            return self.replayed(call, entry), None
        locked = call.kind == "llm" and self.policy.reads_cache
        with call_lock(call.key) if locked else nullcontext():
            entry = self.lookup(call) if locked else None  # stored while we waited?
            if entry is not None:
                return self.replayed(call, entry), None
            if self.policy.stops_at_miss:
                raise PreviewStop(call.key)
            if self.policy.refuses_misses:
                self._refuse_miss(call, described)
            started = time.perf_counter()
            try:
                with sending():
                    answer, native = send(replaced)
            except Exception as exc:
                self.failed(call, started, exc, out.url)
                raise
            self.recorded(call, described, answer, started, now=not self.deferred)
            return answer, native

    async def aexchange(
        self, out: Outgoing, send: Callable[[bytes | None], Awaitable[tuple[Answer, Native]]]
    ) -> tuple[Answer, Native | None]:
        """The same for an async library: cache reads and writes are short synchronous ORM
        calls, run in the run's thread; the call itself is awaited."""
        replaced, call, described = self.prepare(out)
        # Live mode reads nothing: no thread hop for it.
        entry = await _in_thread(self.lookup, call) if self.policy.reads_cache else None
        if entry is not None:
            return self.replayed(call, entry), None
        if self.policy.stops_at_miss:
            raise PreviewStop(call.key)
        if self.policy.refuses_misses:
            await _in_thread(self._refuse_miss, call, described)
        started = time.perf_counter()
        try:
            with sending():
                answer, native = await send(replaced)
        except Exception as exc:
            self.failed(call, started, exc, out.url)
            raise
        self.recorded(call, described, answer, started, now=False)  # stored at the step's end
        return answer, native

    def _refuse_miss(self, call: Call, described: dict[str, Any]) -> None:
        """A call the cache cannot answer, in a run whose policy refuses misses (an unchanged
        replay), fails the step, saying which recorded call it most resembles and how it
        differs — it never goes out."""
        mine = {k: e for k, e in self.pins.items() if k[0] == self.sequence_id}
        kept = [occurrence for _, key, occurrence in mine if key == call.key]
        asked = described
        if call.shapes and call.kind != "llm":  # compared as the tool entries keep it
            asked = redaction.masked_shapes(described)
        call.error = redaction.redact_text(
            misses.explain(asked, list(mine.values()), occurrence=call.occurrence, kept=kept)
        )
        self._add(call)
        self.refused = self.refused or call.error
        raise ReplayMiss(call.error)

    def shape_warnings(self) -> list[str]:
        """One sentence per destination the step's calls sent secret-looking content to, naming
        each kind once: kept exactly (it was part of what was said), sealed, masked where shown."""
        by_host: dict[str, dict[str, None]] = {}
        for call in self.calls:
            if call.cache_source != "live":
                continue  # answered from the recording: nothing was sent
            for kind in call.shapes:
                by_host.setdefault(call.host, {})[_readable(kind)] = None
        return [
            f"{self.action} sent what looks like {_listed(list(kinds))} to {host}: kept "
            "exactly, encrypted at rest and masked wherever it is shown"
            for host, kinds in by_host.items()
        ]

    def invalid_answer(self) -> Call | None:
        """The first call whose 2xx answer did not parse as its format (the step fails)."""
        return next((c for c in self.calls if c.broken), None)

    def _add(self, call: Call) -> None:
        with self.lock:
            self.calls.append(call)


StepCalls.live = property(  # type: ignore[assignment] — also the constructor's shorthand
    lambda self: not self.policy.reads_cache,
    doc="Whether every call goes out, the cache not read (``commands.follows``).",
)


def current() -> StepCalls | None:
    """The calls of the step running in this context, or None: outside a step, while a
    declared node makes its own call, and while the capture sends one (see ``_sending``)."""
    slot = _current.get()
    calls = slot.calls if slot is not None else None
    if calls is None or calls.suspended or _sending.get():
        return None
    return calls


def active_steps() -> list[StepCalls]:
    """Every step running in this process now, whichever thread or task runs it: what a
    thread that belongs to no step (one started before it, a pool made at import) is held to."""
    with _active_lock:
        return list(_active.values())


def any_active() -> bool:
    """Whether any step runs in this process now (no lock: a dict's truth is one read)."""
    return bool(_active)


def in_a_step_context() -> bool:
    """Whether this context belongs to a step — even one whose calls are suspended (a declared
    node making its own cached call) or being sent by the capture."""
    slot = _current.get()
    return slot is not None and slot.calls is not None


def current_step() -> StepCalls | None:
    """The calls of the step running in this context, even while the capture sends one."""
    slot = _current.get()
    calls = slot.calls if slot is not None else None
    return calls if calls is not None and not calls.suspended else None


def is_sending() -> bool:
    return _sending.get()


@contextmanager
def sending():
    token = _sending.set(True)
    try:
        yield
    finally:
        _sending.reset(token)


async def _in_thread(function: Callable[..., Any], *args: Any) -> Any:
    from asgiref.sync import sync_to_async

    return await sync_to_async(function, thread_sensitive=True)(*args)


# -- keys and payloads ----------------------------------------------------------------------


def _readable(kind: str) -> str:
    """A scanner's kind as a phrase: "Private Key" → "private key", "GitHub Token" → "GitHub
    token", "AWS Access Key" → "AWS access key" (a word with capitals inside stays)."""
    return " ".join(w.lower() if w[1:].islower() else w for w in kind.split())


def _listed(kinds: list[str]) -> str:
    named = [f"an {k}" if k[:1].lower() in "aeiou" else f"a {k}" for k in kinds]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"


def describe_request(
    out: Outgoing,
    body: Any,
    fmt: wire.WireFormat | None,
    query: list[tuple[str, str]],
    known: redaction.KnownSecrets,
    named: bool | None = None,
) -> dict[str, Any]:
    """What a call's key is taken over, and what is stored of its request: method, endpoint
    (the format's for an LLM call, the path for a tool call), query and the canonical body —
    exactly as sent, but for its credentials by position, each its keyed fingerprint. No host,
    no header — so never a key. An LLM format's caller fields (``METADATA_FIELDS``) are left
    out; a tool's body is kept whole (its ``user`` may be the question)."""
    if isinstance(body, dict) and fmt is not None:
        body = {k: v for k, v in body.items() if k not in METADATA_FIELDS}
    if body is not None:
        # The request's credentials are looked for in its strings only when its bytes hold one.
        inside = known if not known.absent_from(out.content) else redaction.KnownSecrets()
        body = redaction.keyed_body(body, inside, named=named)
    elif out.content:
        body = {"sha256": sha256_text(out.content.decode("latin-1"))}
    return {
        "method": out.method,
        "endpoint": fmt.endpoint if fmt else redaction.keyed_path(out.path, known),
        "query": sorted(redaction.keyed_query(query, known)),
        "body": body,
    }


def http_cache_key(kind: str, described: dict[str, Any]) -> str:
    return sha256_text(
        length_prefixed(
            [
                HTTP_KEY_VERSION,
                kind,
                described["method"],
                described["endpoint"],
                canonical_json(described["query"]),
                canonical_json(described["body"]),
            ]
        )
    )


def _json_body(content: bytes) -> Any:
    if not content:
        return None
    try:
        return json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None


def store_answers(
    steps: Sequence[tuple[StepCalls, list[tuple[Call, dict[str, Any], dict[str, Any]]]]],
) -> None:
    """``StepCalls.store`` for the answers of many steps (a recorded program's batch): each
    kind of entry in one INSERT, and one SELECT for the answers already kept, whatever the
    number of steps; each call then names its entry."""
    calls = [
        (call, step._entry_fields(call, described, stored))
        for step, answers in steps
        for call, described, stored in answers
    ]
    if not calls:
        return
    fences = {id(step.fence): step.fence for step, _ in steps if step.fence is not None}
    llm = [(call, fields) for call, fields in calls if call.kind == "llm"]
    tool = [(call, fields) for call, fields in calls if call.kind != "llm"]
    with ExitStack() as held:
        for fence in fences.values():  # a step the run gave up on stores none
            held.enter_context(fence.writing())
        kept = cache.keep_all([f for _, f in llm], [f for _, f in tool])
    for (call, _), entry in zip([*llm, *tool], kept, strict=True):
        call.entry = f"{call.kind}:{entry.pk}"


def _stored_response(
    answer: Answer, known: redaction.KnownSecrets, *, tool: bool = True
) -> dict[str, Any]:
    """An answer as stored: its bytes exactly, but for the request's credentials where it quotes
    them (marked; a replay sending them gets them back). One that hands out a credential by
    name (``access_token``) is sealed whole; one holding what looks like a secret is sealed by
    its column (``runs.models.packed``)."""
    headers = {k: answer.headers[k] for k in KEPT_HEADERS if k in answer.headers}
    try:
        text = answer.body.decode()
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:  # PostgreSQL's jsonb holds no U+0000 (protobuf has it)
        body = known.marked_bytes(answer.body)
        stored = {"status": answer.status, "headers": headers, "base64": _b64(body)}
        # Its column cannot see a secret through base64: looked for in the bytes here.
        return Sealed(stored) if secret_shapes.looks_secret(body.decode("latin-1")) else stored
    text = known.marked(text)
    stored = {"status": answer.status, "headers": headers, "text": text}
    return Sealed(stored) if tool and redaction.holds_named_secret(text) else stored


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _body_bytes(stored: dict[str, Any]) -> bytes:
    if "base64" in stored:
        return base64.b64decode(stored["base64"])
    return str(stored.get("text", "")).encode("utf-8")
