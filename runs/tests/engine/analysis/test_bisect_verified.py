"""Bisect verifies its answer (issue 30, item 1): the step it names is confirmed by a fork that
swaps that step alone; ``monotone`` is what the probes show (true, false, or unknown); when the
flip is not monotone it names every step whose swap alone flips the outcome, within a fork
budget it states, and says what it did not try when the budget ran out.

The shapes that break a bare binary search, planted on the 12-step relay
(``bench/pipelines/relay.py``, run inputs ``join`` and ``carry``): the planted step decides the
verdict; the steps after it do not carry its decision (``carry`` false) or carry it nowhere;
the last step reads it directly (``join`` 12), or a later step does and passes it on to the
end (``join`` < 12). The search's probes fall on steps that do not flip, so a bisect that
trusts them names the last step (which flips by construction) or the step that rejoins.
"""

from __future__ import annotations

import pytest

from runs.engine.analysis.bisect import default_budget, plan_bisect
from runs.engine.errors import BisectError
from runs.engine.run_sets.bisect import bisect, replay
from runs.models import Run
from runs.tests.helpers import bisect_runs
from runs.tests.helpers.bisect_runs import relay_runs

apps = bisect_runs.apps  # the fixture (helpers/bisect_runs.py), this module's own


def step(k: int) -> str:
    return f"s{k:02d}"


def verdict_of(run_id: int) -> str:
    """The verdict a run ends with: the relay's last step's."""
    return Run.objects.get(pk=run_id).nodes.get(name="s12").output["v12"]["verdict"]


EVERY_STEP = 12  # forks: a budget that tries every step of a 12-step relay (the page's offer)


def nodes(items) -> list[str]:
    return [item.node if hasattr(item, "node") else item.candidate.node for item in items]


# (planted, join, carry) and the steps whose swap alone flips the verdict, s12 aside (it is the
# step the outcome reads: it flips by construction).
SHAPES = [
    pytest.param(3, 12, False, [3], id="s12-reads-s03-directly"),
    pytest.param(6, 12, False, [6], id="s12-reads-s06-directly"),
    pytest.param(9, 12, True, [9], id="s12-reads-s09-directly-the-steps-between-carry-it-nowhere"),
    pytest.param(2, 8, False, [2, 8, 9, 10, 11], id="s08-reads-s02-and-rejoins"),
    pytest.param(5, 10, False, [5, 10, 11], id="s10-reads-s05-and-rejoins"),
    pytest.param(4, 7, True, [4, 7, 8, 9, 10, 11], id="s07-reads-s04-and-rejoins"),
]


@pytest.mark.parametrize(("planted", "join", "carry", "decisive"), SHAPES)
def test_it_names_the_planted_step_confirmed_by_a_fork_of_that_step_alone(
    apps, planted, join, carry, decisive
):
    good, bad = relay_runs("relay12", planted, join=join, carry=carry)

    result = bisect(good, bad, "verdict", budget=EVERY_STEP)

    assert result.step.node == step(planted)
    assert result.monotone is False
    assert "not monotone" in result.why
    # Confirmed: a fork of BAD that swaps GOOD's output at that step and nowhere else, whose
    # verdict is GOOD's.
    confirmed = result.verified
    assert confirmed.candidate == result.step and confirmed.flips is True
    (pk,) = confirmed.forks
    fork = Run.objects.get(pk=pk)
    assert fork.parent_id == bad.pk
    assert (fork.fork_node, fork.override["field"]) == (step(planted), f"writes.v{planted:02d}")
    assert verdict_of(pk) == "pass" and verdict_of(bad.pk) == "fail"
    # Every step whose swap alone flips it, each by a fork of its own; the rest tried: none.
    assert nodes(result.decisive) == [step(k) for k in decisive]
    assert all(probe.flips and verdict_of(probe.forks[-1]) == "pass" for probe in result.decisive)
    assert result.exact is True and result.unknown == []
    assert result.by_construction.node == "s12"
    assert len(result.forks) == 11 <= result.budget  # every step but s12, each once


