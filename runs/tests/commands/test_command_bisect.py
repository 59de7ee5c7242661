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

    data = json.loads(bisect_command(str(good.pk), str(bad.pk), "--outcome", "verdict", "--json"))

    assert data["step"] == {"node": "s07", "sequence_id": 6}
    assert data["monotone"] is True
    assert {leaf["path"] for leaf in data["leaves"]} == {"v07.noise", "v07.verdict"}
    assert len(data["forks"]) <= 4
    assert set(Run.objects.filter(parent=bad).values_list("pk", flat=True)) == set(data["forks"])


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
