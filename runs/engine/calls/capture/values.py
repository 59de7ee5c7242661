"""The step's own non-determinism, replayed (DESIGN.md, "The step's own non-determinism is
replayed, not only named"; "Hermetic replays" for stdin).

While a step runs, what its code reads from the clock, from randomness and from stdin is
recorded (``StepValues``, on the step's ``StepCalls``): per thread and task, in order, by the
line that asked. A replay of the step (``StepValues.recorded``: its source step's reads) gives
each line the values it got when recorded, so a prompt that embeds ``datetime.now()`` or
``uuid4()`` is the same prompt, its call hits the cache and the step's writes are identical. A
read the recording does not have (the line moved, or asks more often) is named by the step
(``not_replayed``) and gets a live value — except the clock's: once a replay has given back
recorded time, a read with no recorded value continues from the latest recorded value given by
the time elapsed since (``StepValues._continued``), never earlier than any time given before
it, so a loop polling against a ``time.time()`` deadline never mixes the recorded timeline with
today's. A line the recording has a value for still gets that value after such a read (what a
prompt embeds stays what it was, so its call still hits the cache).

What is read, and where it is taken:

- the clock — ``time.time``, ``time.time_ns``, ``datetime.datetime.now/utcnow/today``,
  ``datetime.date.today`` (and ``gmtime``/``localtime``/``strftime`` without a time): their C
  implementations are patched by time-machine while a step runs anywhere in the process
  (``_travel``), so ``from datetime import datetime`` and ``from time import time`` are seen
  too; every such read asks the traveller on top of time-machine's stack for the time, and
  Rewind's answers from the step. ``time.monotonic`` and ``perf_counter`` stay live.
- ``random``: the module's functions are bound methods of one hidden ``random._inst``, whose
  class becomes :class:`StepRandom` (``random()`` and ``getrandbits()`` record; every other
  method draws through them), so ``from random import choice`` is seen; ``random.random`` and
  ``random.getrandbits`` name its methods. A ``Random()`` made in a step is seeded from a
  recorded seed (``Random.seed``), so what it draws replays with it.
- ``os.urandom`` and random's own ``_urandom`` (``SystemRandom``, so ``secrets``; ``uuid4``
  through ``os.urandom``), and ``uuid1`` through uuid's ``_generate_time_safe``.
- stdin — ``input()`` (``builtins.input``, its prompt still written to stdout on a replay) and
  reads of ``sys.stdin``: while any step runs, ``sys.stdin`` is a :class:`StepStdin` over the
  stream that was there (``_attach_stdin``), whose ``read``/``readline``/``readlines``/iteration
  and ``buffer``'s ``read``/``read1``/``readline``/``readlines`` record; anything else of the
  stream is the stream's. A replay gives back what was read with no stdin attached, end of input
  included. A stdin read is the step's whoever makes it (the standard library's ``fileinput``
  too): it is named by the first frame outside the standard library (``_reader``).
- A name an action's module took at import that none of these reaches (``from random import
  random``, ``from os import urandom``, ``from builtins import input``: the original built-in)
  is pointed at Rewind's the first time a step of that module runs (``adopt``). A module that
  kept ``sys.stdin`` itself at import reads the stream unrecorded.

Who asked is the innermost frame outside those modules (``_asker``). A read the standard
library or a client library makes on its own behalf (httpx's timeouts, the openai SDK's retry
jitter, Burr's tracker, Django, logging: ``guard.MACHINERY``) is live and not recorded, so it
never shifts the user's values; a library of the app's own (anything else) is the app's code.
Threads a step starts are its branches (``threads``/``branches``: named by submission path);
asyncio tasks it creates are named the same way here (``_task``), so a pool or a ``gather``
keeps each worker's values whatever the interleaving. Inside ``runs.lib.live.live_values()``
nothing is recorded or replayed.
"""

from __future__ import annotations

import asyncio
import builtins
import contextvars
import logging
import os
import random
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from runs.engine.calls.capture import branches
from runs.engine.calls.capture.core import current_step
from runs.engine.calls.capture.guard import MACHINERY, _in_stdlib
from runs.lib.live import kept_live

logger = logging.getLogger("rewind.values")

