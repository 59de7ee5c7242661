"""Counterfactual bisect (issue 17, item 3): the earliest step of BAD whose output, swapped for
GOOD's by an ordinary fork, flips an outcome — named in O(log n) forks when the flip is
monotone, saying so when it is not (what verifies the answer: ``test_bisect_verified.py``).

Apps: ``runs/tests/helpers/bisect_apps.py`` — 12-step relays of ``runs/bench/pipelines/relay.py``
(the step ``planted`` decides the verdict from the seed, the steps after it pass it on; every
step's output differs between two seeds), ``relay_skip`` (step 6 reads step 3's verdict
directly: not monotone) and ``pair`` (a step that writes two keys). The demo ``research``
pipeline too.
"""

from __future__ import annotations

import pytest

from runs.engine.errors import BisectError
from runs.engine.execution.new_runs import create_run
from runs.engine.run_sets.bisect import bisect, replay
from runs.models import Run
from runs.tests.helpers import bisect_runs
from runs.tests.helpers.bisect_runs import completed, relay_runs

apps = bisect_runs.apps  # the fixture (helpers/bisect_runs.py), this module's own


def forks_made(before: int) -> int:
    return Run.objects.count() - before


EVERY_STEP = 12  # forks: a budget that tries every step of a 12-step relay (the page's offer)


@pytest.mark.parametrize("planted", [1, 4, 7, 12])
def test_it_finds_the_planted_step_of_a_12_step_run_and_tries_every_other_step(apps, planted):
    good, bad = relay_runs("relay12", planted)
    before = Run.objects.count()

    result = bisect(good, bad, "verdict", budget=EVERY_STEP)

    assert result.step.node == f"s{planted:02d}"
    assert result.monotone is True
    assert len(result.plan.candidates) == 12  # every step's output differs
    # 12 forks try them all (what the default's answer offers): s12, the step the outcome
    # reads, only when nothing before it flips (it flips by construction).
    assert result.budget == 12
    assert len(result.forks) == (12 if planted == 12 else 11)
    assert forks_made(before) == len(result.forks)
    # The reported step's swap flips it, the step before it (if any) does not.
    probes = {p.candidate.node: p.flips for p in result.probes}
    assert probes[f"s{planted:02d}"] is True
    if planted > 1:
        assert probes[f"s{planted - 1:02d}"] is False


def test_every_fork_is_an_ordinary_fork_of_bad_swapping_goods_writes(apps):
    good, bad = relay_runs("relay12", 7)
    result = bisect(good, bad, "verdict")
    for probe in result.probes:
        (pk,) = probe.forks
        fork = Run.objects.get(pk=pk)
        step = probe.candidate
        assert fork.parent_id == bad.pk
        assert (fork.fork_node, fork.fork_sequence_id) == (step.node, step.sequence_id)
        key = f"v{step.node[1:]}"
        assert fork.override == {
            "node": step.node,
            "field": f"writes.{key}",
            "value": good.nodes.get(name=step.node).output[key],
        }


def test_a_second_bisect_reuses_every_fork_and_makes_none(apps):
    good, bad = relay_runs("relay12", 7)
    first = bisect(good, bad, "verdict")
    before = Run.objects.count()

    again = bisect(good, bad, "verdict")

    assert forks_made(before) == 0
    assert again.forks == first.forks
    assert all(p.reused for p in again.probes)
    assert not any(p.reused for p in first.probes)


def test_replay_makes_no_fork_and_gives_the_result_once_the_forks_exist(apps):
    good, bad = relay_runs("relay12", 7)
    waiting = replay(good, bad, "verdict")
    assert waiting.step is None and waiting.pending is not None  # nothing made yet
    assert Run.objects.count() == 2
    made = bisect(good, bad, "verdict")

    shown = replay(good, bad, "verdict")

    assert shown.as_json() == {**made.as_json(), "probes": shown.as_json()["probes"]}
    assert [p["forks"] for p in shown.as_json()["probes"]] == [
        p["forks"] for p in made.as_json()["probes"]
    ]


def test_it_reports_a_flip_the_next_step_does_not_keep_as_not_monotone(apps):
    good, bad = relay_runs("relay_skip", 3)

    result = bisect(good, bad, "verdict")

    assert result.monotone is False
    assert "not monotone: swapping s03 (step 2) flips verdict but swapping s04 (step 3)" in (
        result.why
    )
    assert result.step.node == "s03"
    # Exact all the same: every step before the one reported was tried and does not flip.
    probes = {p.candidate.node: p.flips for p in result.probes}
    assert probes["s01"] is False and probes["s02"] is False and probes["s04"] is False


