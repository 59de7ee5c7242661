"""Apps whose middle step hangs, for the step timeout and cancel tests.

``sleeper`` (a sync Burr app) and ``async_sleeper`` (its ``slow`` action is ``async`` and
blocks the event loop, the worst an async step can do): ``first`` → ``slow`` → ``last``.
``spinner``: the same, its ``spin`` action a pure-Python loop that holds the CPU.
``hanging``: a declared pipeline whose ``slow`` tool node hangs, then would store a tool
cache entry, and whose ``report`` writes an artifact.

``slow`` sets ``STARTED`` and waits for ``RELEASE`` (a test sets it to let the abandoned step
go on and try to write), at most ``HANG_SECONDS``. ``RELEASE`` set before a run starts makes
``slow`` return at once.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps.specs import Pipeline, ToolNode, chain

HANG_SECONDS = 60
STARTED = threading.Event()
RELEASE = threading.Event()


def hang() -> None:
    STARTED.set()
    RELEASE.wait(HANG_SECONDS)


@action(reads=[], writes=["a"])
def first(state: State) -> State:
    return state.update(a=1)


@action(reads=["a"], writes=["b"])
def slow(state: State) -> State:
    hang()
    return state.update(b=state["a"] + 1)


@action(reads=["a"], writes=["b"])
async def async_slow(state: State) -> State:
    hang()  # blocks the event loop: no await could cancel it
    return state.update(b=state["a"] + 1)


@action(reads=["a"], writes=["b"])
def spin(state: State) -> State:
    # A pure-Python loop: it holds the interpreter lock, no sleep lets it go.
    deadline = time.monotonic() + HANG_SECONDS
    n = 0
    while time.monotonic() < deadline and not RELEASE.is_set():
        n += 1
    return state.update(b=state["a"] + 1)


@action(reads=["b"], writes=["c"])
def last(state: State) -> State:
    return state.update(c=state["b"] + 1)


def _app(middle: Any) -> Application:
    return (
        ApplicationBuilder()
        .with_actions(first=first, slow=middle, last=last)
        .with_transitions(("first", "slow"), ("slow", "last"))
        .with_state(a=0)
        .with_entrypoint("first")
        .build()
    )


def sleeper() -> Application:
    return _app(slow)


def async_sleeper() -> Application:
    return _app(async_slow)


def spinner() -> Application:
    return _app(spin)


def _start(args: dict[str, Any], data_dir: Path) -> int:
    return int(args["n"]) + 1


def _slow_tool(args: dict[str, Any], data_dir: Path) -> int:
    hang()
    return int(args["n"]) * 10


def _report(args: dict[str, Any], data_dir: Path) -> str:
    return f"# Report\n\n{args['n']}\n"


hanging = Pipeline(
    name="hanging",
    description="A declared pipeline whose middle tool node hangs (test pipeline)",
    nodes=(
        ToolNode(name="start", reads=("n",), args=lambda v: {"n": v["n"]}, run=_start),
        ToolNode(name="slow", reads=("start",), args=lambda v: {"n": v["start"]}, run=_slow_tool),
        ToolNode(
            name="report",
            reads=("slow",),
            args=lambda v: {"n": v["slow"]},
            run=_report,
            artifact=True,
        ),
    ),
    transitions=chain("start", "slow", "report"),
    entrypoint="start",
    inputs={"n": 1},
)

# The same pipeline with a step timeout of its own.
hanging_quick = Pipeline(
    name="hanging_quick",
    description=hanging.description,
    nodes=hanging.nodes,
    transitions=hanging.transitions,
    entrypoint=hanging.entrypoint,
    inputs=hanging.inputs,
    step_timeout=3,
)

APPS = {
    "sleeper": "runs.tests.helpers.slow_apps.sleeper",
    "async_sleeper": "runs.tests.helpers.slow_apps.async_sleeper",
    "spinner": "runs.tests.helpers.slow_apps.spinner",
    "hanging": "runs.tests.helpers.slow_apps.hanging",
    "hanging_quick": "runs.tests.helpers.slow_apps.hanging_quick",
}