# Modules whose frames are the source of a value, never who asked for it.
SOURCES = frozenset({"random", "secrets", "uuid", "os", "_pydatetime", __name__})
# Modules of the app's own even though their package is machinery (as ``guard._user_line``).
APP_PREFIXES = ("runs.tests", "burr.examples")
_SOURCE = object()
_MISSING = object()

# The task a step's code runs in, below the thread it runs in (``branches``): ``(i, j)`` is the
# j-th task created by the i-th task the step created.
_task: contextvars.ContextVar[tuple[int, ...]] = contextvars.ContextVar("rewind_task", default=())


# -- what a value is, stored ------------------------------------------------------------------


def _encode(what: str, value: Any) -> Any:
    if what == "bits":  # getrandbits(k): as many digits as k asks, whatever the size
        return format(value, "x")
    if what in ("urandom", "seed"):
        return value.hex() if isinstance(value, bytes) else format(value, "x")
    if what == "uuid1":
        return [value[0].hex(), value[1]]
    if what == "stdin.buffer":  # bytes, or readlines' list of them
        return [v.hex() for v in value] if isinstance(value, list) else value.hex()
    # clock: integer nanoseconds; random: a float (JSON keeps it exact); input: the line, None
    # at end of input; stdin: the text read, or readlines' list
    return value


def _decode(what: str, stored: Any, asked: Any) -> Any:
    """The stored value as the read returns it, or ``_MISSING`` when it does not fit what is
    asked now (``getrandbits`` of another size, ``urandom`` of another length)."""
    try:
        if what == "clock":
            return stored if type(stored) is int else _MISSING
        if what == "random":
            number = isinstance(stored, int | float) and not isinstance(stored, bool)
            return float(stored) if number and 0 <= stored < 1 else _MISSING
        if what == "bits":
            value = int(stored, 16)
            return value if value.bit_length() <= asked else _MISSING
        if what == "urandom":
            value = bytes.fromhex(stored)
            return value if len(value) == asked else _MISSING
        if what == "seed":
            return int(stored, 16)
        if what == "uuid1":
            value = bytes.fromhex(stored[0])
            return (value, stored[1]) if len(value) == 16 else _MISSING
        if what == "input":
            return stored if stored is None or type(stored) is str else _MISSING
        if what in ("stdin", "stdin.buffer"):
            return _decode_read(what, stored, *asked)
    except (TypeError, ValueError, IndexError):
        return _MISSING
    return _MISSING


def _decode_read(what: str, stored: Any, method: str, size: int) -> Any:
    """What a stream read (``method`` of at most ``size``, -1: no bound) returns: readlines'
    list or one text (bytes of ``stdin.buffer``) that fits the size asked now."""
    text = what == "stdin"
    one = (lambda v: v) if text else bytes.fromhex
    if method == "readlines":
        if not isinstance(stored, list) or not all(type(v) is str for v in stored):
            return _MISSING
        return [one(v) for v in stored]
    if type(stored) is not str:
        return _MISSING
    value = one(stored)
    return value if size < 0 or len(value) <= size else _MISSING


# -- the step's values ----------------------------------------------------------------------


