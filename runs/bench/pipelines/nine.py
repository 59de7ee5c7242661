"""Nine actions in a row, each asking an OpenAI-compatible model one question — a plain Burr
app, registered as ``nine``, that ``rewind_bench`` runs three ways in one process: bare, with
Burr's own ``LocalTrackingClient``, and with ``rewind_hooks``; what each adds per step is
compared. Nothing in it knows about Rewind.

The client is the program's own ``openai.OpenAI``, built from ``OPENAI_BASE_URL`` and
``OPENAI_API_KEY`` when a step first needs it (one per base URL): the bench points it at
Rewind's simulator served on loopback. ``builder(client)`` takes one of the program's own.
"""

from __future__ import annotations

import os
from typing import Any

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

STEPS = 9
_clients: dict[tuple[str, str], Any] = {}


def _default_client() -> Any:
    where = (os.environ.get("OPENAI_BASE_URL", ""), os.environ.get("OPENAI_API_KEY", ""))
    if where not in _clients:
        import openai

        _clients[where] = openai.OpenAI(max_retries=0)
    return _clients[where]


@action(reads=["answers"], writes=["answers"])
def ask(state: State, topic: str, client: Any = None) -> State:
    reply = (client or _default_client()).chat.completions.create(
        model="rewind-sim-1",
        temperature=0,
        messages=[{"role": "user", "content": f"Say one thing about {topic}."}],
    )
    return state.update(answers=[*state["answers"], reply.choices[0].message.content])


def builder(client: Any = None) -> ApplicationBuilder:
    names = [f"step{i}" for i in range(1, STEPS + 1)]
    actions = {name: ask.bind(topic=f"topic {i}", client=client) for i, name in enumerate(names)}
    return (
        ApplicationBuilder()
        .with_actions(**actions)
        .with_transitions(*zip(names, names[1:], strict=False))
        .with_state(answers=[])
        .with_entrypoint(names[0])
    )


def application() -> Application:
    return builder().build()
