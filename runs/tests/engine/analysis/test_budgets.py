"""The daily budget below the views: what a request is projected to cost
(``runs.engine.analysis.projection``), what a user spent today, and which work is refused
(``runs.budgets``). The pages and the API are in ``test_budget_views.py``."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from runs.budgets import Budget, BudgetExceeded, Spend, admitted, refusal, spent_today, today
from runs.engine.analysis.projection import Estimate, NewRun, Projection, projected_cost
from runs.engine.forking.forks import make_fork, preview_fork, resolve_fork
from runs.engine.forking.replays import replay_request
from runs.engine.run_sets.samples import sample_request
from runs.models import Node, ProviderSettings, Run

pytestmark = pytest.mark.django_db


def live_tokens(run: Run) -> int:
    return sum(n.total_tokens for n in run.nodes.filter(cache_source=Node.CacheSource.LIVE))


def live_cost(run: Run) -> Decimal:
    return sum(n.cost_usd for n in run.nodes.filter(cache_source=Node.CacheSource.LIVE))


def work(tokens: int | None, usd: str | None = None, what: str = "this fork") -> Projection:
    return Projection(what, (Estimate(tokens, None if usd is None else Decimal(usd)),))


# --- projection ------------------------------------------------------------------------------


def test_a_fork_is_projected_at_the_tokens_of_its_dirty_set(research_run):
    fork = resolve_fork(research_run, "analyse", "args.cost_scale", "3")

    projection = projected_cost(fork)

    # critique, revise and compose read what analyse writes: they go live again
    expected = sum(
        n.total_tokens
        for n in research_run.nodes.filter(name__in=["critique", "revise", "compose"])
    )
    assert projection.tokens == preview_fork(fork)["projected_tokens"] == expected > 0
    assert projection.cost_usd == sum(
        n.cost_usd for n in research_run.nodes.filter(name__in=["critique", "revise", "compose"])
    )
    assert projection.what == "this fork"


def test_an_unchanged_replay_is_projected_at_zero(research_run):
    projection = projected_cost(replay_request(research_run))

    assert (projection.tokens, projection.cost_usd) == (0, Decimal(0))


def test_a_live_fork_re_executes_every_step_at_the_source_s_live_tokens(research_run):
    projection = projected_cost(resolve_fork(research_run, "0", live=True))

    assert projection.tokens == live_tokens(research_run) > 0
    assert projection.cost_usd == live_cost(research_run)


def test_k_samples_cost_k_times_one_live_fork(research_run):
    wanted = sample_request(research_run, 3)

    projection = projected_cost(*[wanted] * 3)

    assert len(projection.runs) == 3
    assert projection.tokens == 3 * live_tokens(research_run)
    assert projection.cost_usd == 3 * live_cost(research_run)


def test_a_new_run_is_estimated_from_the_latest_run_made_from_scratch(research_run, run_fork):
    run_fork(research_run, "analyse", "args.cost_scale", "3")  # a fork is not a fresh run

    projection = projected_cost(NewRun("research"))

    assert projection.tokens == live_tokens(research_run)
    assert projection.cost_usd == live_cost(research_run)
    assert projection.what == "this run"


def test_a_new_run_of_a_pipeline_with_no_history_has_no_estimate(research_run):
    projection = projected_cost(NewRun("loop"))

    assert projection.tokens is None and projection.cost_usd is None


def test_a_step_at_a_model_with_no_price_has_an_unknown_cost_not_zero(run_row, node_row):
    run = run_row()
    node_row(run, 0, total_tokens=500, cost_usd=None, model_answered="mystery-1")

    projection = projected_cost(resolve_fork(run, "0", live=True))

    assert projection.tokens == 500
    assert projection.cost_usd is None


# --- spent today -----------------------------------------------------------------------------


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("spender")


def test_spend_counts_only_the_live_steps_of_the_user_s_runs_of_today(
    user, django_user_model, run_row, node_row
):
    mine = run_row(created_by=user)
    node_row(mine, 0, total_tokens=300, cost_usd=Decimal("0.25"))
    node_row(mine, 1, total_tokens=900, cost_usd=Decimal("0"), cache_source="cache")
    node_row(mine, 2, total_tokens=700, cost_usd=Decimal("0"), cache_source="inherited")
    yesterday = run_row(created_by=user)
    node_row(yesterday, 0, total_tokens=1000, cost_usd=Decimal("1"))
    Run.objects.filter(pk=yesterday.pk).update(created_at=today()[0] - timedelta(seconds=1))
    other = run_row(created_by=django_user_model.objects.create_user("other"))
    node_row(other, 0, total_tokens=1000, cost_usd=Decimal("1"))
    node_row(run_row(), 0, total_tokens=1000, cost_usd=Decimal("1"))  # a command's run

    assert spent_today(user) == Spend(300, Decimal("0.25"), False)


def test_today_is_the_server_s_local_date(settings, user, run_row, node_row):
    settings.TIME_ZONE = "Pacific/Kiritimati"  # UTC+14: its midnight is not UTC's
    run = run_row(created_by=user)
    node_row(run, 0, total_tokens=300, cost_usd=Decimal("0.25"))
    start, end = today()

    assert start.utcoffset() == timedelta(hours=14) and end - start == timedelta(days=1)
    assert start <= timezone.now() < end
    Run.objects.filter(pk=run.pk).update(created_at=start)
    assert spent_today(user).tokens == 300
    Run.objects.filter(pk=run.pk).update(created_at=start - timedelta(microseconds=1))
    assert spent_today(user).tokens == 0


def test_an_unfinished_run_counts_its_projection_until_it_spends_more(user, run_row, node_row):
    run = run_row(
        created_by=user,
        status=Run.Status.RUNNING,
        projected_tokens=1000,
        projected_cost_usd=Decimal("0.5"),
    )
    node_row(run, 0, total_tokens=300, cost_usd=Decimal("0.1"))
    assert spent_today(user) == Spend(1000, Decimal("0.5"), False)

    node_row(run, 1, total_tokens=900, cost_usd=Decimal("0.6"))
    assert spent_today(user) == Spend(1200, Decimal("0.7"), False)

    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)
    failed = run_row(created_by=user, status=Run.Status.FAILED, projected_tokens=5000)
    node_row(failed, 0, total_tokens=120)
    assert spent_today(user).tokens == 1200 + 120  # a finished run counts what it spent


def test_steps_of_unknown_cost_are_flagged_not_priced(user, run_row, node_row):
    node_row(run_row(created_by=user), 0, total_tokens=300, cost_usd=None)

    assert spent_today(user) == Spend(300, Decimal(0), True)


# --- refusal ---------------------------------------------------------------------------------


NOTHING = Spend(0, Decimal(0), False)


def test_work_over_the_tokens_left_is_refused_saying_what_is_left():
    reason = refusal(Budget(5000, None), Spend(4400, Decimal(0), False), work(1840))

    assert (
        reason == "this fork would use about 1,840 tokens; 600 of your 5,000 daily tokens are left"
    )


def test_work_that_fits_is_not_refused():
    assert (
        refusal(Budget(5000, Decimal("1")), Spend(3000, Decimal("0.5"), False), work(2000, "0.5"))
        is None
    )


def test_work_over_the_dollars_left_is_refused():
    reason = refusal(
        Budget(None, Decimal("1.00")), Spend(0, Decimal("0.75"), False), work(10, "0.30")
    )

    assert reason == "this fork would cost about $0.30; $0.25 of your $1.00 daily budget is left"


def test_work_of_unknown_cost_is_refused_under_a_dollar_limit_alone():
    reason = refusal(Budget(None, Decimal("1.00")), NOTHING, work(10, None))

    assert reason is not None and "model with no price, so its cost is unknown" in reason
    assert "$1.00 of your $1.00 daily budget is left" in reason


def test_a_token_limit_bounds_work_of_unknown_cost_under_a_dollar_limit():
    budget = Budget(5000, Decimal("1.00"))

    assert refusal(budget, NOTHING, work(10, None)) is None
    assert refusal(budget, Spend(0, Decimal("1.00"), False), work(10, None)) is not None


def test_work_projected_at_zero_tokens_fits_a_spent_budget():
    spent = Spend(6000, Decimal("2"), False)

    assert refusal(Budget(5000, Decimal("1")), spent, work(0, "0")) is None


def test_work_with_no_estimate_is_refused_only_once_the_budget_is_spent():
    new_run = work(None, None, what="this run")

    assert refusal(Budget(5000, None), Spend(4999, Decimal(0), False), new_run) is None
    reason = refusal(Budget(5000, None), Spend(5000, Decimal(0), False), new_run)
    assert reason == "0 of your 5,000 daily tokens are left; this run cannot be estimated"
    assert refusal(Budget(None, Decimal("1")), Spend(0, Decimal("1"), False), new_run) is not None


# --- admission -------------------------------------------------------------------------------


def test_an_admitted_fork_reserves_its_projection_so_the_next_one_is_refused(user, research_run):
    ProviderSettings.objects.create(pk=1, daily_tokens=2000)
    wanted = resolve_fork(research_run, "analyse", "args.cost_scale", "3")  # ~1,600 tokens

    with admitted(user, lambda: projected_cost(wanted)) as admission:
        first = make_fork(wanted)
        admission.record(first)
    first.refresh_from_db()
    assert (first.created_by, first.status) == (user, Run.Status.QUEUED)
    assert first.projected_tokens == projected_cost(wanted).tokens

    count = Run.objects.count()
    with pytest.raises(BudgetExceeded, match=r"^This fork would use about 1,598 tokens; 402 of"):
        with admitted(user, lambda: projected_cost(wanted)) as admission:
            admission.record(make_fork(wanted))
    assert Run.objects.count() == count


def test_staff_are_exempt_and_not_projected(django_user_model, research_run):
    ProviderSettings.objects.create(pk=1, daily_tokens=1)
    staff = django_user_model.objects.create_user("boss", is_staff=True)
    wanted = resolve_fork(research_run, "0", live=True)

    def never() -> Projection:
        raise AssertionError("staff work is not projected")

    with admitted(staff, never) as admission:
        fork = make_fork(wanted)
        admission.record(fork)

    fork.refresh_from_db()
    assert fork.created_by == staff and fork.projected_tokens is None


@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_do_not_both_pass_a_nearly_spent_budget(
    user, run_row, node_row, settings
):
    """The second admission waits for the first's lock, then sees its reservation. Without
    the lock both would read the same spend while the first holds its transaction open."""
    ProviderSettings.objects.create(pk=1, daily_tokens=1000)
    source = run_row()
    node_row(source, 0, total_tokens=600, cost_usd=Decimal("0.1"))
    wanted = resolve_fork(source, "0", live=True)  # 600 tokens: one fits, two do not
    first_inside, second_started = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def first() -> None:
        try:
            with admitted(user, lambda: projected_cost(wanted)) as admission:
                first_inside.set()
                second_started.wait(10)
                threading.Event().wait(0.3)  # give a racing second request its chance
                admission.record(make_fork(wanted))
            outcome["first"] = "admitted"
        finally:
            connection.close()

    def second() -> None:
        first_inside.wait(10)
        second_started.set()
        try:
            with admitted(user, lambda: projected_cost(wanted)) as admission:
                admission.record(make_fork(wanted))
            outcome["second"] = "admitted"
        except BudgetExceeded:
            outcome["second"] = "refused"
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert outcome == {"first": "admitted", "second": "refused"}
    assert Run.objects.filter(created_by=user).count() == 1
