"""The compare page with a judge (``REWIND_JUDGE_MODEL``): a text the noise rule leaves
``uncertain`` is put to the judge, whose verdict is shown as the judge's (a ``judge`` badge, its
reason as the why); shown again, the page reads the judge's answer from the cache (no provider
request, 0 tokens, the same verdicts). The judge's live calls are the user's spend: they count
against the daily budget, and a call the budget cannot pay for is not made (the field stays
uncertain, saying so). Off by default. The rule itself is planted (``rule_says_uncertain``)."""

from __future__ import annotations

import pytest

from runs.budgets import spent_today
from runs.models import JudgeCall, ProviderSettings, Run
from runs.tests.helpers.judged_runs import (
    BY,
    DIFFERENT_CANDIDATE,
    JUDGE_MODEL,
    RULE_WHY,
    SAME_CANDIDATE,
    judge_requests,
    judged_runs,
    rule_says_uncertain,  # noqa: F401 — the fixture, shared
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rule_says_uncertain")]

HTMX = {"HX-Request": "true"}
BADGE = '<span class="badge judge" title="decided by judge:judge-sim, not by the rule">judge</span>'


def url(a: Run, b: Run) -> str:
    return f"/compare/{a.pk}/{b.pk}/"


def verdicts_section(text: str) -> str:
    start = text.index('<section class="noise-verdicts"')
    return text[start : text.index("</section>", start)]


@pytest.fixture
def judge_on(settings, serve_simulator):
    """A judge configured, the provider the simulator on loopback (returned: its requests)."""
    simulator = serve_simulator()
    settings.REWIND_JUDGE_MODEL = JUDGE_MODEL
    return simulator


@pytest.fixture
def runs(run_row, node_row) -> tuple[Run, Run]:
    return judged_runs(run_row, node_row, DIFFERENT_CANDIDATE)


def budget(tokens: int | None) -> None:
    ProviderSettings.objects.update_or_create(pk=1, defaults={"daily_tokens": tokens})


def test_anonymous_user_is_sent_to_login(client, runs, judge_on):
    response = client.get(url(*runs))

    assert response.status_code == 302
    assert judge_requests(judge_on) == []


def test_without_a_judge_the_rule_s_uncertain_stands(signed_in, runs, serve_simulator):
    simulator = serve_simulator()

    section = verdicts_section(signed_in.get(url(*runs)).content.decode())

    assert '<span class="badge noise-uncertain">uncertain</span>' in section
    assert RULE_WHY in section
    assert "badge judge" not in section and "A judge is configured" not in section
    assert simulator.requests == [] and not JudgeCall.objects.exists()


def test_the_judge_decides_an_uncertain_text_and_is_shown_as_the_judge(signed_in, runs, judge_on):
    section = verdicts_section(signed_in.get(url(*runs)).content.decode())

    assert "uncertain</span>" not in section
    assert '<span class="badge noise-beyond-noise live">beyond-noise</span>' in section
    assert BADGE in section
    assert f'<span class="why">judge ({JUDGE_MODEL}): words in no reference: c</span>' in section
    assert (
        f"each text the rule leaves <strong>uncertain</strong> is put to <strong>{JUDGE_MODEL}"
        in (section)
    )
    assert len(judge_requests(judge_on)) == 1


def test_shown_again_the_page_asks_nothing_spends_nothing_and_says_the_same(
    signed_in, dev_user, runs, judge_on
):
    first = verdicts_section(signed_in.get(url(*runs)).content.decode())
    spent = spent_today(dev_user)

    second = verdicts_section(signed_in.get(url(*runs)).content.decode())
    fragment = verdicts_section(signed_in.get(url(*runs), headers=HTMX).content.decode())

    assert second == first == fragment
    assert len(judge_requests(judge_on)) == 1
    assert JudgeCall.objects.count() == 1
    assert spent_today(dev_user) == spent  # the cache's answers cost 0 tokens


def test_a_rewording_in_the_references_words_is_within_noise_by_the_judge(
    signed_in, run_row, node_row, judge_on
):
    a, b = judged_runs(run_row, node_row, SAME_CANDIDATE)

    section = verdicts_section(signed_in.get(url(a, b)).content.decode())

    assert '<span class="badge noise-within-noise">within-noise</span>' in section
    assert BADGE in section


# --- the budget ---------------------------------------------------------------------------------


def test_the_judge_s_tokens_count_against_the_user_s_budget(signed_in, dev_user, runs, judge_on):
    budget(5000)

    signed_in.get(url(*runs))

    call = JudgeCall.objects.get()
    assert call.created_by == dev_user and call.total_tokens > 0
    assert spent_today(dev_user).tokens == call.total_tokens
    settings_page = signed_in.get("/settings/").content.decode()
    assert f"<dt>you spent today</dt><dd>{call.total_tokens:,} tokens" in settings_page


def test_a_question_over_the_budget_is_not_asked_and_the_field_says_why(
    signed_in, dev_user, run_row, node_row, runs, judge_on
):
    signed_in.get(url(*runs))  # the judge's first call: its tokens are spent
    budget(JudgeCall.objects.get().total_tokens)  # … and now nothing is left
    a, b = judged_runs(run_row, node_row, SAME_CANDIDATE)

    section = verdicts_section(signed_in.get(url(a, b)).content.decode())

    assert '<span class="badge noise-uncertain">uncertain</span>' in section
    assert 'class="badge judge" title=' not in section  # no field is the judge's
    assert f"{RULE_WHY}; the judge ({JUDGE_MODEL}) was not asked: its question would use about" in (
        section
    )
    assert "0 of your" in section
    assert len(judge_requests(judge_on)) == 1  # only the first
    # an answer already kept is free, whatever is left
    assert BADGE in verdicts_section(signed_in.get(url(*runs)).content.decode())


def test_staff_are_not_limited(staff_client, staff_user, runs, judge_on):
    budget(1)

    section = verdicts_section(staff_client.get(url(*runs)).content.decode())

    assert BADGE in section
    assert JudgeCall.objects.get().created_by == staff_user


def test_the_verdict_names_the_judge_in_the_diff_the_page_reads(signed_in, runs, judge_on):
    response = signed_in.get(url(*runs))

    [verdict] = response.context["result"].verdicts
    assert verdict["by"] == BY
    assert response.context["judge"].model == JUDGE_MODEL
