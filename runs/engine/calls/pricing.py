"""What a call costs, in USD per million tokens (input, output).

A model with no price here has an *unknown* cost: :func:`cost_usd` returns ``None``, which is
stored as NULL on the node, printed as "unknown" by the commands, shown as "—" on pages and
sent as ``null`` in JSON. It is never 0 and never a guess: a 0 would claim the call was free.
(A cached, inherited or overridden step did cost 0 — that zero is real and stays a zero.)

The offline simulator bills at a notional rate so the cost bar has something to show; every
run made with it is labelled a simulator run. A model the simulator *answers as* (served with
``--substitute-model``) is priced like any other answered model: by its name, here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from runs.engine.providers.simulator import SIMULATOR_MODEL

PER_MILLION: dict[str, tuple[Decimal, Decimal]] = {
    SIMULATOR_MODEL: (Decimal("0.50"), Decimal("1.50")),
    "gpt-4o-mini": (Decimal("0.15"), Decimal("0.60")),
    "gpt-4o": (Decimal("2.50"), Decimal("10.00")),
    "gpt-4.1-mini": (Decimal("0.40"), Decimal("1.60")),
    "gpt-4.1": (Decimal("2.00"), Decimal("8.00")),
}

# OpenAI answers with a dated snapshot ("gpt-4o-mini-2024-07-18" for "gpt-4o-mini"); the
# snapshot costs what its model costs. Only an exact date suffix is stripped: a prefix match
# would price "gpt-4.1-nano" as "gpt-4.1".
_SNAPSHOT_RE = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def price(model: str) -> tuple[Decimal, Decimal] | None:
    """(input, output) USD per million tokens, or ``None`` when the model has no price."""
    if model in PER_MILLION:
        return PER_MILLION[model]
    return PER_MILLION.get(_SNAPSHOT_RE.sub("", model or ""))


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> Decimal | None:
    """The call's cost in USD, or ``None`` (unknown) when ``model`` has no price."""
    rates = price(model)
    if rates is None:
        return None
    rate_in, rate_out = rates
    cost = (rate_in * prompt_tokens + rate_out * completion_tokens) / Decimal(1_000_000)
    return cost.quantize(Decimal("0.000001"))


def total_cost(costs: Iterable[Decimal | None]) -> Decimal | None:
    """The sum of the steps a run executed, or ``None`` if any of them has an unknown cost.

    Pass only the steps the run executed (not ``inherited`` ones: the parent paid for those).
    """
    total = Decimal(0)
    for cost in costs:
        if cost is None:
            return None
        total += cost
    return total
