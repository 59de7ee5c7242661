"""How many forks a bisect makes (issue 17): over the ``relay`` app's 20 steps with the deciding
step planted at each place in turn, every named step checked against the one planted."""

from __future__ import annotations

from runs.bench.measure import figure

BISECT_STEPS = 20
BISECT_FORKS_GOAL = 6  # issue 17: bisect over a 20-step trajectory, ≤ 6 forks


def bisect_figure() -> dict:
    """Forks a bisect makes over the ``relay`` app's 20 steps, every step differing between
    the two runs: the most over the 20 places the deciding step can be planted (a count, not
    a time: the same on every machine), against ⌈log₂ 20⌉ = 5 for a bare binary search."""
    from runs.engine.analysis.bisect import bisect
    from runs.engine.analysis.outcomes import Outcome
    from runs.engine.execution.new_runs import create_run
    from runs.engine.execution.runner import execute_run

    verdict = Outcome("verdict", f"s{BISECT_STEPS}.v{BISECT_STEPS}.verdict")
    counts = []
    for planted in range(1, BISECT_STEPS + 1):
        good, bad = (
            execute_run(create_run("relay", {"seed": seed, "planted": planted}, from_text=False).pk)
            for seed in (1, 2)
        )
        result = bisect(good, bad, verdict)
        if result.step.node != f"s{planted:02d}":
            raise RuntimeError(f"bisect named {result.step.node}, planted s{planted:02d}")
        counts.append(len(result.forks))
    return {
        **figure(
            "bisect over a 20-step trajectory: forks (the most over every planted step)",
            max(counts),
            None,
            BISECT_FORKS_GOAL,
            unit=" forks",
        ),
        "note": f"forks per planted step 1–20: {counts}; mean {sum(counts) / len(counts):.2f}; "
        "a bare binary search needs ⌈log₂ 20⌉ = 5",
    }
