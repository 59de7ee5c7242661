"""``rewind_bench``'s figures for the step's own values (issue 31): what recording and replaying
the clock and randomness a step's code reads costs, each measured beside its anchor.

- a step that reads none of them pays nothing measurable: the ``loop`` app's cached replay per
  step, values recorded and replayed (``REWIND_REPLAY_VALUES``, the default) ÷ the same replay
  with them off; goal ≤ 1.05×;
- per read, for the clock (``datetime.now()``), ``random.random()`` and ``uuid4()``: (a read in
  a recorded step) − (the same read outside any step), and the same for a replayed step
  answered from the recording; goal ≤ 20 µs a read (a cached replay step is ~0.5 ms).
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.test import override_settings

from runs.bench.measure import best_time, figure
from runs.engine.calls import capture
from runs.engine.calls.capture.core import StepCalls
from runs.engine.calls.capture.values import StepValues
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay
from runs.models import Run

READS = 2000  # reads per timed round
READ_GOAL_S = 20e-6
STEP_GOAL = 1.05
# Each read as the app's code writes it (looked up when read: ``random.random`` is Rewind's
# once installed).
SOURCES = {
    "clock, datetime.now()": "datetime.now()",
    "random.random()": "random.random()",
    "uuid4()": "uuid.uuid4()",
}


def _reads(read: Callable[[], Any]) -> None:
    for _ in range(READS):
        read()


def read_figures(name: str, expression: str, repeat: int) -> list[dict]:
    """A read's cost recorded and replayed, against the same read outside any step."""
    read = _asked_here(expression)
    bare_s, _ = best_time(lambda: _reads(read), repeat)

    def recorded() -> StepValues:
        values = StepValues()
        with StepCalls(sequence_id=0, action="bench", live=True, values=values):
            _reads(read)
        return values

    recorded_s, values = best_time(recorded, repeat)
    kept = values.as_json().get("reads", {})
    if sum(len(v) for v in kept.values()) != READS:
        return [{"figure": f"recorded read, {name}", "value": None, "pass": None,
                 "note": f"not measured: {sum(len(v) for v in kept.values())} of {READS} kept"}]  # fmt: skip

    def replayed() -> StepValues:
        again = StepValues(recorded=kept, replaying=True)
        with StepCalls(sequence_id=0, action="bench", values=again):
            _reads(read)
        return again

    replayed_s, again = best_time(replayed, repeat)
    if again.missed:
        raise AssertionError(f"{name}: a replayed read was not given its recorded value")
    bare, record, replay = (seconds / READS for seconds in (bare_s, recorded_s, replayed_s))
    return [
        _per_read(f"recorded {name}", record, bare),
        _per_read(f"replayed {name}", replay, bare),
    ]


def _asked_here(expression: str) -> Callable[[], Any]:
    """A function reading ``expression`` as the app's code (a frame of ``runs`` is the
    machinery's, whose reads are live, so the bench's own would not be recorded)."""
    namespace: dict[str, Any] = {
        "__name__": "rewind_bench_app", "datetime": datetime, "random": random, "uuid": uuid,
    }  # fmt: skip
    exec(f"def asked():\n    return {expression}\n", namespace)  # noqa: S102 — ours, fixed
    return namespace["asked"]


def _per_read(name: str, seconds: float, bare: float) -> dict:
    added = seconds - bare
    return {
        "figure": f"{name} − the same read outside a step (s per read)",
        "value": round(added, 9),
        "anchor": round(bare, 9),
        "ratio": round(added / bare, 3) if bare else None,
        "goal": f"≤ {READ_GOAL_S} s",
        "pass": added <= READ_GOAL_S,
        "note": f"bare {bare * 1e6:.2f} µs, in the step {seconds * 1e6:.2f} µs a read",
    }


def step_figure(source: Run, repeat: int) -> dict:
    """A cached replay of an app whose steps read none of these, values on ÷ off, timed in
    turns (a machine that slows down meanwhile slows both), after one of each untimed."""
    steps = source.nodes.count()

    def replay() -> float:
        started = time.perf_counter()
        execute_run(create_replay(source).pk)
        return time.perf_counter() - started

    on, off = [], []
    for _ in range(repeat + 1):
        on.append(replay())
        with override_settings(REWIND_REPLAY_VALUES=False):
            off.append(replay())
    on_s, off_s = min(on[1:] or on), min(off[1:] or off)
    return figure(
        "cached replay per step reading no clock nor randomness, values recorded ÷ off",
        on_s / steps,
        off_s / steps,
        STEP_GOAL,
    )


def values_figures(loop_source: Run, repeat: int) -> list[dict]:
    capture.install()
    rows = [step_figure(loop_source, repeat)]
    for name, expression in SOURCES.items():
        rows.extend(read_figures(name, expression, repeat))
    return rows
