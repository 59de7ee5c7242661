"""What a bisect costs and whether its answer is right (issues 17 and 30), on the ``relay`` app's
20 steps with the deciding step planted (``bench/pipelines/relay.py``): forks to name it when the
flip is monotone, and over monotone and non-monotone relays alike, with the default budget,
whether the answer is right — the step named as the earliest is the planted one, a budget that
ran out says the planted step is among those not tried, ``monotone`` is never the wrong one."""

from __future__ import annotations

from typing import Any

from runs.bench.measure import figure

BISECT_STEPS = 20
BISECT_FORKS_GOAL = 6  # issue 17: bisect over a 20-step trajectory, ≤ 6 forks
# Non-monotone shapes (relay inputs): the last step reads the planted step directly, the steps
# between do not carry it ("direct"); a later step reads it and passes it on ("rejoin"); the
# steps between carry it, to nowhere ("skip").
SHAPES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("monotone", 1, {}),
    ("monotone", 10, {}),
    ("monotone", 20, {}),
    ("direct", 2, {"join": 20, "carry": False}),
    ("direct", 9, {"join": 20, "carry": False}),
    ("direct", 13, {"join": 20, "carry": False}),
    ("direct", 17, {"join": 20, "carry": False}),
    ("rejoin", 3, {"join": 8, "carry": False}),
    ("rejoin", 10, {"join": 14, "carry": False}),
    ("rejoin", 14, {"join": 18, "carry": False}),
    ("skip", 4, {"join": 12}),
    ("skip", 11, {"join": 19}),
)


def bisect_figures() -> list[dict]:
    """Both figures (counts, not times: the same on every machine)."""
    return [named_figure(), right_figure()]


def _runs(planted: int, **shape: Any) -> tuple[Any, Any]:
    from runs.engine.execution.new_runs import create_run
    from runs.engine.execution.runner import execute_run

    good, bad = (
        execute_run(
            create_run("relay", {"seed": seed, "planted": planted, **shape}, from_text=False).pk
        )
        for seed in (1, 2)
    )
    return good, bad


def _verdict():
    from runs.engine.analysis.outcomes import Outcome

    return Outcome("verdict", f"s{BISECT_STEPS}.v{BISECT_STEPS}.verdict")


def named_figure() -> dict:
    """Forks the binary search and its confirmation take to name the planted step of a
    monotone relay (``Result.searched``; the search then checks the answer with what is left of
    the budget), the most over the 20 places it can be planted, with a budget of 6 (issue 17's
    goal), against ⌈log₂ 20⌉ = 5 for a bare binary search."""
    from runs.engine.run_sets.bisect import bisect

    counts = []
    for planted in range(1, BISECT_STEPS + 1):
        good, bad = _runs(planted)
        result = bisect(good, bad, _verdict(), budget=BISECT_FORKS_GOAL)
        if result.step is None or result.step.node != f"s{planted:02d}":
            named = result.step.node if result.step else "nothing"
            raise RuntimeError(f"bisect named {named}, planted s{planted:02d}")
        counts.append(result.searched if result.searched is not None else len(result.forks))
    return {
        **figure(
            "bisect over a 20-step trajectory: forks to name the planted step "
            f"(monotone, budget {BISECT_FORKS_GOAL}; the most over every planted step)",
            max(counts),
            None,
            BISECT_FORKS_GOAL,
            unit=" forks",
        ),
        "note": f"forks per planted step 1–20: {counts}; mean {sum(counts) / len(counts):.2f}; "
        "a bare binary search needs ⌈log₂ 20⌉ = 5",
    }


def right_figure() -> dict:
    """Over monotone and non-monotone 20-step relays, with the default budget: the share of
    answers that are right. Right: the step named as the earliest (``exact``) is the planted
    one, or, when the budget ran out before every earlier step was tried, the planted step is
    the one named or among the untried; and ``monotone`` is the truth or unknown (null)."""
    from runs.engine.run_sets.bisect import bisect

    right, exact, spent, budget, shown = 0, {}, [], 0, {True: 0, False: 0, None: 0}
    for shape, planted, inputs in SHAPES:
        good, bad = _runs(planted, **inputs)
        result = bisect(good, bad, _verdict())
        step = f"s{planted:02d}"
        named = result.step.node if result.step else None
        if result.exact:
            ok = named == step
        else:
            ok = step == named or step in {c.node for c in result.unknown}
        ok = ok and result.monotone in (None, shape == "monotone")
        right += ok
        exact[shape] = exact.get(shape, 0) + (result.exact and named == step)
        spent.append(len(result.forks))
        budget = result.budget
        shown[result.monotone] += 1
    cases = len(SHAPES)
    counted = {s: sum(1 for shape, _, _ in SHAPES if shape == s) for s in exact}
    named_exactly = ", ".join(f"{shape} {exact[shape]}/{counted[shape]}" for shape in exact)
    return {
        "figure": f"bisect over 20-step relays, monotone and not ({cases} planted steps, "
        f"default budget): answers right",
        "value": round(right / cases, 6),
        "anchor": None,
        "ratio": round(right / cases, 3),
        "goal": "≥ 1 (share)",
        "pass": right == cases,
        "note": f"{right} of {cases} right; planted step named exactly: {named_exactly} (the "
        f"rest: the budget ran out with it among the steps not tried); forks spent: most "
        f"{max(spent)}, mean {sum(spent) / cases:.1f}, of a budget of {budget}; monotone shown "
        f"true {shown[True]}, false {shown[False]}, unknown {shown[None]}",
    }