def test_the_demo_names_analyse_for_a_fork_that_changed_the_region(research_run, run_fork):
    bad = run_fork(research_run, "analyse", "args.region", "east")
    good_best = research_run.nodes.get(name="analyse").output["best_group"]
    assert bad.nodes.get(name="analyse").output["best_group"] != good_best

    result = bisect(research_run, bad, "best_group")

    assert result.step.node == "analyse"
    assert result.monotone is True
    (fork_id,) = result.forks  # analyse is the only differing step up to the one best_group reads
    fork = Run.objects.get(pk=fork_id)
    assert fork.status == Run.Status.COMPLETED
    assert fork.override["field"] == "output"
    assert fork.nodes.get(name="analyse").output["best_group"] == good_best
    assert {
        "path": "best_group",
        "a": good_best,
        "b": bad.nodes.get(name="analyse").output["best_group"],
    } in result.as_json()["leaves"]


def test_a_step_that_wrote_two_differing_keys_is_swapped_by_a_fork_of_a_fork(apps):
    good = completed(create_run("pair", {"seed": 1}, from_text=False))  # a=1, b=3: pass
    bad = completed(create_run("pair", {"seed": 2}, from_text=False))  # a=2, b=4: fail

    result = bisect(good, bad, "verdict")

    assert result.step.node == "pick"
    first, second = (Run.objects.get(pk=pk) for pk in result.forks)
    assert first.parent_id == bad.pk and second.parent_id == first.pk
    assert (first.override["field"], second.override["field"]) == ("writes.a", "writes.b")
    assert second.nodes.get(name="pick").output == {"a": 1, "b": 3}


def test_the_json_is_the_contract(apps):
    good, bad = relay_runs("relay12", 7)

    data = bisect(good, bad, "verdict", budget=EVERY_STEP).as_json()

    assert {"step", "leaves", "forks", "monotone"} <= set(data)
    assert data["step"] == {"node": "s07", "sequence_id": 6}
    # In the order the step wrote them (a step's output keeps its dict order).
    assert data["leaves"] == [
        {"path": "v07.verdict", "a": "pass", "b": "fail"},
        {"path": "v07.noise", "a": 1007, "b": 2007},
    ]
    assert all(isinstance(pk, int) for pk in data["forks"]) and data["forks"]
    assert data["monotone"] is True
    assert data["outcome"] == {"name": "verdict", "good": "pass", "bad": "fail"}


def test_runs_of_different_pipelines_are_refused(apps, research_run):
    good, _ = relay_runs("relay12", 7)
    with pytest.raises(BisectError, match="different pipelines"):
        bisect(good, research_run, "verdict")


def test_runs_that_agree_on_the_outcome_are_refused(apps):
    good = completed(create_run("relay12", {"seed": 1, "planted": 7}, from_text=False))
    same = completed(create_run("relay12", {"seed": 3, "planted": 7}, from_text=False))
    before = Run.objects.count()
    with pytest.raises(BisectError, match=r"agree on verdict \(pass\): nothing to bisect"):
        bisect(good, same, "verdict")
    assert forks_made(before) == 0


def test_an_unknown_outcome_is_refused_naming_the_ones_there_are(apps):
    good, bad = relay_runs("relay12", 7)
    with pytest.raises(BisectError, match="has no outcome 'nope'; its outcomes: verdict"):
        bisect(good, bad, "nope")


def test_the_bench_figures_name_the_planted_step_in_at_most_6_forks_and_answer_right(db):
    from runs.bench.bisect import SHAPES, bisect_figures

    named, right = bisect_figures()

    assert named["goal"] == "≤ 6 forks"
    assert named["pass"] is True and named["value"] <= 6
    assert len(json_list(named["note"])) == 20
    # Monotone and non-monotone relays: every answer right (the planted step named, or said
    # to be among the steps a budget that ran out left untried).
    assert right["goal"] == "≥ 1 (share)"
    assert right["pass"] is True and right["value"] == 1
    assert right["note"].startswith(f"{len(SHAPES)} of {len(SHAPES)} right")
    # The default budget: ⌈log₂ 20⌉ + 2 = 7 forks.
    assert "monotone shown true" in right["note"] and "of a budget of 7" in right["note"]


def json_list(note: str) -> list[int]:
    import json

    return json.loads(note.split(": ", 1)[1].split("; ")[0])
