"""Burr apps whose route depends on state keys their actions never read, written as a Burr user
writes them (issue 16, item 15).

``counter``: ``start`` reads nothing and goes on to ``counter`` when ``mode`` is "count" (else
straight to ``report``); ``counter`` counts while ``counter < counter_limit``. Only conditions
read ``mode`` and ``counter_limit``.
"""

from __future__ import annotations

from burr.core import ApplicationBuilder, State, default, expr, when
from burr.core.action import action


@action(reads=[], writes=["started"])
def start(state: State) -> State:
    return state.update(started=True)


@action(reads=["counter"], writes=["counter"])
def counter(state: State) -> State:
    return state.update(counter=state["counter"] + 1)


@action(reads=["counter"], writes=["report"])
def report(state: State) -> State:
    return state.update(report=f"counted to {state['counter']}")


def counter_application():
    return (
        ApplicationBuilder()
        .with_actions(start=start, counter=counter, report=report)
        .with_transitions(
            ("start", "counter", when(mode="count")),
            ("start", "report", default),
            ("counter", "counter", expr("counter < counter_limit")),
            ("counter", "report", default),
        )
        .with_state(counter=0, counter_limit=3, mode="count", started=False)
        .with_entrypoint("start")
        .build()
    )
