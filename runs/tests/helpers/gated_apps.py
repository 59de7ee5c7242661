"""A Burr app that branches like Burr's multi-modal chatbot and holds its chosen branch until
the test lets it go, so a browser sees the run while that step executes (issue 16, item 11).

``decide_mode`` picks ``answer_question`` for a question; ``generate_image``, ``generate_code``
and ``prompt_for_more`` are the branches not taken. ``answer_question`` waits until the file
``open`` exists in ``$REWIND_TEST_GATE_DIR`` (at most two minutes), then everything goes on to
``response``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from burr.core import ApplicationBuilder, State, default, when
from burr.core.action import action

WAIT_SECONDS = 120


@action(reads=["prompt"], writes=["mode"])
def decide_mode(state: State) -> State:
    prompt = state["prompt"]
    mode = "answer_question" if prompt.endswith("?") else "prompt_for_more"
    return state.update(mode=mode)


@action(reads=["prompt"], writes=["answer"])
def answer_question(state: State) -> State:
    gate = Path(os.environ.get("REWIND_TEST_GATE_DIR", ".")) / "open"
    deadline = time.monotonic() + WAIT_SECONDS
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return state.update(answer=f"an answer to {state['prompt']}")


@action(reads=["prompt"], writes=["answer"])
def generate_image(state: State) -> State:
    return state.update(answer="an image")


@action(reads=["prompt"], writes=["answer"])
def generate_code(state: State) -> State:
    return state.update(answer="some code")


@action(reads=["prompt"], writes=["answer"])
def prompt_for_more(state: State) -> State:
    return state.update(answer="please say more")


@action(reads=["answer"], writes=["response"])
def response(state: State) -> State:
    return state.update(response=state["answer"])


def application():
    return (
        ApplicationBuilder()
        .with_actions(
            decide_mode=decide_mode,
            generate_image=generate_image,
            generate_code=generate_code,
            answer_question=answer_question,
            prompt_for_more=prompt_for_more,
            response=response,
        )
        .with_transitions(
            ("decide_mode", "generate_image", when(mode="generate_image")),
            ("decide_mode", "generate_code", when(mode="generate_code")),
            ("decide_mode", "answer_question", when(mode="answer_question")),
            ("decide_mode", "prompt_for_more", default),
            (
                ["generate_image", "answer_question", "generate_code", "prompt_for_more"],
                "response",
            ),
        )
        .with_state(prompt="What is the capital of France?")
        .with_entrypoint("decide_mode")
        .build()
    )