class StepValues:
    """What a step's code read, by ``branch/task|what|module:line`` in order; ``recorded``, the
    reads of the step it replays (empty when recording). Made for every step: a plain class,
    its counters made on first use."""

    __slots__ = (
        "recorded",
        "replaying",
        "reads",
        "missed",
        "tasks",
        "lock",
        "_entered",
        "_began",
        "_anchor",
        "_floor",
    )

    def __init__(self, recorded: dict[str, list[Any]] | None = None, replaying: bool = False):
        self.recorded = recorded or {}
        self.replaying = replaying  # it re-executes a source step: a read not given back is named
        self.reads: dict[str, list[Any]] = {}
        self.missed: dict[str, dict[str, Any]] = {}
        self.tasks: Counter | None = None  # tasks created, by parent
        # Reentrant: a signal handler or a finalizer that reads the clock may run in a thread
        # that is taking a value.
        self.lock = threading.RLock()
        self._entered = False
        # The replayed clock: when the step began (monotonic ns), the latest recorded time given
        # back with when it was given, and the latest time given at all (``_continued``).
        self._began = time.monotonic_ns()
        self._anchor: tuple[int, int] | None = None
        self._floor = 0

    def enter(self) -> None:
        """The step begins: the clock is Rewind's while any step runs (``StepCalls.__enter__``)."""
        if not self._entered:
            self._entered = True
            self._began = time.monotonic_ns()
            _travel(+1)
            _attach_stdin(+1)

    def leave(self) -> None:
        if self._entered:
            self._entered = False
            _travel(-1)
            _attach_stdin(-1)

    def take(self, what: str, line: str, asked: Any, live: Callable[[], Any]) -> Any:
        """The value ``line`` reads now: the recorded one at this place of its sequence, else
        ``live()`` — or, for the clock of a replay, the recorded clock continued — named as
        not replayed when the step replays one."""
        path = _path()
        key = f"{path}|{what}|{line}"
        with self.lock:
            mine = self.reads.setdefault(key, [])
            place = len(mine)
            mine.append(None)
            old = self.recorded.get(key)
            stored = old[place] if old is not None and place < len(old) else _MISSING
        value = _MISSING if stored is _MISSING else _decode(what, stored, asked)
        clock = what == "clock" and self.replaying
        if value is _MISSING:
            value = self._continued() if clock else _MISSING
            if value is _MISSING:
                try:
                    value = live()
                except BaseException:  # nothing was read (an interrupt, a closed stream)
                    with self.lock:
                        if len(mine) == place + 1:
                            mine.pop()
                    raise
            stored = _encode(what, value)
            if self.replaying:
                self._missed(key, path, what, line)
        elif clock:
            self._given(value)
        mine[place] = stored
        return value

    def _given(self, value: int) -> None:
        """A recorded time was given back now: the replayed clock continues from the latest."""
        now = time.monotonic_ns()
        with self.lock:
            if self._anchor is None or value >= self._anchor[0]:
                self._anchor = (value, now)
            self._floor = max(self._floor, value)

    def _continued(self) -> Any:
        """The time for a clock read the recording has no value for: the latest recorded time
        given back, plus the time elapsed since it was given (before any, the earliest the step
        recorded, from the step's start) — never earlier than a time already given, so the
        clock neither goes back nor jumps to today's. ``_MISSING`` when the step recorded no
        time at all (the live clock mixes with nothing)."""
        now = time.monotonic_ns()
        with self.lock:
            if self._anchor is None:
                recorded = [
                    v
                    for key, values in self.recorded.items()
                    if key.split("|", 2)[1:2] == ["clock"]
                    for v in values
                    if type(v) is int
                ]
                if not recorded:
                    return _MISSING
                self._anchor = (min(recorded), self._began)
            value, at = self._anchor
            self._floor = max(value + now - at, self._floor)
            return self._floor

    def _missed(self, key: str, path: str, what: str, line: str) -> None:
        with self.lock:
            entry = self.missed.setdefault(
                key, {"line": line, "what": what, "thread": path, "reads": 0}
            )
            entry["reads"] += 1

    def task_context(self) -> contextvars.Context:
        """The context of a task created now: a copy of this one, named the next task of its
        parent (the thread and task creating it)."""
        parent = (branches.branch(), _task.get())
        with self.lock:
            if self.tasks is None:
                self.tasks = Counter()
            index = self.tasks[parent]
            self.tasks[parent] += 1
        context = contextvars.copy_context()
        context.run(_task.set, (*parent[1], index))
        return context

    def as_json(self) -> dict[str, Any]:
        """What the Node keeps (``Node.values_read``): nothing for a step that read nothing."""
        if not self.reads and not self.missed:
            return {}
        with self.lock:
            reads = {key: list(values) for key, values in self.reads.items() if values}
            missed = sorted(self.missed.values(), key=lambda m: (m["line"], m["thread"]))
        data: dict[str, Any] = {}
        if reads:
            data["reads"] = reads
        if missed:
            data["not_replayed"] = [dict(m) for m in missed]
        return data


def _path() -> str:
    """The thread (``branches``) and task of this code, as a key's first part: "" for the
    step's own, "1" for its second thread, "/0" for its first task, "1/0.2"…"""
    thread = ".".join(map(str, branches.branch()))
    task = _task.get()
    return f"{thread}/{'.'.join(map(str, task))}" if task else thread


def _step() -> StepValues | None:
    """The values of the step running in this context, unless kept live."""
    calls = current_step()
    values = calls.values if calls is not None else None
    if values is None or kept_live():
        return None
    return values


# -- who asked ------------------------------------------------------------------------------

