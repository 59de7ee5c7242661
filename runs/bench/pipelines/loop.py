"""A counter that asks a tool over HTTP for the next number at every step — a plain Burr app,
registered as ``loop``, that ``rewind_bench`` replays through Rewind and times against the
very same app run by bare Burr with its own ``SQLitePersister``.

The tool answers in-process (an ``httpx.MockTransport``), so bare Burr pays for a real
``httpx`` request without a network, and Rewind's cached replay answers the same request from
its tool cache. Nothing in it knows about Rewind.
"""

from __future__ import annotations

import json

import httpx
from burr.core import Application, ApplicationBuilder, State, default, expr
from burr.core.action import action

STEPS = 200


def _next_number(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"next": json.loads(request.content)["n"] + 1})


client = httpx.Client(
    base_url="http://counter.invalid", transport=httpx.MockTransport(_next_number)
)


@action(reads=["n"], writes=["n"])
def count(state: State) -> State:
    reply = client.post("/next", json={"n": state["n"]})
    reply.raise_for_status()
    return state.update(n=reply.json()["next"])


@action(reads=["n"], writes=["done"])
def finish(state: State) -> State:
    return state.update(done=True)


def builder(steps: int = STEPS) -> ApplicationBuilder:
    return (
        ApplicationBuilder()
        .with_actions(count=count, finish=finish)
        .with_transitions(
            ("count", "count", expr(f"n < {int(steps)}")), ("count", "finish", default)
        )
        .with_state(n=0, done=False)
        .with_entrypoint("count")
    )


def application(steps: int = STEPS) -> Application:
    """The app as its own program would build it: ``steps`` counts, then ``finish``."""
    return builder(steps).build()