@pytest.mark.parametrize("planted", [1, 4, 7, 12])
def test_a_monotone_relay_is_named_within_the_old_bound_and_monotone_only_once_shown(apps, planted):
    good, bad = relay_runs("relay12", planted)

    quick = bisect(good, bad, "verdict", budget=4)  # issue 17's bound: ⌈log₂ 12⌉ forks

    assert quick.step.node == step(planted)
    assert quick.verified.flips is True
    assert len(quick.forks) <= 4 and quick.budget == 4
    assert quick.monotone is None  # not every step was tried: unknown, not assumed
    assert quick.unknown and "budget" in quick.why
    tried = {p.candidate.node for p in quick.probes}
    assert set(nodes(quick.unknown)) | tried | {"s12"} == {step(k) for k in range(1, 13)}

    full = bisect(good, bad, "verdict", budget=EVERY_STEP)  # every step tried

    assert full.step.node == step(planted)
    assert full.monotone is True and full.exact is True and full.unknown == []
    assert nodes(full.decisive) == [step(k) for k in range(planted, 12)] or planted == 12
    assert len(full.forks) == (12 if planted == 12 else 11) <= full.budget
    assert set(quick.forks) <= set(full.forks)  # reused: the search begins the same way
    assert full.made == len(full.forks) - len(quick.forks)


def test_a_budget_too_small_says_what_is_still_unknown(apps):
    good, bad = relay_runs("relay12", 3, join=12, carry=False)

    none_yet = bisect(good, bad, "verdict", budget=3)

    assert none_yet.step is None and none_yet.verified is None
    assert len(none_yet.forks) == 3 and none_yet.monotone is None
    assert "s03" in nodes(none_yet.unknown)
    assert "budget of 3 forks" in none_yet.why

    some = bisect(good, bad, "verdict", budget=5)

    # s12 confirmed by a fork, but not named as the earliest: earlier steps were not tried.
    assert some.step.node == "s12" and some.verified.flips is True
    assert some.exact is False and some.monotone is None
    assert "s03" in nodes(some.unknown) and len(some.forks) == 5
    assert some.as_json()["unknown"][0] == {"node": "s02", "sequence_id": 1}

    before = Run.objects.count()
    # More budget: the forks made so far are reused.
    whole = bisect(good, bad, "verdict", budget=EVERY_STEP)

    assert whole.step.node == "s03" and whole.monotone is False
    assert Run.objects.count() - before == whole.made
    # All but s12's: with a budget for every earlier step, s12 needs no fork (s03 flips).
    assert set(whole.forks) == set(some.forks) - set(some.verified.forks) | set(
        pk for p in whole.probes if not p.reused for pk in p.forks
    )


def test_the_default_budget_is_a_binary_search_and_its_verification():
    assert default_budget(12) == 4 + 2  # candidates: ⌈log₂ 12⌉ = 4
    assert default_budget(16) == 4 + 2
    assert default_budget(17) == 5 + 2
    assert default_budget(1000) == 10 + 2  # ⌈log₂ 1000⌉ = 10
    assert default_budget(10, 2) == (4 + 2) * 2  # steps whose swaps take up to 2 forks each
    assert default_budget(1) == 2  # nothing to search: the step and its check


def test_a_budget_below_one_fork_is_refused(apps):
    good, bad = relay_runs("relay12", 7)
    with pytest.raises(BisectError, match="budget of 0 forks: at least 1"):
        bisect(good, bad, "verdict", budget=0)


@pytest.fixture
def final_state(apps):
    """``final``: the same verdict read from the final state, not from the step s12."""
    outcomes = apps.REWIND_OUTCOMES
    apps.REWIND_OUTCOMES = {
        **outcomes,
        "relay12": [*outcomes["relay12"], {"name": "final", "path": "state.v12.verdict"}],
    }
    return apps


