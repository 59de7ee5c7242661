"""A Burr app whose prompt depends on the order of a dict in its state, written the way a Burr
user writes it (``test_state_dict_order.py``): ``gather`` writes ``facts``, a dict whose keys
are not in sorted order (a nested one too), and ``ask`` builds its prompt by iterating it and
asks the model at ``OPENAI_BASE_URL`` through the ``openai`` SDK. ``ask`` also writes the key
order it read (``seen``), so a step handed another order differs in what it wrote too.
"""

from __future__ import annotations

import os

import openai
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

FACTS = {
    "zeta": "the last letter",
    "alpha": "the first letter",
    "mid": {"yankee": 25, "bravo": 2, "kilo": 11},
    "beta": ["b", {"zulu": 26, "alpha": 1}],
}


def key_order(value: object) -> list:
    """Every dict's keys, depth first, in the order the dict holds them."""
    if isinstance(value, dict):
        return [[k, key_order(v)] for k, v in value.items()]
    if isinstance(value, list):
        return [key_order(v) for v in value]
    return []


@action(reads=["topic"], writes=["facts"])
def gather(state: State) -> State:
    return state.update(facts={k: v for k, v in FACTS.items()})


@action(reads=["facts"], writes=["answer", "seen"])
def ask(state: State) -> State:
    facts = state["facts"]
    lines = [f"{key}: {value}" for key, value in facts.items()]  # dicts shown in their order
    client = openai.OpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-dict-order", max_retries=0
    )
    reply = client.chat.completions.create(
        model="rewind-sim-1",
        temperature=0,
        messages=[{"role": "user", "content": "Summarise these facts:\n" + "\n".join(lines)}],
    )
    return state.update(answer=reply.choices[0].message.content, seen=key_order(facts))


def application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(gather=gather, ask=ask)
        .with_transitions(("gather", "ask"))
        .with_state(topic="letters")
        .with_entrypoint("gather")
        .build()
    )
