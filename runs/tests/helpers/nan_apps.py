"""A Burr app whose first step writes NaN — the mean of no values — as agent code does: the
state, the diff and an exported test must carry it (``engine/analysis/test_export.py``)."""

from __future__ import annotations

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action


@action(reads=["values"], writes=["mean"])
def average(state: State) -> State:
    values = state["values"]
    return state.update(mean=sum(values) / len(values) if values else float("nan"))


@action(reads=["mean"], writes=["summary"])
def summarise(state: State) -> State:
    return state.update(summary=f"the mean is {state['mean']}")


def application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(average=average, summarise=summarise)
        .with_transitions(("average", "summarise"))
        .with_state(values=[])
        .with_entrypoint("average")
        .build()
    )
