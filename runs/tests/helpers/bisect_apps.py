"""Relays of 12 steps for bisect's tests (``runs/bench/pipelines/relay.py``): ``relay12`` passes the
planted step's verdict on step by step (monotone), unless a run's inputs plant another shape
(``join``: a later step reads the planted step directly; ``carry`` false: the steps between do
not pass its verdict on); ``relay_skip`` has step 6 read the planted step's verdict directly
(planted at 3: a swap at 3 flips the end while a swap at 4 or 5 does not); ``relay16``, a
monotone relay of 16 steps (what the default budget costs). ``pair``: one step writes two keys.
``both``: the verdict is ``x and y`` of two steps' outputs — no single step decides it."""

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


def relay16():
    return relay.builder(16).build()


# ``both``: ``x`` and ``y`` each write a flag from the seed (odd: true), ``w`` between them only
# noise; ``verdict`` passes when both flags are true. Seed 1 passes and seed 2 fails at every
# step, and only swapping ``x`` and ``y`` together (or ``verdict``, which the outcome reads)
# flips it: the AND case, planted. With the run input ``three``, ``verdict`` also needs
# ``w``'s noise below 15 (seed 1's): three steps together, so no pair flips it.
@action(reads=[], writes=["x"])
def flag_x(state: State, seed: int) -> State:
    return state.update(x=seed % 2 == 1)


@action(reads=[], writes=["noise"])
def noise_w(state: State, seed: int) -> State:
    return state.update(noise=seed * 10)


@action(reads=[], writes=["y"])
def flag_y(state: State, seed: int) -> State:
    return state.update(y=seed % 2 == 1)


@action(reads=["x", "noise", "y"], writes=["verdict"])
def both_verdict(state: State, three: bool = False) -> State:
    passed = state["x"] and state["y"] and (not three or state["noise"] < 15)
    return state.update(verdict="pass" if passed else "fail")


def both():
    return (
        ApplicationBuilder()
        .with_actions(x=flag_x, w=noise_w, y=flag_y, verdict=both_verdict)
        .with_transitions(("x", "w"), ("w", "y"), ("y", "verdict"))
        .with_state()
        .with_entrypoint("x")
        .build()
    )
