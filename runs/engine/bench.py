"""The figures of ``rewind_bench`` (issue 10): each measured beside its anchor in the same
process, reported as a ratio with its goal and PASS/FAIL — never an absolute time (machines
are noisy and shared). Timings run without tracing; memory is measured in a separate pass.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from burr.core import ApplicationBuilder, State
from burr.core.action import action
from burr.core.persistence import SQLLitePersister
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.engine.diff import diff_values
from runs.models import BurrState, Node, Run


def best_time(work: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Best wall time of ``repeat`` tries (noise only ever adds time), untraced."""
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def peak_memory(work: Callable[[], Any]) -> int:
    """Peak traced memory of one run of ``work`` — a pass of its own, not timed."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def figure(name: str, value: float, anchor: float | None, goal: float, unit: str = "×") -> dict:
    ratio = value / anchor if anchor else value
    return {
        "figure": name,
        "value": round(value, 6),
        "anchor": round(anchor, 6) if anchor else None,
        "ratio": round(ratio, 3),
        "goal": f"≤ {goal}{unit}",
        "pass": ratio <= goal,
    }


# -- anchors ----------------------------------------------------------------------------------


@action(reads=["n"], writes=["n"])
def _count(state: State) -> State:
    return state.update(n=state["n"] + 1)


def burr_step_seconds(steps: int, *, tuned: bool, repeat: int) -> float:
    """Seconds per step of a bare Burr app persisting every step with ``SQLLitePersister``:
    ``tuned`` gives its connection the pragmas Rewind's SQLite uses (WAL, synchronous NORMAL)."""

    def once() -> None:
        with tempfile.TemporaryDirectory() as folder:
            db = sqlite3.connect(Path(folder) / "burr.db", check_same_thread=False)
            if tuned:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            persister = SQLLitePersister(db_path="", connection=db)
            persister.initialize()
            app = (
                ApplicationBuilder()
                .with_actions(count=_count)
                .with_transitions(("count", "count"))
                .with_state(n=0)
                .with_entrypoint("count")
                .with_state_persister(persister)
                .with_identifiers(app_id="bench")
                .build()
            )
            for _ in range(steps):
                app.step()
            db.close()

    seconds, _ = best_time(once, repeat)
    return seconds / steps


def plain_diff(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """The anchor of the diff figure: a plain recursive diff that skips equal subtrees."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in a.keys() | b.keys():
            out.extend(plain_diff(a.get(key), b.get(key), f"{path}.{key}"))
        return out
    return [(path, a, b)]


def wide_state(leaves: int, changed: int) -> dict[str, Any]:
    groups = max(1, leaves // 100)
    state = {f"g{g}": {f"k{k}": g * 100 + k for k in range(100)} for g in range(groups)}
    if changed:
        state["g0"]["k0"] = -1
    return state


# -- the figures ----------------------------------------------------------------------------


def replay_figures(source: Run, replay_once: Callable[[], Run], repeat: int) -> list[dict]:
    """Cached replay per step against bare Burr, SQL statements per cached step, and the
    bytes an unchanged replay adds against its parent's."""
    steps = source.nodes.count()
    replay_s, replay = best_time(replay_once, repeat)
    per_step = replay_s / steps
    with CaptureQueriesContext(connection) as queries:
        counted = replay_once()
    statements = len(queries.captured_queries) / max(1, counted.nodes.count())
    return [
        figure(
            "cached replay per step ÷ bare Burr step (SQLitePersister, WAL/NORMAL)",
            per_step,
            burr_step_seconds(steps * 4, tuned=True, repeat=repeat),
            3,
        ),
        figure(
            "cached replay per step ÷ bare Burr step (SQLitePersister, default pragmas)",
            per_step,
            burr_step_seconds(steps * 4, tuned=False, repeat=repeat),
            1,
        ),
        figure("SQL statements per cached step", statements, None, 3, unit=""),
        figure(
            "bytes added by an unchanged replay ÷ bytes of its parent",
            stored_bytes(replay),
            stored_bytes(source),
            0.1,
        ),
    ]


def diff_figure(leaves: int, repeat: int) -> dict:
    a, b = wide_state(leaves, 0), wide_state(leaves, 1)
    ours, _ = best_time(lambda: diff_values(a, b), repeat)
    anchor, _ = best_time(lambda: plain_diff(a, b), repeat)
    return figure(f"diff of two {leaves}-leaf states, one leaf apart", ours, anchor, 1.5)


def stored_bytes(run: Run) -> int:
    """What a run added to the database: its state rows and its step rows, as stored."""
    states = BurrState.objects.filter(app_id=str(run.pk)).values_list("state", flat=True)
    nodes = Node.objects.filter(run=run).values_list("inputs", "output", "prompt", "calls")
    return sum(len(s) for s in states) + sum(len(repr(row)) for row in nodes)


NOT_MEASURED = [
    {
        "figure": "node finished → browser sees it (SSE)",
        "pass": None,
        "note": "not measured by rewind_bench yet",
    },
    {"figure": "run page, 500 steps", "pass": None, "note": "not measured by rewind_bench yet"},
    {
        "figure": "batch replays, 2 worker processes ÷ 1",
        "pass": None,
        "note": "not measured by rewind_bench yet",
    },
]
