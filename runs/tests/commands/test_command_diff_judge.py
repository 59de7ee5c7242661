"""``rewind_diff`` with a judge (``REWIND_JUDGE_MODEL``): a text the noise rule leaves
``uncertain`` is decided by the judge, named as its in ``--json`` (``by``: ``judge:<model>``)
and in the text; run again, it asks nothing (0 tokens) and prints the same verdicts. A command
is the operator's: not budgeted, its calls recorded as nobody's. The rule itself is planted
(``rule_says_uncertain``)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from runs.engine.analysis.noise import BEYOND, RULE, UNCERTAIN, WITHIN
from runs.models import JudgeCall, ProviderSettings, Run
from runs.tests.helpers.judged_runs import (
    BY,
    DIFFERENT_CANDIDATE,
    JUDGE_MODEL,
    PATH,
    RULE_WHY,
    SAME_CANDIDATE,
    STEP,
    judge_requests,
    judged_runs,
    rule_says_uncertain,  # noqa: F401 — the fixture, shared
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rule_says_uncertain")]


def rewind_diff(*args: Any) -> str:
    out = io.StringIO()
    call_command("rewind_diff", *map(str, args), stdout=out, stderr=io.StringIO())
    return out.getvalue()


def verdicts(a: Run, b: Run) -> list[dict[str, Any]]:
    return json.loads(rewind_diff(a.pk, b.pk, "--json"))["verdicts"]


@pytest.fixture
def judge_on(settings, serve_simulator):
    simulator = serve_simulator()
    settings.REWIND_JUDGE_MODEL = JUDGE_MODEL
    return simulator


def test_without_a_judge_the_verdict_is_the_rule_s(run_row, node_row, serve_simulator):
    simulator = serve_simulator()
    a, b = judged_runs(run_row, node_row, DIFFERENT_CANDIDATE)

    [verdict] = verdicts(a, b)

    assert (verdict["verdict"], verdict["why"], verdict["by"]) == (UNCERTAIN, RULE_WHY, RULE)
    assert simulator.requests == [] and not JudgeCall.objects.exists()


def test_json_names_the_judge_and_a_second_diff_asks_nothing(run_row, node_row, judge_on):
    a, b = judged_runs(run_row, node_row, DIFFERENT_CANDIDATE)

    first = verdicts(a, b)
    second = verdicts(a, b)

    assert (
        first
        == second
        == [
            {
                "node": STEP,
                "sequence_id": 0,
                "path": PATH,
                "verdict": BEYOND,
                "samples": 2,
                "distinct": 3,
                "why": f"judge ({JUDGE_MODEL}): words in no reference: c",
                "by": BY,
                "judge": JUDGE_MODEL,
            }
        ]
    )
    assert len(judge_requests(judge_on)) == 1
    call = JudgeCall.objects.get()  # the second diff spent 0 tokens: no second call
    assert call.created_by is None and call.total_tokens > 0


def test_the_text_marks_what_the_judge_decided(run_row, node_row, judge_on):
    a, b = judged_runs(run_row, node_row, SAME_CANDIDATE)

    text = rewind_diff(a.pk, b.pk)

    assert "0 uncertain, 0 no-samples, 1 decided by judge:judge-sim" in text
    assert (
        f"  {WITHIN:<12}  {STEP}  {PATH}  (judge ({JUDGE_MODEL}): every word of the candidate is "
        f"in the references)  [{BY}]"
    ) in text


def test_a_command_is_not_budgeted(run_row, node_row, judge_on):
    ProviderSettings.objects.create(pk=1, daily_tokens=1)
    a, b = judged_runs(run_row, node_row, DIFFERENT_CANDIDATE)

    [verdict] = verdicts(a, b)

    assert verdict["by"] == BY


def test_an_unparseable_answer_stays_uncertain(run_row, node_row, settings, serve_simulator):
    serve_simulator(garbage=True)
    settings.REWIND_JUDGE_MODEL = JUDGE_MODEL
    a, b = judged_runs(run_row, node_row, DIFFERENT_CANDIDATE)

    [verdict] = verdicts(a, b)

    assert (verdict["verdict"], verdict["why"], verdict["by"]) == (UNCERTAIN, RULE_WHY, RULE)
    assert not JudgeCall.objects.get().parsed


def test_a_judges_verdict_names_its_model_under_judge_as_the_contract_says():
    """DESIGN.md: each verdict carries ``judge`` when a judge decided it (and only then)."""
    from runs.engine.analysis.noise import Verdict

    judged = Verdict("n", 0, "p", "within-noise", 4, 3, "judge (m): same", by="judge:m")
    ruled = Verdict("n", 0, "p", "uncertain", 4, 3, "uncertain: …")

    assert judged.as_json()["judge"] == "m" and judged.as_json()["by"] == "judge:m"
    assert "judge" not in ruled.as_json() and ruled.as_json()["by"] == "rule"
