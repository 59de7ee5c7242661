"""What a piece of work is expected to cost before it is queued: the tokens and dollars of
the live LLM calls of each run it would make. The daily budget (``runs.budgets``) reads it;
nothing here knows about users or limits.

- a fork (unchanged replay, changed fork, live fork, one sample): the fork preview's dirty
  set — each step it expects to re-execute live costs what that step cost when it last ran
  (``preview._projected_tokens``); cached, inherited and overridden steps cost 0;
- k samples, a grid: one fork each, summed; a crossed grid's cell (``forking.crossing``) is
  previewed with both of its changes;
- a new run: what the pipeline's most recent completed run made from scratch (no parent) paid
  for its live steps; with no such run there is no estimate (``tokens is None``).

Dollars follow the tokens: a step's cost is what it cost per token when it last ran, or,
when it never paid (it was itself a cache hit), its model's price at the output rate (the
higher one, since the split is not known). A model with no price gives an unknown cost
(``cost_usd is None``), never 0 (``runs.engine.calls.pricing``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q, Sum

from runs.engine.calls.pricing import price, total_cost
from runs.engine.forking.crossing import Crossed, preview_crossed
from runs.engine.forking.forks import Fork, preview_fork
from runs.models import Node, Run

_MICRO = Decimal("0.000001")


@dataclass(frozen=True)
class NewRun:
    """A request for a new run of ``pipeline`` (its inputs do not change the estimate)."""

    pipeline: str


@dataclass(frozen=True)
class Estimate:
    """One run's expected live spend. ``tokens`` None: no estimate at all; ``cost_usd`` None:
    no estimate, or tokens at a model with no price."""

    tokens: int | None
    cost_usd: Decimal | None


@dataclass(frozen=True)
class Projection:
    """The expected spend of a request: one ``Estimate`` per run it makes, in order."""

    what: str  # "this fork", "these 5 samples", …: how a refusal names the request
    runs: tuple[Estimate, ...]

    @property
    def tokens(self) -> int | None:
        """Total tokens; None when a run has no estimate."""
        if any(e.tokens is None for e in self.runs):
            return None
        return sum(e.tokens or 0 for e in self.runs)

    @property
    def cost_usd(self) -> Decimal | None:
        """Total dollars; None when a run's cost is unknown or not estimated."""
        if any(e.cost_usd is None for e in self.runs):
            return None
        return sum((e.cost_usd or Decimal(0) for e in self.runs), Decimal(0))


def projected_cost(*requests: Fork | Crossed | NewRun, what: str = "") -> Projection:
    """The projection of making one run per request (pass the same ``Fork`` k times for k
    samples: it is previewed once). ``what`` names the request in messages."""
    seen: dict[int, Estimate] = {}
    estimates = []
    for request in requests:
        if id(request) not in seen:
            seen[id(request)] = _new_run(request) if isinstance(request, NewRun) else _fork(request)
        estimates.append(seen[id(request)])
    return Projection(what or _what(requests), tuple(estimates))


def _what(requests: tuple[Fork | Crossed | NewRun, ...]) -> str:
    if len(requests) == 1:
        return "this run" if isinstance(requests[0], NewRun) else "this fork"
    return f"these {len(requests)} runs"


def _fork(fork: Fork | Crossed) -> Estimate:
    if isinstance(fork, Fork) and fork.regression_code:
        return _rerun(fork)
    plan = preview_crossed(fork) if isinstance(fork, Crossed) else preview_fork(fork)
    live = {s["sequence_id"]: s["projected_tokens"] for s in plan["steps"] if s["projected_tokens"]}
    nodes = fork.source.nodes.filter(sequence_id__in=list(live)).defer("inputs", "output", "prompt")
    costs = [_step_cost(node, live[node.sequence_id]) for node in nodes]
    return Estimate(plan["projected_tokens"], total_cost(costs))


def _rerun(fork: Fork) -> Estimate:
    """A regression run's most: what its source paid for its live steps. Which calls the new
    code changes is known only once it runs, so the budget admits the whole re-run."""
    paid = fork.source.nodes.filter(cache_source=Node.CacheSource.LIVE, total_tokens__gt=0)
    nodes = list(paid.defer("inputs", "output", "prompt"))
    costs = [_step_cost(node, node.total_tokens) for node in nodes]
    return Estimate(sum(node.total_tokens for node in nodes), total_cost(costs))


def _step_cost(node: Node, tokens: int) -> Decimal | None:
    """What ``tokens`` more of ``node``'s live call cost: its own rate when it paid, else its
    model's output rate (an upper bound: the prompt/completion split is not known)."""
    if node.total_tokens:
        if node.cost_usd is None:
            return None
        return (node.cost_usd * tokens / node.total_tokens).quantize(_MICRO)
    rates = price(node.model_answered or node.model_requested)
    if rates is None:
        return None
    return (rates[1] * tokens / Decimal(1_000_000)).quantize(_MICRO)


def _new_run(request: NewRun) -> Estimate:
    """What the pipeline's latest completed run made from scratch paid for its live steps."""
    paid = Q(cache_source=Node.CacheSource.LIVE, total_tokens__gt=0)
    latest = (
        Node.objects.filter(
            paid,
            run__pipeline=request.pipeline,
            run__status=Run.Status.COMPLETED,
            run__parent__isnull=True,
        )
        .order_by("-run__created_at", "-run_id")
        .values_list("run_id", flat=True)
        .first()
    )
    if latest is None:
        return Estimate(None, None)
    totals = Node.objects.filter(paid, run_id=latest).aggregate(
        tokens=Sum("total_tokens"),
        cost=Sum("cost_usd"),
        unknown=Count("pk", filter=Q(cost_usd__isnull=True)),
    )
    cost = None if totals["unknown"] else Decimal(totals["cost"] or 0).quantize(_MICRO)
    return Estimate(int(totals["tokens"] or 0), cost)
