"""Calls made from threads a step starts belong to the step (DESIGN.md, "Capture").

A step's calls live in a context variable, which a new thread does not inherit: Burr's
``MapStates``/``MapActions`` fan out through a ``ThreadPoolExecutor``, and an action may start
its own. While a step runs, ``ThreadPoolExecutor.submit`` and ``Thread.start`` therefore run
the work in a copy of the submitting context (``asyncio`` tasks copy it already), so the work
sees the step's calls. Outside a step they are untouched.

Each piece of work handed to another thread is a *branch* of the step, named by its path of
submission indices (``(0,)``, ``(1,)``, ``(1, 0)``…): the order in which one thread submits is
the order of its own code, so the same fan-out gets the same names on every replay, however
the threads then interleave. The core counts occurrences per branch, so two identical
requests from two branches are told apart by the branch that made them, never by which one
finished first.
"""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor, thread
from typing import Any

from runs.engine.calls.capture import branches
from runs.engine.calls.capture.core import current

_installed = False


def _branch_context() -> contextvars.Context | None:
    """A copy of this context for a new branch of the running step, or None outside one."""
    calls = current()
    if calls is None:
        return None
    parent = branches.branch()
    with calls.lock:
        index = calls.branches[parent]
        calls.branches[parent] += 1
    return branches.context_for((*parent, index))


def _closing(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a branch's work; then close the database connection the capture may have opened
    in this thread (a cache read or write), which the thread would otherwise keep."""
    try:
        return fn(*args, **kwargs)
    finally:
        from django.db import connections

        connections.close_all()


def install() -> None:
    global _installed
    if _installed:
        return
    original_submit = ThreadPoolExecutor.submit
    original_start = threading.Thread.start

    def submit(executor: ThreadPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        context = _branch_context()
        if context is None:
            return original_submit(executor, fn, *args, **kwargs)
        return original_submit(executor, context.run, _closing, fn, *args, **kwargs)

    def start(self: threading.Thread) -> None:
        # A pool's own worker threads are reused for later work: each submit carries the
        # context instead (above), so they start in their own.
        if getattr(self, "_target", None) is not thread._worker:
            context = _branch_context()
            if context is not None:
                run = self.run
                self.run = lambda: context.run(_closing, run)  # type: ignore[method-assign]
        original_start(self)

    ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]
    threading.Thread.start = start  # type: ignore[method-assign]
    _installed = True