_verdicts: dict[int, tuple[Any, Any]] = {}  # id(code) → (code, its verdict)
VERDICTS_KEPT = 20_000


def _asker(frame: Any) -> str | None:
    """``module:line`` of the frame that asked for a value — the innermost one outside the
    modules a value comes from — or None when that frame is the machinery's."""
    while frame is not None:
        code = frame.f_code
        known = _verdicts.get(id(code))
        if known is None or known[0] is not code:
            if len(_verdicts) >= VERDICTS_KEPT:
                _verdicts.clear()
            known = _verdicts[id(code)] = (code, _verdict(frame))
        verdict = known[1]
        if verdict is not _SOURCE:
            return None if verdict is None else f"{verdict}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _caller(depth: int) -> Any:
    """The frame ``depth`` above this one, or None (a read from a thread with no Python frame
    above it: not the app's code)."""
    try:
        return sys._getframe(depth)
    except ValueError:
        return None


def _verdict(frame: Any) -> Any:
    """``_SOURCE``, None (the machinery's) or the module name of the app's code."""
    module = str(frame.f_globals.get("__name__", ""))
    if module in SOURCES:
        return _SOURCE
    if module.startswith(APP_PREFIXES):
        return module
    if module.partition(".")[0] in MACHINERY or _in_stdlib(frame.f_code.co_filename):
        return None
    return module or frame.f_code.co_filename


def _asked(what: str, asked: Any, live: Callable[..., Any], *args: Any) -> Any:
    """A read of ``what`` (``asked``: its size): from the step's values when the app's code
    asked in a step, else ``live(*args)``. Who asked is looked for from the caller of the
    source's wrapper (that calls this) on."""
    values = _step()
    if values is None:
        return live(*args)
    line = _asker(_caller(3))
    if line is None:
        return live(*args)
    return values.take(what, line, asked, lambda: live(*args))


# -- the clock: time-machine ------------------------------------------------------------------

_real_time_ns: Callable[[], int] | None = None
_trip: Any = None  # time_machine.travel, started while any step runs
_time_machine: Any = None  # the module
_traveller: Any = None
_travelling = 0
_travel_lock = threading.Lock()
_real_generate_time_safe = getattr(uuid, "_generate_time_safe", None)


def _clock_ns() -> int:
    """The traveller's time (time-machine asks it for every clock read while travelling)."""
    values = _step()
    if values is None:
        return _live_ns()
    line = _asker(_caller(2))
    if line is None:
        return _live_ns()
    return values.take("clock", line, None, _live_ns)


def _live_ns() -> int:
    try:
        return _real_time_ns()
    except ValueError:  # the last step ended since this read began: the clock is itself again
        import time

        return time.time_ns()


def _travel(delta: int) -> None:
    """Count the steps running; the clock is patched from the first until the last ends."""
    global _travelling, _traveller
    if _trip is None:
        return
    with _travel_lock:
        _travelling += delta
        if delta > 0 and _travelling == 1:
            try:
                _traveller = _trip.start()
            except RuntimeError as exc:  # freezegun's fake clock is in place: it wins
                logger.warning("rewind: clock reads are not replayed: %s", exc)
                return
            _traveller.time_ns = _clock_ns  # asked per read: the step's value, or the clock
            if _real_generate_time_safe is not None:  # time-machine sets it None meanwhile
                uuid._generate_time_safe = _generate_time_safe
        elif delta < 0 and _travelling == 0 and _traveller is not None:
            stack = _time_machine.traveller_stack
            if stack and stack[-1] is _traveller:
                _trip.stop()
            elif _traveller in stack:  # another's travel above ours
                stack.remove(_traveller)
            _traveller = None


def _install_clock() -> None:
    global _trip, _real_time_ns, _time_machine
    try:
        import time_machine
    except ImportError:  # pragma: no cover — a dependency; without it the clock stays live
        logger.warning("rewind: time-machine is not installed; clock reads are not replayed")
        return
    if not hasattr(time_machine, "traveller_stack") or not hasattr(time_machine, "escape_hatch"):
        logger.warning("rewind: this time-machine has no traveller stack; clock reads are live")
        return
    _real_time_ns = time_machine.escape_hatch.time.time_ns
    _trip = time_machine.travel(0, tick=False)
    _time_machine = time_machine


