"""A run's steps execute in a thread of their own, watched: the step timeout and cancel.

A user's action may hang (``time.sleep(600)``, sync or async, a socket that never answers).
Python cannot stop a thread, so the thread that executes the run — a worker's — does not
execute the steps itself: it starts them in a thread of their own and watches. When a step
outlasts its timeout (``REWIND_STEP_TIMEOUT``, or the pipeline's own) or the run is
cancelled (the heartbeat reads its status, ``leases.Heartbeat``), it closes the run's
``Fence`` (the abandoned step can write nothing more), leaves that thread to itself and
returns: the worker goes on to the next queued run at once — or, when the abandoned thread is
still running once the run's end is recorded, a queue worker stops instead, to be replaced by
a fresh process (``execution.queue.recycle``): Python cannot stop the thread, a process can end.

The steps' thread works on the caller's database connection, so everything a run writes
goes through one connection and one transaction discipline, as when the caller executed
the steps itself (and a caller inside a transaction — a test's — sees every row). On
abandoning it, the caller takes a fresh connection and leaves the old one to the abandoned
thread, refusing every statement on it (the thread closes it when it ends). A caller inside
a transaction cannot change connections; then only the abandoned thread's statements are
refused.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from runs.engine.errors import RewindError
from runs.engine.execution.fence import Fence, InFlight, StepAbandoned

POLL_SECONDS = 0.05  # how often the caller looks at the step's clock and the cancel flag
_abandoned: list[threading.Thread] = []  # steps' threads this process gave up on


class RunStopped(RewindError):
    """The run stopped waiting for its steps: ``step`` (the one in flight, if any) exceeded
    the step timeout, or the run was cancelled."""

    def __init__(self, message: str, *, cancelled: bool, step: InFlight | None) -> None:
        super().__init__(message)
        self.cancelled, self.step = cancelled, step


def step_timeout(name: str, pipeline: Any) -> float:
    """Seconds a step of pipeline ``name`` may take: ``REWIND_STEP_TIMEOUTS[name]``, else the
    pipeline's own ``step_timeout``, else ``REWIND_STEP_TIMEOUT``."""
    named = settings.REWIND_STEP_TIMEOUTS.get(name)
    if named is not None:
        return float(named)
    own = getattr(pipeline, "step_timeout", None)
    return float(own) if own else float(settings.REWIND_STEP_TIMEOUT)


def run_steps(
    work: Callable[[], None],
    fence: Fence,
    *,
    timeout: float,
    cancelled: Callable[[], str | None],
    name: str = "steps",
) -> None:
    """Run ``work`` in a thread of its own on this thread's database connection; return when
    it returns, raise what it raises. ``RunStopped`` when the step in flight (``fence.step``)
    has run for more than ``timeout`` seconds, or ``cancelled()`` gives a reason: the fence is
    closed, the thread abandoned, and this thread continues on a fresh connection."""
    connection = connections[DEFAULT_DB_ALIAS]
    outcome: list[BaseException | None] = []
    done = threading.Event()
    ending = threading.Lock()  # the thread ends, or is abandoned: one or the other first
    abandoned: list[tuple[bool, Callable]] = []  # (given away?, the refusing wrapper)
    connection.inc_thread_sharing()

    def target() -> None:
        connections[DEFAULT_DB_ALIAS] = connection
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 — handed to the caller, which re-raises
            outcome.append(exc)
        else:
            outcome.append(None)
        finally:
            with ending:
                done.set()
            if abandoned:
                given_away, refuse = abandoned[0]
                if given_away:  # nobody else uses it: close it
                    try:
                        connection.close()
                    finally:
                        connection.dec_thread_sharing()
                else:  # the caller's: refuse nothing more (a new thread may get this ident)
                    connection.execute_wrappers.remove(refuse)

    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    while not done.wait(POLL_SECONDS):
        reason = cancelled()
        was_cancelled = reason is not None
        step = fence.step
        if reason is None and step is not None and time.monotonic() - step.started > timeout:
            reason = f"step `{step.name}` exceeded the step timeout of {timeout:g} s"
        if reason is None:
            continue
        in_flight = fence.close(reason)
        with ending:
            if done.is_set():
                break  # it finished as we gave up: nothing is abandoned
            abandoned.append(_give_away(connection, thread))
            _abandoned.append(thread)
        raise RunStopped(reason, cancelled=was_cancelled, step=in_flight)
    connection.dec_thread_sharing()
    if outcome and outcome[0] is not None:
        raise outcome[0]


def still_running() -> list[str]:
    """The names of the abandoned steps' threads still running in this process: each may
    hold the CPU (a pure-Python loop keeps the interpreter lock) until the process ends."""
    _abandoned[:] = [thread for thread in _abandoned if thread.is_alive()]
    return [thread.name for thread in _abandoned]


def _give_away(connection: Any, thread: threading.Thread) -> tuple[bool, Callable]:
    """Leave ``connection`` to the abandoned steps' ``thread``, refusing its statements; this
    thread continues on a fresh connection — unless it is inside a transaction of its own,
    which must stay on this connection: then only ``thread``'s statements are refused.
    Returns whether the connection was given away, and the refusing wrapper."""
    keep = connection.in_atomic_block
    abandoned = thread.ident

    def refuse(execute, sql, params, many, context):  # noqa: ANN001 — Django's signature
        if keep and threading.get_ident() != abandoned:
            return execute(sql, params, many, context)
        raise StepAbandoned("not written: the run stopped waiting for this step")

    connection.execute_wrappers.append(refuse)
    if not keep:
        connections[DEFAULT_DB_ALIAS] = connections.create_connection(DEFAULT_DB_ALIAS)
    return not keep, refuse