@pytest.mark.parametrize("planted", [4, 7, 11])
def test_an_outcome_of_the_final_state_does_not_spend_its_first_probe_on_the_last_step(
    final_state, planted
):
    good, bad = relay_runs("relay12", planted)
    plan = plan_bisect(good, bad, "final")
    assert plan.last_by_construction is False and plan.candidates[-1].node == "s12"

    quick = bisect(good, bad, "final", budget=4)

    assert quick.probes[0].candidate.node != "s12"
    assert quick.step.node == step(planted) and quick.verified.flips is True
    assert quick.by_construction is None
    full = bisect(good, bad, "final", budget=EVERY_STEP)
    assert full.step.node == step(planted) and full.monotone is True
    assert len(full.forks) == 12  # s12 as well: nothing says it flips without a fork


def test_replay_shows_the_verified_answer_the_forks_made_without_making_one(apps):
    good, bad = relay_runs("relay12", 5, join=10, carry=False)
    made = bisect(good, bad, "verdict", budget=6)
    before = Run.objects.count()

    shown = replay(good, bad, "verdict", budget=6)

    assert Run.objects.count() == before
    assert shown.pending is None
    assert shown.as_json() == {**made.as_json(), "probes": shown.as_json()["probes"]}
    waiting = replay(good, bad, "verdict", budget=EVERY_STEP)  # forks not made yet
    assert waiting.pending is not None and waiting.as_json()["pending"] is not None


def test_the_json_carries_the_verification(apps):
    good, bad = relay_runs("relay12", 6, join=12, carry=False)

    data = bisect(good, bad, "verdict", budget=EVERY_STEP).as_json()

    assert data["step"] == {"node": "s06", "sequence_id": 5}
    assert data["monotone"] is False
    (pk,) = data["verified"]["forks"]
    assert data["verified"] == {
        "node": "s06", "sequence_id": 5, "forks": [pk], "value": "pass",
    }  # fmt: skip
    assert data["decisive"] == [data["verified"]]
    assert data["exact"] is True and data["unknown"] == []
    assert data["by_construction"] == {"node": "s12", "sequence_id": 11}
    assert data["budget"] == 12 and data["spent"] == len(data["forks"]) == 11
    assert {"step", "leaves", "forks", "monotone", "probes", "why", "candidates"} <= set(data)


@pytest.mark.parametrize("planted", [1, 2, 7, 8, 9, 12, 15, 16])
def test_the_default_names_and_verifies_a_16_step_monotone_flip_within_6_forks(apps, planted):
    """⌈log₂ 16⌉ + 2 = 6 forks, counted as the rows made (the old default spent 15)."""
    good, bad = relay_runs("relay16", planted)
    before = Run.objects.count()

    result = bisect(good, bad, "verdict")

    made = Run.objects.filter(pk__gt=max(good.pk, bad.pk))
    assert made.count() == Run.objects.count() - before == len(result.forks) <= 6
    assert set(made.values_list("parent_id", flat=True)) == {bad.pk}  # each a fork of BAD
    assert result.budget == 6 and result.searched <= 6
    # Named, and verified: its swap alone flips the verdict, the step before it does not.
    assert result.step.node == step(planted)
    confirming = Run.objects.get(pk=result.verified.forks[-1])
    assert result.verified.flips is True and confirming.fork_node == step(planted)
    assert confirming.nodes.get(name="s16").output["v16"]["verdict"] == "pass"
    alone = {p.candidate.node: p.flips for p in result.probes}
    if planted > 1:
        assert alone[step(planted - 1)] is False
    # Honest about the rest: not every step was tried, so monotone is unknown, and the answer
    # says what checks every step.
    assert result.monotone is None and result.unknown
    assert result.budget_for_the_rest == 6 + sum(c.cost for c in result.unknown)
    assert result.as_json()["budget_for_the_rest"] == result.budget_for_the_rest


def test_checking_every_step_of_a_16_step_run_reuses_the_defaults_forks(apps):
    good, bad = relay_runs("relay16", 9)
    quick = bisect(good, bad, "verdict")
    before = Run.objects.count()

    full = bisect(good, bad, "verdict", budget=quick.budget_for_the_rest)

    assert full.step.node == "s09" and full.exact is True and full.monotone is True
    assert full.unknown == [] and len(full.forks) == 15  # every step but s16 (by construction)
    assert set(quick.forks) <= set(full.forks)
    assert Run.objects.count() - before == full.made == 15 - 6
