"""A Burr ``MapStates`` fan-out of three LLM calls, each made from Burr's thread pool after a
random delay (so the calls go out, and finish, in a different order every time), written as a
Burr user writes it; ``test_capture_threads.py`` records and replays it.

- ``distinct``: three different questions at temperature 0;
- ``identical``: the same question three times at temperature 0.9 (the simulator's answers
  differ), so only the branch a call was made in tells its answers apart.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Generator
from typing import Any

import openai
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action, create_action
from burr.core.parallelism import MapStates

QUESTIONS = ("Which region converts best?", "What does outreach cost?", "Who answers fastest?")
_shuffle = random.Random()  # deliberately unseeded: a new interleaving every run


@action(reads=["question", "temperature"], writes=["answer"])
def ask(state: State) -> State:
    time.sleep(_shuffle.uniform(0, 0.05))
    client = openai.OpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-fanout", max_retries=0
    )
    reply = client.chat.completions.create(
        model="rewind-sim-1",
        temperature=state["temperature"],
        messages=[{"role": "user", "content": state["question"]}],
    )
    return state.update(answer=reply.choices[0].message.content)


class AskAll(MapStates):
    def action(self, state: State, inputs: dict[str, Any]) -> Any:
        return create_action(ask, name="ask")

    def states(
        self, state: State, context: Any, inputs: dict[str, Any]
    ) -> Generator[State, None, None]:
        for question in state["questions"]:
            yield state.update(question=question)

    def reduce(self, state: State, states: Generator[State, None, None]) -> State:
        return state.update(answers=[s["answer"] for s in states])

    @property
    def reads(self) -> list[str]:
        return ["questions", "temperature"]

    @property
    def writes(self) -> list[str]:
        return ["answers"]


@action(reads=["answers"], writes=["longest"])
def pick(state: State) -> State:
    return state.update(longest=max(state["answers"], key=len))


def _application(questions: list[str], temperature: float) -> Application:
    return (
        ApplicationBuilder()
        .with_actions(ask_all=AskAll(), pick=pick)
        .with_transitions(("ask_all", "pick"))
        .with_state(questions=questions, temperature=temperature)
        .with_entrypoint("ask_all")
        .build()
    )


def distinct() -> Application:
    return _application(list(QUESTIONS), 0.0)


def identical() -> Application:
    return _application([QUESTIONS[0]] * 3, 0.9)
