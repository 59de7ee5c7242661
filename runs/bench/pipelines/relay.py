"""A relay of N steps with one planted step — a plain Burr app, registered as ``relay``, on which
``rewind_bench`` measures how many forks a bisect makes (and the tests plant steps to find).

Every step ``sNN`` takes the runtime inputs ``seed`` and ``planted`` and writes ``vNN``:
``{"verdict", "noise"}``. ``noise`` depends on the seed, so two runs with different seeds differ
at every step. The verdict is "-" before the planted step; the planted step decides it from the
seed ("pass" when odd, "fail" when even); every step after it passes on the verdict of the step
before it. So the last step's verdict is decided at the planted step, and swapping the output
of any step from there on carries the other run's verdict to the end.

``skip=(k, j)`` (tests only): step ``j`` takes its verdict from step ``k`` directly, not from
the step before it — a flip at ``k`` that the steps between them do not carry (not monotone).
Nothing in it knows about Rewind.
"""

from __future__ import annotations

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

STEPS = 20


def name(k: int) -> str:
    return f"s{k:02d}"


def key(k: int) -> str:
    return f"v{k:02d}"


def _step(k: int, source: int | None):
    """Step ``k``; its verdict comes from step ``source`` (None: the step decides or has none)."""
    reads = [key(source)] if source else []

    @action(reads=reads, writes=[key(k)])
    def step(state: State, seed: int, planted: int) -> State:
        if k < planted:
            verdict = "-"
        elif k == planted:
            verdict = "pass" if seed % 2 else "fail"
        else:
            verdict = state[key(source)]["verdict"] if source else "-"
        return state.update(**{key(k): {"verdict": verdict, "noise": seed * 1000 + k}})

    return step


def builder(steps: int = STEPS, skip: tuple[int, int] | None = None) -> ApplicationBuilder:
    sources = {k: k - 1 if k > 1 else None for k in range(1, steps + 1)}
    if skip is not None:
        sources[skip[1]] = skip[0]
    actions = {name(k): _step(k, sources[k]) for k in range(1, steps + 1)}
    return (
        ApplicationBuilder()
        .with_actions(**actions)
        .with_transitions(*((name(k), name(k + 1)) for k in range(1, steps)))
        .with_state()
        .with_entrypoint(name(1))
    )


def application(steps: int = STEPS) -> Application:
    return builder(steps).build()
