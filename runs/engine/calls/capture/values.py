"""The step's own non-determinism, replayed (DESIGN.md, "The step's own non-determinism is
replayed, not only named").

While a step runs, what its code reads from the clock and from randomness is recorded
(``StepValues``, on the step's ``StepCalls``): per thread and task, in order, by the line that
asked. A replay of the step (``StepValues.recorded``: its source step's reads) gives each line
the values it got when recorded, so a prompt that embeds ``datetime.now()`` or ``uuid4()`` is
the same prompt, its call hits the cache and the step's writes are identical. A read the
recording does not have (the line moved, or asks more often) gets a live value, and the step
names the line (``not_replayed``).

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
- A name an action's module took at import that none of these reaches (``from random import
  random``, ``from os import urandom``: the original built-in) is pointed at Rewind's the
  first time a step of that module runs (``adopt``).

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
import contextvars
import logging
import os
import random
import sys
import threading
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
    return value  # clock: integer nanoseconds; random: a float (JSON keeps it exact)


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
    except (TypeError, ValueError, IndexError):
        return _MISSING
    return _MISSING


# -- the step's values ----------------------------------------------------------------------


class StepValues:
    """What a step's code read, by ``branch/task|what|module:line`` in order; ``recorded``, the
    reads of the step it replays (empty when recording). Made for every step: a plain class,
    its counters made on first use."""

    __slots__ = ("recorded", "replaying", "reads", "missed", "tasks", "lock", "_entered")

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

    def enter(self) -> None:
        """The step begins: the clock is Rewind's while any step runs (``StepCalls.__enter__``)."""
        if not self._entered:
            self._entered = True
            _travel(+1)

    def leave(self) -> None:
        if self._entered:
            self._entered = False
            _travel(-1)

    def take(self, what: str, line: str, asked: Any, live: Callable[[], Any]) -> Any:
        """The value ``line`` reads now: the recorded one at this place of its sequence, else
        ``live()`` (named as not replayed when the step replays one)."""
        path = _path()
        key = f"{path}|{what}|{line}"
        with self.lock:
            mine = self.reads.setdefault(key, [])
            place = len(mine)
            mine.append(None)
            old = self.recorded.get(key)
            stored = old[place] if old is not None and place < len(old) else _MISSING
        value = _MISSING if stored is _MISSING else _decode(what, stored, asked)
        if value is _MISSING:
            value = live()
            stored = _encode(what, value)
            if self.replaying:
                self._missed(key, path, what, line)
        mine[place] = stored
        return value

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
    _install_tasks()
