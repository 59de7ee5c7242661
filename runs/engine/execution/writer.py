"""The writer of recorded programs (``runs.recording``): database work off the step's path.

A program's hooks (``runs.engine.execution.program``) hand each piece of work — the run's
row, a finished step with its cache entries, the end of a turn — to one thread per process,
which writes whatever is queued in one transaction per batch, on a database connection of
its own (opened once, closed when idle and at exit), in the order the work was handed over.

- **Lingering**: a batch waits up to ``LINGER_SECONDS`` from its first piece for more, and is
  written at once when a flush, a ``call`` or a piece handed over ``due`` (the end of a call
  that does not wait, ``wait=False``: nothing more of it is coming) is queued or half of
  ``BOUND`` is. A call whose steps come quickly is then one transaction at its end (each kind
  of row in one statement) instead of one a step: the writer's CPU, which shares the
  interpreter lock with the program, halved (measured on the bench's nine-step program: 28 →
  13 ms a run on SQLite, 38 → 23 ms on PostgreSQL), and the program's overhead with it. A step that takes longer is committed
  ``LINGER_SECONDS`` after it was handed over, while the next one runs.

- **Bounded**: at most ``BOUND`` pieces handed over and not yet committed; a hook that would
  go past it waits for the writer (a step is never dropped).
- **Flushed** (everything handed over is committed before it returns): at the end of every
  execute call (``run``, ``step``, ``iterate``…, also when the user's code raised), at
  interpreter exit (``atexit``), and on ``SIGTERM``/``SIGHUP`` left at their default, which
  then end the program by ``SystemExit`` so that it unwinds through the same flushes (a
  handler the program installed is called instead; none is installed off the main thread).
  Ctrl-C unwinds as ``KeyboardInterrupt`` through them.
- **Lost by ``kill -9``** (or a power cut): what was handed over and not committed — the
  steps of the execute call in progress the writer had not reached, at most ``BOUND``, and
  that call's end (the run stays *running*): those handed over in the last ``LINGER_SECONDS``
  or so, or every step of a call quicker than that. Nothing of a call that had returned —
  unless it did not wait for its steps (``wait=False``): then what the writer had not committed
  yet, the time its one transaction takes (``rewind_bench`` measures it under load).

Each piece keeps its database work in savepoints of its own; one that fails is the failure of
its owner (``Owner.failed``), and the rest of the batch is written. Each owner that holds
work at the batch's end (``Owner.holding``) ends it (``Owner.batch_end``, in a savepoint
too): a recorder writes the steps its pieces handed over there, their cache entries and every
kind of row each in one statement.
"""

from __future__ import annotations

import atexit
import logging
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from django.db import connections, transaction

logger = logging.getLogger("rewind.recording")

BOUND = 64  # pieces handed over and not committed, at most (what kill -9 can lose)
BATCH = 256  # pieces written in one transaction, at most
# A batch waits this long for more pieces, from its first, unless a flush or ``call`` asks for
# it or half of ``BOUND`` is queued: a program's quick steps go in one transaction (a statement
# a kind of row), a step that takes longer is still committed this long after it ended.
LINGER_SECONDS = 0.25
IDLE_SECONDS = 10.0  # the writer's connection is closed after this long with nothing to do


class Owner(Protocol):
    """Whose work a piece is: once ``stopped``, none of its work is written any more."""

    stopped: bool

    @property
    def holding(self) -> bool:
        """Whether ``batch_end`` has anything to write (no savepoint is opened otherwise)."""

    def failed(self, exc: BaseException) -> None: ...

    def batch_end(self) -> None:
        """Last in each batch that held some of its work, in the batch's transaction: what
        its pieces left to write together (a recorder's held steps)."""


Piece = tuple[Owner | None, Callable[[], Any], threading.Event | None, bool]  # the bool: due


