"""A relay of N steps with one planted step — a plain Burr app, registered as ``relay``, on which
``rewind_bench`` measures how many forks a bisect makes and whether it names the planted step
(and the tests plant steps to find).

Every step ``sNN`` takes the runtime inputs ``seed`` and ``planted`` and writes ``vNN``:
``{"verdict", "noise"}``. ``noise`` depends on the seed, so two runs with different seeds differ
at every step. The verdict is "-" before the planted step; the planted step decides it from the
seed ("pass" when odd, "fail" when even); every step after it passes on the verdict of the step
before it. So the last step's verdict is decided at the planted step, and swapping the output
of any step from there on carries the other run's verdict to the end: the flip is monotone.

Two more inputs plant the shapes that are not:

- ``join`` (0: none): step ``join`` takes its verdict from the planted step directly, not from
  the step before it. Swapping a step between them changes nothing at the end.
- ``carry`` (default true): whether the steps between the planted step and ``join`` pass the
  verdict on (a decision that goes nowhere) or do not read it at all ("-").

With ``join`` the last step, the last step reads the planted step directly; with ``join``
before it, the decision rejoins the relay there. Each step declares it reads every earlier
step's key, since which one it takes its verdict from is decided at run time.
``builder(join=…, carry=…)`` sets the inputs' defaults (an app for one shape). Nothing in it
knows about Rewind.
"""

from __future__ import annotations

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

STEPS = 20


def name(k: int) -> str:
    return f"s{k:02d}"


def key(k: int) -> str:
    return f"v{k:02d}"


def source(k: int, planted: int, join: int, carry: bool) -> int | None:
    """The step whose verdict step ``k`` (after the planted one) passes on; None: none."""
    if join and k == join:
        return planted
    if join and planted < k < join and not carry:
        return None
    return k - 1


def _step(k: int, default_join: int, default_carry: bool):
    @action(reads=[key(i) for i in range(1, k)], writes=[key(k)])
    def step(
        state: State, seed: int, planted: int, join: int = default_join, carry: bool = default_carry
    ) -> State:
        verdict = "-"
        if k == planted:
            verdict = "pass" if seed % 2 else "fail"
        elif k > planted and (origin := source(k, planted, join, carry)) is not None:
            verdict = state[key(origin)]["verdict"]
        return state.update(**{key(k): {"verdict": verdict, "noise": seed * 1000 + k}})

    return step


def builder(steps: int = STEPS, join: int = 0, carry: bool = True) -> ApplicationBuilder:
    actions = {name(k): _step(k, join, carry) for k in range(1, steps + 1)}
    return (
        ApplicationBuilder()
        .with_actions(**actions)
        .with_transitions(*((name(k), name(k + 1)) for k in range(1, steps)))
        .with_state()
        .with_entrypoint(name(1))
    )


def application(steps: int = STEPS) -> Application:
    return builder(steps).build()
