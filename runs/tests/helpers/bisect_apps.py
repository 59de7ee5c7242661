"""Relays of 12 steps for bisect's tests (``runs/bench/pipelines/relay.py``): ``relay12`` passes the
planted step's verdict on step by step (monotone), unless a run's inputs plant another shape
(``join``: a later step reads the planted step directly; ``carry`` false: the steps between do
not pass its verdict on); ``relay_skip`` has step 6 read the planted step's verdict directly
(planted at 3: a swap at 3 flips the end while a swap at 4 or 5 does not)."""

from __future__ import annotations

from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.bench.pipelines import relay


def relay12():
    return relay.builder(12).build()


def relay_skip():
    return relay.builder(12, join=6).build()


# ``pair``: ``pick`` writes two keys from the seed, ``judge`` passes when both are odd — a
# step whose swap is two ``writes.`` overrides (a fork, then a fork of it at the same step).
@action(reads=[], writes=["a", "b"])
def pick(state: State, seed: int) -> State:
    return state.update(a=seed, b=seed + 2)


@action(reads=["a", "b"], writes=["verdict"])
def judge(state: State) -> State:
    return state.update(verdict="pass" if state["a"] % 2 and state["b"] % 2 else "fail")


def pair():
    return (
        ApplicationBuilder()
        .with_actions(pick=pick, judge=judge)
        .with_transitions(("pick", "judge"))
        .with_state()
        .with_entrypoint("pick")
        .build()
    )
