"""Process starts the capture cannot answer (DESIGN.md, "Hermetic replays"): ``os.fork`` and
``os.forkpty``, ``os.posix_spawn``/``posix_spawnp``, the ``os.spawn*`` and ``os.exec*``
families, a ``multiprocessing`` child (``BaseProcess.start``: a ``Process``, a pool's or a
``ProcessPoolExecutor``'s workers, whatever the start method) — and, from the subprocess
adapter, a process used while it runs, or made by a ``Popen`` subclass or asyncio's own loop.

While a step runs (and only then: outside a step a wrapper reads one context variable), such
a start is:

- refused before it happens on a guarded step (an unchanged replay; a fork's step that
  re-executes as its source did): the step fails with ``guard.NotCaptured``, naming what it
  started and the line of the user's code that did it — a replay never starts a process it
  did not record;
- let through and noted on any other step (``StepCalls.note_uncaptured``): the run says its
  replay will not be hermetic.

A start let through is made under ``core.sending()``: what it does in this process on its way
(a spawn's own fork, a ``multiprocessing`` child forked with the step's context) is not
captured again, nor held twice. ``--allow-network`` (the run's ``allow_network``) lifts the
refusal, not the note.
"""

from __future__ import annotations

import multiprocessing.process
import os
from collections.abc import Callable
from typing import Any

from runs.engine.calls.capture import guard
from runs.engine.calls.capture.commands import Command
from runs.engine.calls.capture.core import current_step, is_sending, sending


def hold(endpoint: str, detail: str = "") -> bool:
    """A process start the capture cannot answer (``endpoint``: what starts; ``detail``: how,
    for the refusal): refused on a guarded step, noted on a live one. True when a step was
    there to note it (its caller then starts it under ``core.sending()``)."""
    calls = current_step()
    if calls is None or is_sending():
        return False
    line = guard.opened_by(1)
    if calls.guarded:
        what = f"{endpoint} ({detail})" if detail else endpoint
        message = (
            f"started {what} outside capture during a replay (from {line}): a replay never "
            "starts a process it did not record; run with --allow-network (or "
            "REWIND_ALLOW_NETWORK=true) to let it"
        )
        calls.refused = calls.refused or message
        raise guard.NotCaptured(message)
    calls.note_uncaptured(endpoint, line, "started")
    return True


def _program(args: Any, how: str) -> tuple[str, str]:
    """What a spawn or an exec starts: ``process <program>``, and its argv (redacted)."""
    try:
        command = Command.of(args)
    except TypeError:
        return "a process", how
    return f"process {command.program}", f"{how} of `{command.label}`"


def _held(name: Callable[..., tuple[str, str]]) -> Callable[[Any], Any]:
    """A wrapper factory: the start is held (named by ``name(*args)``), then made."""

    def make(original: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if current_step() is None:  # outside a step: one context read
                return original(*args, **kwargs)
            if hold(*name(*args, **kwargs)):
                with sending():
                    return original(*args, **kwargs)
            return original(*args, **kwargs)

        wrapper.__name__ = getattr(original, "__name__", "wrapper")
        wrapper.__doc__ = getattr(original, "__doc__", None)
        return wrapper

    return make


def _child(process: Any) -> tuple[str, str]:
    target = getattr(process, "_target", None)
    name = getattr(target, "__qualname__", None) or type(process).__name__
    return f"a multiprocessing child (target {name})", ""


def install() -> None:
    """Wrap the process starts of ``os`` and ``multiprocessing`` — each again if something
    put its own in its place since (a test's monkeypatch, restored, takes ours away)."""
    for name in ("fork", "forkpty"):
        if hasattr(os, name):
            guard.wrap(
                os, name, _held(lambda *a, _n=name, **k: (f"a forked process (os.{_n})", ""))
            )
    for name in ("posix_spawn", "posix_spawnp", "execv", "execve"):
        if hasattr(os, name):
            how = f"os.{name}" + (": it would replace this process" if "exec" in name else "")
            guard.wrap(os, name, _held(lambda path, argv, *a, _h=how, **k: _program(argv, _h)))
    for name in ("spawnv", "spawnve", "spawnvp", "spawnvpe"):
        if hasattr(os, name):
            guard.wrap(
                os, name, _held(lambda mode, file, argv, *a, _n=name, **k: _program(argv, _n))
            )
    guard.wrap(multiprocessing.process.BaseProcess, "start", _held(_child))
