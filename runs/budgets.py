"""The daily budget: what a non-staff user may spend a day on live LLM calls started from the
dashboard or the API, in tokens and/or dollars (``ProviderSettings.daily_tokens`` /
``daily_usd``, set by staff on the settings page; blank is no limit).

- **Who**: a signed-in user who is not staff. Staff are exempt; management commands and
  programs recording their own runs are the operator's and never limited.
- **The day**: the server's local date (``settings.TIME_ZONE``), midnight to midnight.
- **Spent**: the live steps (``cache_source`` live) of the runs the user started that day —
  cached, inherited and overridden steps cost 0. A run still queued or running counts what
  was projected for it when it was admitted, or what it has spent if that is more: so two
  requests a second apart cannot both pass on the same tokens. The judge's live calls their
  pages made that day count too (``JudgeCall``; a judge's answer read from the cache costs 0).
- **The judge** (``judge_for``): a live question is asked only when its estimate fits what is
  left; refused, the leaf stays uncertain and says why. Checked, not reserved: two pages at
  once may both ask before either is recorded (a question is a few hundred tokens).
- **Admitted**: work whose projection (``runs.engine.analysis.projection``) fits what is left.
  Work projected at 0 tokens (an unchanged replay served by the cache) always fits. A new run
  of a pipeline with no history has no estimate: it is refused only once the day's budget is
  spent.
- **Unknown dollars**: a model with no price has an unknown cost, never 0. Under a dollar
  limit, work projected to use tokens at an unknown cost is refused — unless a token limit is
  set too, which then bounds it. Steps of unknown cost already spent count as 0 dollars and
  the page says some cost is unknown.
- **Races**: admission checks and writes the runs in one transaction that first locks the
  user's row (``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite every transaction takes the
  database's write lock when it begins, ``transaction_mode`` IMMEDIATE), so a second request
  waits for the first and sees its runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from runs.engine.analysis.projection import Estimate, Projection, projected_cost
from runs.engine.errors import RewindError
from runs.engine.forking.forks import Fork, Opened, existing_fork, open_fork
from runs.engine.judging import Judge, configured_judge
from runs.models import JudgeCall, ProviderSettings, Run

# How a refusal is answered, by the API and the dashboard's forms alike: 429 Too Many
# Requests, with Retry-After at the next local midnight, when the budget renews.
BUDGET_STATUS = 429


class BudgetExceeded(RewindError):
    """Work refused because it would exceed the user's daily budget; nothing was written."""


@dataclass(frozen=True)
class Budget:
    """The daily limit of each non-staff user; None: no limit of that kind."""

    tokens: int | None
    usd: Decimal | None

    @classmethod
    def current(cls) -> Budget:
        saved = ProviderSettings.load()
        return cls(saved.daily_tokens, saved.daily_usd)

    @property
    def limited(self) -> bool:
        return self.tokens is not None or self.usd is not None


@dataclass(frozen=True)
class Spend:
    """What a user spent today (live steps; unfinished runs at least their projection; the
    judge's live calls)."""

    tokens: int
    usd: Decimal
    usd_unknown: bool  # some of it at a model with no price (counted as 0 dollars)


@dataclass(frozen=True)
class Standing:
    """A user's budget, spend and what is left today, as the settings page shows it."""

    budget: Budget
    spend: Spend
    exempt: bool  # staff

    @property
    def tokens_left(self) -> int | None:
        if self.budget.tokens is None:
            return None
        return max(self.budget.tokens - self.spend.tokens, 0)

    @property
    def usd_left(self) -> Decimal | None:
        if self.budget.usd is None:
            return None
        return max(self.budget.usd - self.spend.usd, Decimal(0))


