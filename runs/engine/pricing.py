"""What a call costs, in USD per million tokens (input, output).

Unknown models cost 0 rather than a guess. The offline simulator bills at a notional rate so
the cost bar has something to show; every run made with it is labelled a simulator run.
"""

from __future__ import annotations

from decimal import Decimal

from runs.engine.providers.simulator import SIMULATOR_MODEL

PER_MILLION: dict[str, tuple[Decimal, Decimal]] = {
    SIMULATOR_MODEL: (Decimal("0.50"), Decimal("1.50")),
    "gpt-4o-mini": (Decimal("0.15"), Decimal("0.60")),
    "gpt-4o": (Decimal("2.50"), Decimal("10.00")),
    "gpt-4.1-mini": (Decimal("0.40"), Decimal("1.60")),
    "gpt-4.1": (Decimal("2.00"), Decimal("8.00")),
}


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> Decimal:
    rate_in, rate_out = PER_MILLION.get(model, (Decimal(0), Decimal(0)))
    cost = (rate_in * prompt_tokens + rate_out * completion_tokens) / Decimal(1_000_000)
    return cost.quantize(Decimal("0.000001"))
