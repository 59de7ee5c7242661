"""When no single step decides it (issue 43, item 5): an outcome that needs two steps' outputs
together flips on no single step's swap — the step the outcome reads aside, which flips by
construction — and bisect says so, then swaps pairs of steps together (a fork at the earlier
step, then a fork of it at the later one) within its budget, naming the pair that flips it.

App: ``both`` (``helpers/bisect_apps.py``): steps x, w, y, verdict; the verdict is ``x and y``
(seed 1: both true, "pass"; seed 2: both false, "fail"), w only noise. With ``three`` it also
needs w's: no pair flips it.
"""

from __future__ import annotations

from runs.engine.run_sets.bisect import bisect, replay
from runs.models import Run
from runs.tests.helpers import bisect_runs
from runs.tests.helpers.bisect_runs import both_runs

apps = bisect_runs.apps  # the fixture (helpers/bisect_runs.py), this module's own


def verdict_of(run_id: int) -> str:
    return Run.objects.get(pk=run_id).nodes.get(name="verdict").output["verdict"]


def names(pair) -> tuple[str, str]:
    return (pair.first.node, pair.second.node)


def test_the_default_says_no_single_step_decides_it_and_what_tries_the_pairs(apps):
    good, bad = both_runs()

    result = bisect(good, bad, "verdict")

    assert result.budget == 4  # ⌈log₂ 4⌉ + 2: every step tried alone, no fork left for a pair
    alone = {p.candidate.node: p.flips for p in result.probes}
    assert alone == {"x": False, "w": False, "y": False, "verdict": True}
    assert result.no_single_step is True
    assert result.step.node == "verdict" and result.by_construction.node == "verdict"
    assert result.together is None and result.pairs == []
    untried = [(a.node, b.node) for a, b in result.pairs_untried]
    assert untried == [("x", "w"), ("x", "y"), ("w", "y")]
    assert result.budget_for_the_rest == 4 + 3
    assert result.no_single_step_why == (
        "no single step decides verdict; no pair of steps tried together within the budget of "
        "4 forks (3 pairs to try)"
    )


def test_a_budget_for_the_pairs_names_the_two_steps_that_flip_it_together(apps):
    good, bad = both_runs()
    first = bisect(good, bad, "verdict")
    before = Run.objects.count()

    result = bisect(good, bad, "verdict", budget=first.budget_for_the_rest)

    assert result.no_single_step is True
    assert names(result.together) == ("x", "y")
    # Tried in trajectory order, stopping at the first pair that flips it.
    assert [(names(p), p.flips) for p in result.pairs] == [(("x", "w"), False), (("x", "y"), True)]
    assert result.no_single_step_why == (
        "no single step decides verdict: swapping x (step 0) and y (step 2) together flips it"
    )
    # The pair's fork is a fork of x's own probe at y: BAD with GOOD's x and GOOD's y.
    pair = result.together
    x_alone = next(p for p in result.probes if p.candidate.node == "x")
    assert pair.on_top_of == x_alone.forks[-1] and pair.added == 1
    fork = Run.objects.get(pk=pair.forks[-1])
    assert fork.parent_id == x_alone.forks[-1] and fork.fork_node == "y"
    assert fork.override["field"] == "writes.y" and fork.override["value"] is True
    assert fork.nodes.get(name="x").output == {"x": True}
    assert verdict_of(fork.pk) == "pass" and verdict_of(x_alone.forks[-1]) == "fail"
    # Forks: 4 reused from the default's, 2 made on top (one per pair tried).
    assert Run.objects.count() - before == result.made == 2
    assert result.spent == 6 and len(set(result.forks)) == 6


def test_the_json_says_no_single_step_and_names_the_pair(apps):
    good, bad = both_runs()

    data = bisect(good, bad, "verdict", budget=7).as_json()

    assert data["no_single_step"] is True
    assert data["together"] == [
        {"node": "x", "sequence_id": 0},
        {"node": "y", "sequence_id": 2},
    ]
    tried, flipped = data["pairs"]
    assert tried["steps"] == [{"node": "x", "sequence_id": 0}, {"node": "w", "sequence_id": 1}]
    assert tried["flips"] is False and tried["value"] == "fail"
    assert flipped["flips"] is True and flipped["value"] == "pass"
    assert flipped["on_top_of"] == flipped["forks"][0] and len(flipped["forks"]) == 2
    assert data["pairs_untried"] == 0
    assert "together flips it" in data["no_single_step_why"]
    # Every field there was before, unchanged in meaning.
    assert data["step"] == {"node": "verdict", "sequence_id": 3}
    assert data["exact"] is True and data["unknown"] == []
    assert data["by_construction"] == {"node": "verdict", "sequence_id": 3}


def test_when_no_pair_flips_it_it_says_which_pairs_it_tried(apps):
    good, bad = both_runs(three=True)

    result = bisect(good, bad, "verdict", budget=10)

    assert result.no_single_step is True and result.together is None
    assert [(names(p), p.flips) for p in result.pairs] == [
        (("x", "w"), False),
        (("x", "y"), False),
        (("w", "y"), False),
    ]
    assert result.pairs_untried == [] and result.spent == 7 <= result.budget
    assert result.no_single_step_why == (
        "no single step decides verdict; 3 pairs tried together, none flips it"
    )


def test_a_step_that_flips_it_alone_means_no_pair_is_tried(apps):
    from runs.tests.helpers.bisect_runs import relay_runs

    good, bad = relay_runs("relay12", 7)

    result = bisect(good, bad, "verdict", budget=40)

    assert result.no_single_step is False and result.pairs == []
    assert result.as_json()["together"] is None and result.spent == 11


def test_replay_shows_the_pairs_without_making_a_fork(apps):
    good, bad = both_runs()
    made = bisect(good, bad, "verdict", budget=7)
    before = Run.objects.count()

    shown = replay(good, bad, "verdict", budget=7)

    assert Run.objects.count() == before and shown.pending is None
    ignore = {"probes": None, "pairs": None}
    assert {**shown.as_json(), **ignore} == {**made.as_json(), **ignore}
    assert [p["forks"] for p in shown.as_json()["pairs"]] == [
        p["forks"] for p in made.as_json()["pairs"]
    ]
    waiting = replay(good, bad, "verdict", budget=20)  # more budget: no pair is untried…
    assert waiting.pending is None and names(waiting.together) == ("x", "y")  # …it stops there


def test_pairs_of_steps_whose_swap_moved_the_outcome_are_tried_first(apps):
    """The probes' evidence orders the pairs: a step whose swap alone changed the outcome from
    BAD's value (without reaching GOOD's) matters, so its pairs come before the others."""
    from dataclasses import replace

    from runs.engine.analysis.bisect import Probe, pair_order, plan_bisect

    good, bad = both_runs()
    plan = plan_bisect(good, bad, "verdict")
    x, w, y, _ = plan.candidates
    moved = replace(plan.bad_value, value="half")  # neither BAD's "fail" nor GOOD's "pass"
    known = {
        x.index: Probe(x, (1,), False, plan.bad_value, False),
        w.index: Probe(w, (2,), False, moved, False),
        y.index: Probe(y, (3,), False, moved, False),
    }

    order = [(a.node, b.node) for a, b in pair_order(plan, known)]

    assert order == [("w", "y"), ("x", "w"), ("x", "y")]  # both moved, then one, in order
    assert [(a.node, b.node) for a, b in pair_order(plan, {})] == [
        ("x", "w"), ("x", "y"), ("w", "y"),
    ]  # fmt: skip