def today() -> tuple[datetime, datetime]:
    """Today's bounds in the server's time zone, as aware datetimes (a day of 23 or 25 hours
    where the clocks change)."""
    day = timezone.localdate()
    zone = timezone.get_current_timezone()
    start = datetime.combine(day, time.min, tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
    return start, end


def seconds_to_renewal() -> int:
    """Seconds until the next local midnight (a refusal's ``Retry-After``)."""
    return max(int((today()[1] - timezone.now()).total_seconds()) + 1, 1)


def spent_today(user: Any) -> Spend:
    """Two queries: the user's runs of today with the sums of their live steps, and the sums
    of the judge's live calls their pages made today."""
    start, end = today()
    live = Q(nodes__cache_source="live")
    rows = (
        Run.objects.filter(created_by=user, created_at__gte=start, created_at__lt=end)
        .order_by()
        .values("pk", "status", "projected_tokens", "projected_cost_usd")
        .annotate(
            tokens=Sum("nodes__total_tokens", filter=live),
            usd=Sum("nodes__cost_usd", filter=live),
            unknown=Count(
                "nodes", filter=live & Q(nodes__cost_usd__isnull=True, nodes__total_tokens__gt=0)
            ),
        )
    )
    tokens, usd, unknown = 0, Decimal(0), False
    for row in rows:
        run_tokens, run_usd = row["tokens"] or 0, Decimal(row["usd"] or 0)
        unknown = unknown or bool(row["unknown"])
        if row["status"] in (Run.Status.QUEUED, Run.Status.RUNNING):
            run_tokens = max(run_tokens, row["projected_tokens"] or 0)
            if row["projected_cost_usd"] is not None:
                run_usd = max(run_usd, row["projected_cost_usd"])
            elif row["projected_tokens"]:
                unknown = True
        tokens += run_tokens
        usd += run_usd
    judged = JudgeCall.objects.filter(
        created_by=user, created_at__gte=start, created_at__lt=end
    ).aggregate(
        tokens=Sum("total_tokens"),
        usd=Sum("cost_usd"),
        unknown=Count("pk", filter=Q(cost_usd__isnull=True, total_tokens__gt=0)),
    )
    tokens += judged["tokens"] or 0
    usd += Decimal(judged["usd"] or 0)
    unknown = unknown or bool(judged["unknown"])
    return Spend(tokens, usd, unknown)


def standing(user: Any) -> Standing:
    return Standing(Budget.current(), spent_today(user), exempt=bool(user.is_staff))


def refusal(budget: Budget, spend: Spend, projection: Projection) -> str | None:
    """Why ``projection`` does not fit in what ``budget`` leaves after ``spend``; None if it
    fits."""
    need_tokens, need_usd = projection.tokens, projection.cost_usd
    tokens_left = None if budget.tokens is None else budget.tokens - spend.tokens
    usd_left = None if budget.usd is None else budget.usd - spend.usd
    if need_tokens is None:  # no estimate: only a spent budget refuses it
        if tokens_left is not None and tokens_left <= 0:
            return f"{_left_tokens(budget, tokens_left)}; {projection.what} cannot be estimated"
        if usd_left is not None and usd_left <= 0:
            return f"{_left_usd(budget, usd_left)}; {projection.what} cannot be estimated"
        return None
    if need_tokens == 0:  # served by the cache: free, whatever is left (even overspent)
        return None
    if tokens_left is not None and need_tokens > tokens_left:
        return (
            f"{projection.what} would use about {need_tokens:,} tokens; "
            f"{_left_tokens(budget, tokens_left)}"
        )
    if usd_left is None:
        return None
    if need_usd is None:
        if budget.tokens is not None and usd_left > 0:
            return None  # the token limit bounds what a model with no price may use
        return (
            f"{projection.what} would use about {need_tokens:,} tokens at a model with no "
            f"price, so its cost is unknown; {_left_usd(budget, usd_left)}"
        )
    if need_usd > usd_left:
        return f"{projection.what} would cost about {_usd(need_usd)}; {_left_usd(budget, usd_left)}"
    return None


def _usd(value: Decimal) -> str:
    return f"${value:,.4f}" if Decimal("-0.01") < value < Decimal("0.01") else f"${value:,.2f}"


def _left_tokens(budget: Budget, left: int) -> str:
    return f"{max(left, 0):,} of your {budget.tokens:,} daily tokens are left"


def _left_usd(budget: Budget, left: Decimal) -> str:
    return f"{_usd(max(left, Decimal(0)))} of your {_usd(budget.usd)} daily budget is left"


class Admission:
    """The runs an admitted request made: ``record`` them (created by the user, with their
    projections as what they reserve) before the transaction ends."""

    def __init__(self, user: Any, projection: Projection | None) -> None:
        self.user, self.projection = user, projection

    def record(self, *runs: Run) -> None:
        estimates = self.projection.runs if self.projection is not None else [None] * len(runs)
        if len(runs) != len(estimates):
            raise ValueError(f"{len(runs)} runs made for {len(estimates)} projected")
        for run, estimate in zip(runs, estimates, strict=True):
            run.created_by = self.user
            run.projected_tokens = estimate.tokens if estimate else None
            run.projected_cost_usd = estimate.cost_usd if estimate else None
        Run.objects.bulk_update(runs, ["created_by", "projected_tokens", "projected_cost_usd"])


@contextmanager
def admitted(user: Any, project: Callable[[], Projection]) -> Iterator[Admission]:
    """A transaction in which ``user`` may make the runs ``project()`` describes; raises
    ``BudgetExceeded`` (nothing written) when they would exceed the user's daily budget.

    The projection (a fork preview may walk the whole cache) is made before the transaction,
    and only when a budget applies: staff, and everyone while no limit is set, are not
    projected (their runs are still recorded as theirs)."""
    budget = Budget.current()
    projection = project() if budget.limited and not user.is_staff else None
    with transaction.atomic():
        if projection is not None:
            # Serialise a user's admissions: the second waits here for the first to commit.
            get_user_model().objects.select_for_update().filter(pk=user.pk).first()
            reason = refusal(budget, spent_today(user), projection)
            if reason is not None:
                raise BudgetExceeded(reason[:1].upper() + reason[1:])
        yield Admission(user, projection)


def judge_for(user: Any) -> Judge | None:
    """The judge a person's page asks (``REWIND_JUDGE_MODEL``; None when there is none): its
    live calls are ``user``'s spend and, for a non-staff user under a limit, asked only when
    their estimate fits what is left today (``refusal``, the one rule)."""
    if user.is_staff:
        return configured_judge(user=user)

    def gate(tokens: int, usd: Decimal | None) -> str | None:
        budget = Budget.current()
        if not budget.limited:
            return None
        asked = Projection("its question", (Estimate(tokens, usd),))
        return refusal(budget, spent_today(user), asked)

    return configured_judge(user=user, gate=gate)


def open_within_budget(user: Any, wanted: Fork, what: str = "this fork") -> Opened:
    """The fork a person asked for: the one already made (``open_fork``'s rule; it costs
    nothing, so no budget check), else a new one admitted as ``user``'s within their daily
    budget (``BudgetExceeded`` otherwise; nothing written). The dashboard's and the API's."""
    existing = existing_fork(wanted)
    if existing is not None:
        return Opened(existing, reused=True)
    with admitted(user, lambda: projected_cost(wanted, what=what)) as admission:
        opened = open_fork(wanted)  # under the source's lock: a request that raced this one
        if not opened.reused:
            admission.record(opened.run)
    return opened
