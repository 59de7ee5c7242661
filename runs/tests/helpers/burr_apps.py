"""Small Burr apps for ``test_burr_apps.py``, written the way a Burr user writes them: plain
``@action`` functions and an ``ApplicationBuilder``, nothing of Rewind's declarations.

- ``jitter_application``: a deterministic step, a step whose writes are not deterministic
  (a wall clock and a random number read inside ``live_values()``, so a replay does not give
  them back), a deterministic step after it that reads only the deterministic key, and one
  that reads the clock.
- ``models_application``: an async app whose first action asks the provider for its model
  list through ``httpx.AsyncClient`` — an HTTP call that is not an LLM call (a tool call).

And registry entries that are not apps, for the errors they must give.
"""

from __future__ import annotations

import os
import random
import time

import httpx
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

from runs.recording import live_values


@action(reads=["numbers"], writes=["total"])
def add_up(state: State) -> State:
    return state.update(total=sum(state["numbers"]))


@action(reads=["total"], writes=["label", "stamped_at", "nonce"])
def stamp(state: State) -> State:
    with live_values():  # fresh on every replay: the step stays non-deterministic
        return state.update(
            label=f"total={state['total']}",
            stamped_at=time.time(),
            nonce=random.random(),
        )


@action(reads=["label"], writes=["summary"])
def summarise(state: State) -> State:
    return state.update(summary=state["label"].upper())


@action(reads=["stamped_at"], writes=["receipt"])
def receipt(state: State) -> State:
    return state.update(receipt=f"stamped at {state['stamped_at']:.6f}")


def jitter_builder() -> ApplicationBuilder:
    return (
        ApplicationBuilder()
        .with_actions(add_up=add_up, stamp=stamp, summarise=summarise, receipt=receipt)
        .with_transitions(("add_up", "stamp"), ("stamp", "summarise"), ("summarise", "receipt"))
        .with_state(numbers=[1, 2, 3])
        .with_entrypoint("add_up")
    )


def jitter_application() -> Application:
    return jitter_builder().build()


JITTER_APP = jitter_application()  # a module-level Application


@action(reads=[], writes=["models"])
async def list_models(state: State) -> State:
    async with httpx.AsyncClient(base_url=os.environ["OPENAI_BASE_URL"], timeout=5) as client:
        response = await client.get("/models")
        response.raise_for_status()
    return state.update(models=sorted(model["id"] for model in response.json()["data"]))


@action(reads=["models"], writes=["count"])
def count_models(state: State) -> State:
    return state.update(count=len(state["models"]))


def models_application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(list_models=list_models, count_models=count_models)
        .with_transitions(("list_models", "count_models"))
        .with_entrypoint("list_models")
        .build()
    )


NOT_AN_APP = 42


def broken_application() -> Application:
    raise RuntimeError("no config file at ~/.myagent.toml")


# The steps of Burr's multi-modal chatbot for a question, then a request for code.
TURN_1 = [
    "prompt",
    "check_openai_key",
    "check_safety",
    "decide_mode",
    "answer_question",
    "response",
]
TURN_2 = ["prompt", "check_openai_key", "check_safety", "decide_mode", "generate_code", "response"]
