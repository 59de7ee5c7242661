"""``rewind_bench``'s recording figure (issue 19): what recording a user's own Burr program
with ``rewind_hooks`` adds per step, against what Burr's own ``LocalTrackingClient`` adds to
the same program — both measured beside the bare program in one process, in turns.

The program is the ``nine`` app (registered by name: nine actions, one OpenAI chat call
each), its ``openai`` client pointed at Rewind's simulator served on loopback by a process of
its own. Each try builds the application and runs it to its end: bare, with the tracker
(its files in a temporary folder), with ``rewind_hooks`` (writing to the configured database),
and with ``rewind_hooks(..., sync=True)``; the modes take turns, and the best try of each
counts (noise only ever adds time). Overhead per step = (best with − best bare) / 9.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from burr.core import ApplicationBuilder
from django.db import connection

from runs.bench.capture import _served_apart
from runs.bench.crashes import crash_figure
from runs.bench.measure import figure
from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.models import Run

GOALS = {"postgresql": 2.0}  # the ratio's goal by database vendor; 1 elsewhere (SQLite)
WARMUP = 2


@contextmanager
def _openai_at(base: str) -> Iterator[None]:
    """The ``openai`` clients the app makes, pointed at ``base`` for the while."""
    saved = {name: os.environ.get(name) for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    os.environ.update(OPENAI_BASE_URL=base, OPENAI_API_KEY="sk-bench")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def recording_figures(repeat: int) -> list[dict]:
    from burr.tracking import LocalTrackingClient

    from runs.engine.execution import writer
    from runs.recording import rewind_hooks

    app = get_pipeline("nine")  # found by name, as any app
    if not isinstance(app, BurrApp):
        raise TypeError("the recording figure runs a Burr app; 'nine' is declared")
    steps = len(app.graph.actions)

    def builder() -> ApplicationBuilder:
        return (
            ApplicationBuilder()
            .with_graph(app.graph)
            .with_state(**app.state)
            .with_entrypoint(app.entrypoint)
        )

    tries = max(8, 8 * repeat)
    before = set(Run.objects.filter(pipeline="nine").values_list("pk", flat=True))
    with _served_apart() as base, _openai_at(base), tempfile.TemporaryDirectory() as folder:
        modes: dict[str, Callable[[], Any]] = {
            "bare": lambda: builder().build(),
            "tracker": lambda: (
                builder()
                .with_tracker(LocalTrackingClient(project="bench", storage_dir=folder))
                .build()
            ),
            "rewind": lambda: builder().with_hooks(*rewind_hooks("nine")).build(),
            "sync": lambda: builder().with_hooks(*rewind_hooks("nine", sync=True)).build(),
        }
        last = app.graph.actions[-1].name
        best = dict.fromkeys(modes, float("inf"))
        try:
            for turn in range(WARMUP + tries):
                for mode, build in modes.items():
                    started = time.perf_counter()
                    build().run(halt_after=[last])
                    if turn >= WARMUP:
                        best[mode] = min(best[mode], time.perf_counter() - started)
        finally:
            writer.shared().close()  # its connection too
    per_step = {mode: (seconds - best["bare"]) / steps for mode, seconds in best.items()}
    runs = Run.objects.filter(pipeline="nine").exclude(pk__in=before)
    recorded = runs.count()
    complete = sum(
        1 for run in runs if run.status == Run.Status.COMPLETED and run.nodes.count() == steps
    )
    note = (
        f"bare {best['bare'] / steps * 1000:.3f} ms a step; added: tracker "
        f"{per_step['tracker'] * 1000:.3f} ms, rewind_hooks {per_step['rewind'] * 1000:.3f} ms, "
        f"sync=True {per_step['sync'] * 1000:.3f} ms; best of {tries} turns; "
        f"{complete} of {recorded} recorded runs complete with all {steps} steps"
    )
    goal = GOALS.get(connection.vendor, 1.0)
    name = (
        "recording a Burr program with rewind_hooks: per-step overhead ÷ Burr's "
        f"LocalTrackingClient's ({connection.vendor})"
    )
    # What a kill -9 loses of a call that did not wait for its steps (wait=False), under load.
    crash = crash_figure(repeat)
    if per_step["tracker"] <= 0:  # the tracker's cost drowned in the noise: no ratio to give
        return [
            {"figure": name, "value": None, "pass": None, "note": f"not measured: {note}"},
            crash,
        ]
    row = figure(name, per_step["rewind"], per_step["tracker"], goal)
    row["pass"] = row["pass"] and complete == recorded  # no step ever lost
    sync = figure(f"{name}, sync=True", per_step["sync"], per_step["tracker"], goal)
    sync["pass"] = None  # the slower mode a program may choose: shown, not held to the goal
    sync["note"] = "every step committed before the next one begins"
    return [{**row, "note": note}, sync, crash]
