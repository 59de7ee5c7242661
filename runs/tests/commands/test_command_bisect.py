"""``rewind_bisect GOOD BAD --outcome NAME [--json]`` (issue 17, item 3): the finished bisect,
forks made in the command's process; bad input is one line and a non-zero exit."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run
from runs.tests.helpers.bisect_runs import apps, relay_runs  # noqa: F401 — the fixture, shared


def bisect_command(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_bisect", *args, stdout=out)
    return out.getvalue()


def test_json_prints_the_contract_object(apps):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    data = json.loads(
        bisect_command(
            str(good.pk), str(bad.pk), "--outcome", "verdict", "--budget", "12", "--json"
        )
    )

    assert data["step"] == {"node": "s07", "sequence_id": 6}
    assert data["monotone"] is True
    assert {leaf["path"] for leaf in data["leaves"]} == {"v07.noise", "v07.verdict"}
    assert len(data["forks"]) == data["spent"] == 11  # every step but s12 (by construction)
    assert set(Run.objects.filter(parent=bad).values_list("pk", flat=True)) == set(data["forks"])
    assert data["no_single_step"] is False and data["together"] is None and data["pairs"] == []


def test_the_default_spends_a_binary_search_and_says_which_budget_checks_every_step(
    apps,  # noqa: F811
):
    good, bad = relay_runs("relay12", 7)

    data = json.loads(bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict", "--json"))

    assert data["budget"] == 6 and data["spent"] == 6  # ⌈log₂ 12⌉ + 2
    assert Run.objects.filter(parent=bad).count() == 6
    assert data["step"] == {"node": "s07", "sequence_id": 6} and data["verified"]["value"] == "pass"
    assert data["exact"] is False and data["monotone"] is None  # unknown, not assumed
    assert data["unknown"] and data["budget_for_the_rest"] == 6 + len(data["unknown"])
    assert data["no_single_step"] is False

    text = bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict")

    assert "forks: 6 of a budget of 6 over 12 differing steps" in text
    assert (
        f"--budget {data['budget_for_the_rest']} tries every step (the forks made are reused)"
        in (text)
    )


def test_text_names_the_step_the_leaves_and_each_fork(apps):  # noqa: F811
    good, bad = relay_runs("relay_skip", 3)

    text = bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict")

    assert f"verdict: run {good.pk} pass, run {bad.pk} fail" in text
    assert "step: s03 (step 2)" in text
    assert "v03.verdict: pass (good) / fail (bad)" in text
    assert "s04 (step 3): no flip → fail (fork " in text
    assert "monotone: no — not monotone: swapping s03 (step 2) flips verdict" in text


@pytest.mark.parametrize(
    ("outcome", "message"),
    [("nope", "pipeline relay12 has no outcome 'nope'; its outcomes: verdict")],
)
def test_an_unknown_outcome_is_one_line(apps, outcome, message):  # noqa: F811
    good, bad = relay_runs("relay12", 7)
    with pytest.raises(CommandError, match=message) as caught:
        bisect_command(str(good.pk), str(bad.pk), "--outcome", outcome)
    assert "\n" not in str(caught.value)


def test_runs_of_different_pipelines_are_one_line(apps, research_run):  # noqa: F811
    good, _ = relay_runs("relay12", 7)
    with pytest.raises(CommandError, match="different pipelines") as caught:
        bisect_command(str(good.pk), str(research_run.pk), "--outcome", "verdict")
    assert "\n" not in str(caught.value)


def test_runs_that_agree_are_one_line_and_make_nothing(apps):  # noqa: F811
    good, _ = relay_runs("relay12", 7)
    other, _ = relay_runs("relay12", 7)
    before = Run.objects.count()
    with pytest.raises(CommandError, match="nothing to bisect"):
        bisect_command(str(good.pk), str(other.pk), "--outcome", "verdict")
    assert Run.objects.count() == before


def test_an_unknown_run_is_one_line(db):
    with pytest.raises(CommandError, match="no run 999"):
        bisect_command("999", "998", "--outcome", "x")


def test_the_outcome_is_required(db):
    with pytest.raises(CommandError, match="--outcome"):
        bisect_command("1", "2")


def test_json_carries_the_verification_the_budget_and_what_is_unknown(apps):  # noqa: F811
    """Issue 30: s12 reads s03 directly; with 5 forks the earlier steps are not all tried."""
    good, bad = relay_runs("relay12", 3, join=12, carry=False)

    data = json.loads(
        bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict", "--budget", "5", "--json")
    )

    assert data["budget"] == 5 and data["spent"] == len(data["forks"]) == 5
    assert data["step"] == {"node": "s12", "sequence_id": 11}
    assert data["verified"]["forks"] and data["verified"]["value"] == "pass"
    assert data["exact"] is False and data["monotone"] is None
    assert {"node": "s03", "sequence_id": 2} in data["unknown"]
    assert data["by_construction"] == {"node": "s12", "sequence_id": 11}
    assert data["budget_for_the_rest"] == 5 + len(data["unknown"])

    data = json.loads(
        bisect_command(
            str(good.pk), str(bad.pk), "--outcome", "verdict", "--budget", "12", "--json"
        )
    )

    assert data["step"] == {"node": "s03", "sequence_id": 2}
    assert data["exact"] is True and data["monotone"] is False and data["unknown"] == []
    assert [d["node"] for d in data["decisive"]] == ["s03"]
    fork = Run.objects.get(pk=data["verified"]["forks"][-1])
    assert (fork.parent_id, fork.fork_node) == (bad.pk, "s03")


def test_text_says_what_is_verified_and_what_the_budget_left(apps):  # noqa: F811
    good, bad = relay_runs("relay12", 3, join=12, carry=False)

    text = bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict", "--budget", "3")

    assert "step: none confirmed to flip verdict" in text
    assert "forks: 3 of a budget of 3 over 12 differing steps" in text
    assert "decisive (each swap alone flips it): none found" in text
    assert "monotone: unknown — no step tried flips verdict; 9 of 12 differing steps" in text
    assert "not tried (budget 3 spent): s01 (step 0), s02 (step 1), s03 (step 2)," in text

    text = bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict", "--budget", "12")

    assert "step: s03 (step 2) — swapping run" in text and "alone into run" in text
    assert "decisive (each swap alone flips it): s03 (step 2) (fork " in text
    assert "; s12 (step 11) (the step it reads: by construction)" in text
    assert "monotone: no — not monotone: swapping s03 (step 2) flips verdict" in text
    assert "not tried" not in text and "tries every step" not in text


def test_a_budget_below_one_is_one_line(apps):  # noqa: F811
    good, bad = relay_runs("relay12", 7)
    with pytest.raises(CommandError, match="a budget of 0 forks: at least 1") as caught:
        bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict", "--budget", "0")
    assert "\n" not in str(caught.value)


def test_json_and_text_say_no_single_step_decides_it_and_name_the_pair(apps):  # noqa: F811
    """Issue 43: the ``both`` app's verdict is ``x and y``; only the two swapped together flip it."""
    from runs.tests.helpers.bisect_runs import both_runs

    good, bad = both_runs()
    args = (str(good.pk), str(bad.pk), "--outcome", "verdict")

    text = bisect_command(*args)  # the default, 4 forks: every step alone, no pair yet

    assert "no single step decides verdict; no pair of steps tried together within the " in text
    assert "--budget 7 tries every pair (the forks made are reused)" in text

    data = json.loads(bisect_command(*args, "--budget", "7", "--json"))

    assert data["no_single_step"] is True
    assert data["together"] == [{"node": "x", "sequence_id": 0}, {"node": "y", "sequence_id": 2}]
    assert [[s["node"] for s in p["steps"]] for p in data["pairs"]] == [["x", "w"], ["x", "y"]]
    assert [p["flips"] for p in data["pairs"]] == [False, True]
    assert data["pairs_untried"] == 0 and data["spent"] == 6 and data["budget"] == 7

    text = bisect_command(*args, "--budget", "7")
    x_fork, y_fork = data["pairs"][1]["forks"]

    assert (
        "no single step decides verdict: swapping x (step 0) and y (step 2) together flips it: "
        f"fork {y_fork}, made on top of fork {x_fork} (x alone) → pass"
    ) in text
    assert "  x (step 0) + w (step 1): no flip → fail (forks " in text
    assert f"  x (step 0) + y (step 2): flips → pass (forks {x_fork}, {y_fork}, reused)" in text
    assert "tries every" not in text