# -- randomness --------------------------------------------------------------------------------

_c_random = random.Random.random
_c_getrandbits = random.Random.getrandbits
_real_seed = random.Random.seed
_real_urandom = os.urandom


class StepRandom(random.Random):
    """The class of ``random._inst`` once installed: its two primitive draws are read through
    the step (outside a step, or for the machinery, exactly the original's)."""

    def random(self) -> float:
        return _asked("random", None, _c_random, self)

    def getrandbits(self, k: int) -> int:
        return _asked("bits", k, _c_getrandbits, self, k)


def _seed(self: random.Random, a: Any = None, version: int = 2) -> None:
    """``Random.seed``: a ``Random()`` made in a step (no seed given) is seeded from a recorded
    seed, so its draws replay with it."""
    if a is None:
        a = _asked("seed", None, _fresh_seed)
    return _real_seed(self, a, version)


def _fresh_seed() -> int:
    return int.from_bytes(_real_urandom(32))


def urandom(size: int) -> bytes:
    """``os.urandom`` and ``random._urandom`` (``SystemRandom``, ``secrets``, ``uuid4``)."""
    return _asked("urandom", size, _real_urandom, size)


def _generate_time_safe() -> tuple[bytes, Any]:
    """uuid's ``_generate_time_safe``, which ``uuid1()`` asks for its bytes."""
    return tuple(_asked("uuid1", None, _real_generate_time_safe))


# Built-ins a module may have taken at import, and what stands for each once installed.
_replacements: dict[int, tuple[Any, Any]] = {}
_adopted: dict[int, dict[str, Any]] = {}


def adopt(namespace: dict[str, Any] | None) -> None:
    """Point the names ``namespace`` (an action's module) took from ``random`` and ``os`` at
    import — ``from random import random`` — at Rewind's, once per module."""
    if namespace is None or _adopted.get(id(namespace)) is namespace:
        return
    _adopted[id(namespace)] = namespace
    for name, value in list(namespace.items()):
        found = _replacements.get(id(value))
        if found is not None and found[0] is value:
            namespace[name] = found[1]


# -- stdin ---------------------------------------------------------------------------------------

_real_input = builtins.input
_NO_PROMPT = object()
# Inside ``input()`` recording: the stream reads the built-in makes are that one read's.
_in_input: contextvars.ContextVar[bool] = contextvars.ContextVar("rewind_input", default=False)
_stdlib_files: dict[str, bool] = {}


def _reader(frame: Any) -> str:
    """``module:line`` of the code that read stdin: the first frame outside this module and the
    standard library (``fileinput`` reads for whoever called it). Unlike the clock, a stdin read
    in a step is always the step's: no library reads the terminal on its own behalf."""
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        filename = frame.f_code.co_filename
        stdlib = _stdlib_files.get(filename)
        if stdlib is None:
            stdlib = _stdlib_files[filename] = _in_stdlib(filename)
        if module not in SOURCES and not stdlib:
            return f"{module or filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "stdin"


def _input(prompt: Any = _NO_PROMPT) -> str:
    """``input()``: in a step, the line is the step's recorded input (None: end of input, raised
    as ``EOFError``); the prompt goes to stdout whether the line was typed or replayed."""
    args = () if prompt is _NO_PROMPT else (prompt,)
    values = _step()
    if values is None or _in_input.get():
        return _real_input(*args)
    prompted = False

    def typed() -> str | None:
        nonlocal prompted
        prompted = True  # the built-in writes the prompt itself
        token = _in_input.set(True)
        try:
            return _real_input(*args)
        except EOFError:
            return None
        finally:
            _in_input.reset(token)

    line = values.take("input", _reader(_caller(1)), None, typed)
    if args and not prompted:
        out = sys.stdout
        if out is not None:
            if sys.stderr is not None:
                sys.stderr.flush()  # as the built-in: what went to stderr shows first
            out.write(str(prompt))
            out.flush()
    if line is None:
        raise EOFError("EOF when reading a line")
    return line


def _stream_read(what: str, stream: Callable[[], Any], method: str, args: tuple) -> Any:
    """``method(*args)`` of the stream ``stream()`` gives, read through the step (``what``:
    ``stdin`` for text, ``stdin.buffer`` for bytes)."""

    def live() -> Any:
        return getattr(stream(), method)(*args)

    values = _step()
    if values is None or _in_input.get():
        return live()
    size = args[0] if args and args[0] is not None else -1
    return values.take(what, _reader(_caller(1)), (method, size), live)