class Writer:
    def __init__(self, bound: int = BOUND) -> None:
        self._queue: deque[Piece] = deque()
        self._ready = threading.Condition()
        self._room = threading.Semaphore(bound)
        self._thread: threading.Thread | None = None
        self._running = False  # the thread takes what is queued (set and cleared under _ready)
        self._closing = False

    # -- the step's side ---------------------------------------------------------------------

    def submit(self, owner: Owner, work: Callable[[], Any], *, due: bool = False) -> None:
        """Hand ``work`` over (run in the writer, in a batch's transaction); waits while
        ``BOUND`` pieces are not committed. ``due``: the batch it joins is written without
        lingering for more (nobody waits for it, and nothing more is coming soon)."""
        try:
            self._room.acquire()
        except BaseException:  # interrupted while waiting (Ctrl-C): handed over all the same
            self._put(owner, work, None, due)
            raise
        self._put(owner, work, None, due)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything handed over so far is committed (False: not in ``timeout``)."""
        thread = self._thread
        if not self._running or threading.current_thread() is thread:
            return True  # nothing handed over is waiting: the thread ends with none queued
        done = threading.Event()
        self._put(None, _nothing, done)
        return done.wait(timeout)

    def call(self, work: Callable[[], Any]) -> Any:
        """Run ``work`` in the writer's thread, on its connection, and return what it returns."""
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = work()
            except Exception as exc:  # noqa: BLE001 — raised again in the caller's thread
                outcome["error"] = exc

        done = threading.Event()
        self._put(None, run, done)
        done.wait()
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("value")

    def close(self, timeout: float | None = None) -> None:
        """Flush, then stop the thread (its connection closed); the next piece starts another."""
        thread = self._thread
        if thread is None or not self._running:
            return
        self.flush(timeout)
        with self._ready:
            self._closing = True
            self._ready.notify()
        thread.join(timeout)

    def _put(
        self,
        owner: Owner | None,
        work: Callable[[], Any],
        done: threading.Event | None,
        due: bool = False,
    ) -> None:
        with self._ready:
            self._queue.append((owner, work, done, due))
            if not self._running:
                self._running, self._closing = True, False
                self._thread = threading.Thread(
                    target=self._loop, name="rewind-recorder", daemon=True
                )
                self._thread.start()
            # Woken only when it has something to do: a first piece, or one that ends the
            # linger. Waking it for every piece cost the step a thread switch each (1.3 ms a
            # run of the bench's nine steps, measured).
            queued = len(self._queue)
            if queued == 1 or done is not None or due or queued >= BOUND // 2:
                self._ready.notify()

    # -- the writer's side ------------------------------------------------------------------

    def _loop(self) -> None:
        try:
            while True:
                with self._ready:
                    while not self._queue and not self._closing:
                        if not self._ready.wait(IDLE_SECONDS) and not self._queue:
                            connections.close_all()  # idle: no connection held open
                    if not self._queue:
                        self._running = False  # closing, and nothing left
                        return
                    self._linger()
                    batch = [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]
                self._write(batch)
        finally:
            connections.close_all()

    def _linger(self) -> None:
        """Wait (holding ``_ready``) for more pieces to join the batch: until a piece waited
        for (a flush, a ``call``) or a ``due`` one is queued, half of ``BOUND`` is, the writer
        is closing, or ``LINGER_SECONDS`` have passed."""
        deadline = time.monotonic() + LINGER_SECONDS
        while (
            not self._closing
            and len(self._queue) < BOUND // 2
            and all(done is None and not due for _, _, done, due in self._queue)
            and (left := deadline - time.monotonic()) > 0
        ):
            self._ready.wait(left)

    def _write(self, batch: list[Piece]) -> None:
        if all(work is _nothing for _, work, _, _ in batch):  # flushes only: nothing to write
            for _, _, done, _ in batch:
                done.set()
            return
        try:
            with transaction.atomic():
                for owner, work, _, _ in batch:
                    if owner is not None and owner.stopped:
                        continue
                    try:
                        work()
                    except Exception as exc:  # noqa: BLE001 — its owner's failure, not the batch's
                        if owner is None:
                            logger.warning("rewind: the recording writer: %s", exc)
                        else:
                            owner.failed(exc)
                for owner in {id(o): o for o, *_ in batch if o is not None}.values():
                    if owner.stopped or not owner.holding:
                        continue
                    try:
                        with transaction.atomic():  # a savepoint: its failure is its owner's
                            owner.batch_end()
                    except Exception as exc:  # noqa: BLE001 — as a piece's
                        owner.failed(exc)
        except Exception as exc:  # noqa: BLE001 — the transaction itself failed (the database)
            connections.close_all()  # the next batch starts on a new connection
            for owner in {id(o): o for o, *_ in batch if o is not None}.values():
                if not owner.stopped:
                    owner.failed(exc)
            if all(o is None for o, *_ in batch):
                logger.warning("rewind: the recording writer failed: %s", exc)
        finally:
            for owner, _, done, _ in batch:
                if owner is not None:
                    self._room.release()
                if done is not None:
                    done.set()


def _nothing() -> None:
    return None


# -- the process's writer --------------------------------------------------------------------

_writer: Writer | None = None
_lock = threading.Lock()
_before_exit: list[Callable[[], None]] = []
EXIT_TIMEOUT_SECONDS = 30.0


def shared() -> Writer:
    """The process's writer; the first call registers its flush at exit and on signals."""
    global _writer
    with _lock:
        if _writer is None:
            _writer = Writer()
            atexit.register(_at_exit)
            _install_signal_handlers()
        return _writer


def before_exit(work: Callable[[], None]) -> None:
    """Run ``work`` at exit before the last flush (a recorder ends the turn it was in)."""
    with _lock:
        if work not in _before_exit:
            _before_exit.append(work)


def _at_exit() -> None:
    for work in list(_before_exit):
        try:
            work()
        except Exception as exc:  # noqa: BLE001 — the rest must still be flushed
            logger.warning("rewind: at exit: %s", exc)
    if _writer is not None:
        _writer.close(EXIT_TIMEOUT_SECONDS)


def _install_signal_handlers() -> None:
    """SIGTERM and SIGHUP at their default end the program without unwinding (no ``finally``,
    no ``atexit``): they are made to end it by ``SystemExit``, which does. A handler the
    program installed is left alone; none is installed off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        previous = signal.getsignal(signum)
        if previous is signal.SIG_DFL:
            signal.signal(signum, _terminate)


def _terminate(signum: int, frame: Any) -> None:
    signal.signal(signum, signal.SIG_DFL)  # a second signal ends the program at once
    raise SystemExit(128 + signum)
