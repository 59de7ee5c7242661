"""What every figure of ``rewind_bench`` is made of: the best of a few timed tries, the peak
memory of one untimed pass, and the figure itself (a ratio to its anchor, its goal, PASS/FAIL)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any


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
        "pass": round(ratio, 3) <= goal,  # judged as printed: 0.5006 shows as 0.5, ≤ 0.5
    }