class StepStdinBuffer:
    """``sys.stdin.buffer`` while a step runs: its reads are the step's, as :class:`StepStdin`'s
    (the stream's own buffer is looked up at each live read)."""

    def __init__(self, stdin: StepStdin) -> None:
        self._stdin = stdin

    def _raw(self) -> Any:
        return self._stdin._stream.buffer

    def read(self, size: int | None = -1) -> bytes:
        return _stream_read("stdin.buffer", self._raw, "read", (size,))

    def read1(self, size: int = -1) -> bytes:
        return _stream_read("stdin.buffer", self._raw, "read1", (size,))

    def readline(self, size: int | None = -1) -> bytes:
        return _stream_read("stdin.buffer", self._raw, "readline", (size,))

    def readlines(self, hint: int | None = -1) -> list[bytes]:
        return _stream_read("stdin.buffer", self._raw, "readlines", (hint,))

    def __iter__(self) -> StepStdinBuffer:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw(), name)


class StepStdin:
    """``sys.stdin`` while any step runs: the stream that was there, its reads the step's (live
    and recorded, or given back on a replay); everything else is the stream's own."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.buffer = StepStdinBuffer(self)

    def _own(self) -> Any:
        return self._stream

    def read(self, size: int | None = -1) -> str:
        return _stream_read("stdin", self._own, "read", (size,))

    def readline(self, size: int | None = -1) -> str:
        return _stream_read("stdin", self._own, "readline", (size,))

    def readlines(self, hint: int | None = -1) -> list[str]:
        return _stream_read("stdin", self._own, "readlines", (hint,))

    def __iter__(self) -> StepStdin:
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __enter__(self) -> StepStdin:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stream.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_stdin_steps = 0
_stdin_lock = threading.Lock()
_attached: StepStdin | None = None


def _attach_stdin(delta: int) -> None:
    """Count the steps running; ``sys.stdin`` is a :class:`StepStdin` over the stream that was
    there from the first until the last ends (then the stream again, unless the app replaced
    ``sys.stdin`` meanwhile: its choice stays)."""
    global _stdin_steps, _attached
    if not _installed:
        return
    with _stdin_lock:
        _stdin_steps += delta
        if delta > 0 and _stdin_steps == 1:
            if not isinstance(sys.stdin, StepStdin):
                _attached = sys.stdin = StepStdin(sys.stdin)
        elif delta < 0 and _stdin_steps == 0 and _attached is not None:
            if sys.stdin is _attached:
                sys.stdin = _attached._stream
            _attached = None


# -- tasks ---------------------------------------------------------------------------------------


def _install_tasks() -> None:
    original = asyncio.BaseEventLoop.create_task

    def create_task(self: asyncio.BaseEventLoop, coro: Any, **kwargs: Any) -> Any:
        if kwargs.get("context") is None and getattr(self, "_task_factory", None) is None:
            values = _step()
            if values is not None:
                kwargs["context"] = values.task_context()
        return original(self, coro, **kwargs)

    asyncio.BaseEventLoop.create_task = create_task  # type: ignore[method-assign]


_installed = False


def install() -> None:
    """Put every source in place (once per process; outside a step each gives what it gave)."""
    global _installed
    if _installed:
        return
    _installed = True
    _install_clock()
    builtin_random, builtin_bits = random.random, random.getrandbits
    random._inst.__class__ = StepRandom  # type: ignore[attr-defined]
    random.random = random._inst.random  # type: ignore[attr-defined]
    random.getrandbits = random._inst.getrandbits  # type: ignore[attr-defined]
    random.Random.seed = _seed  # type: ignore[method-assign]
    os.urandom = urandom
    random._urandom = urandom  # type: ignore[attr-defined]
    for original, ours in (
        (builtin_random, random.random),
        (builtin_bits, random.getrandbits),
        (_real_urandom, urandom),
    ):
        _replacements[id(original)] = (original, ours)
    if _real_generate_time_safe is not None:
        uuid._generate_time_safe = _generate_time_safe  # type: ignore[attr-defined]
    builtins.input = _input
    _replacements[id(_real_input)] = (_real_input, _input)
    _install_tasks()
