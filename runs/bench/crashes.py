"""``rewind_bench``'s crash figure (issue 41, item 8): what a ``kill -9`` loses of a program
recorded with ``rewind_hooks(..., wait=False)``, ``t`` seconds after its ``run`` call returned,
on a loaded machine.

The bench loads every core (``LOAD_PER_CORE`` processes a core, each a pure-Python loop) and
starts the program in an interpreter of its own, configured as this process is
(``workers.set_up``: the same database): a Burr app of ``STEPS`` quick steps recorded with
``wait=False``. Once ``run`` returns, the program goes on computing (the recording's writer
shares the interpreter with it) and a timer in it sends it SIGKILL ``t`` seconds later. Each
``t`` of ``AFTER`` is tried ``repeat`` times; a try loses the steps not committed when it died.

The figure is the loss window: the smallest ``t`` of the grid from which no try lost a step
(twice the largest when even that one lost some), beside ``LINGER_SECONDS``, the README's
"about the last quarter of a second". A run that reads ``completed`` with a step missing fails
the figure whatever the window. The killed runs are then marked ``interrupted``, saying why.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import signal
import subprocess
import sys
import threading

from burr.core import ApplicationBuilder, State
from burr.core.action import action
from django.db import connection
from django.db.models import Max

PIPELINE = "crash_five"
STEPS = 5
AFTER = (0.0, 0.05, 0.1, 0.25, 0.5, 1.0)  # seconds between ``run`` returning and the kill
LOAD_PER_CORE = 2  # busy processes a core: a load of about 5 on two cores, as in issue 41
CHILD = "from runs.bench.crashes import program; program()"  # Django is set up by program()
LOADER = "while True: pass"


def _step(i: int):
    @action(reads=["n"], writes=["n", f"v{i}"])
    def step(state: State) -> State:
        return state.update(n=state["n"] + 1, **{f"v{i}": list(range(i * 20))})

    return step


def five() -> ApplicationBuilder:
    """The program's app: ``STEPS`` quick steps, each writing a little state."""
    names = [f"s{i}" for i in range(STEPS)]
    return (
        ApplicationBuilder()
        .with_actions(**{name: _step(i) for i, name in enumerate(names)})
        .with_transitions(*zip(names, names[1:], strict=False))
        .with_state(n=0)
        .with_entrypoint(names[0])
    )


def program() -> None:
    """The recording program (``python -c CHILD``): its configuration and ``t`` on stdin."""
    from runs.engine.execution.workers import set_up

    config, after = pickle.loads(sys.stdin.buffer.read())
    set_up(config)
    from runs.recording import rewind_hooks

    app = five().with_hooks(*rewind_hooks(PIPELINE, wait=False)).build()
    app.run(halt_after=[f"s{STEPS - 1}"])
    sys.stdout.write("returned\n")
    sys.stdout.flush()
    threading.Timer(after, os.kill, (os.getpid(), signal.SIGKILL)).start()
    n = 0
    while True:  # the program goes on computing until the kill
        n += 1


def _try(config, after: float) -> tuple[int | None, int, bool]:
    """One program killed ``after`` seconds after its ``run`` returned: (its run, steps lost,
    whether the run read ``completed`` with a step missing)."""
    from runs.engine.execution.workers import child_env
    from runs.models import Run

    newest = Run.objects.aggregate(last=Max("pk"))["last"] or 0
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        env=child_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out, _ = child.communicate(pickle.dumps((config, after)), timeout=600)
    if b"returned" not in out:
        raise RuntimeError(f"the recording program failed before returning ({child.returncode})")
    run = Run.objects.filter(pipeline=PIPELINE, pk__gt=newest).order_by("pk").first()
    if run is None:
        return None, STEPS, False
    steps = run.nodes.count()
    return run.pk, STEPS - steps, run.status == Run.Status.COMPLETED and steps != STEPS


def crash_figure(repeat: int) -> dict:
    from django.conf import settings

    from runs.engine.execution.workers import worker_config
    from runs.engine.execution.writer import LINGER_SECONDS
    from runs.models import Run

    config = worker_config(quiet=True)
    config = dataclasses.replace(
        config,
        overrides={
            **config.overrides,
            "REWIND_PIPELINES": {
                **settings.REWIND_PIPELINES,
                PIPELINE: "runs.bench.crashes.five",
            },
        },
    )
    cores = os.cpu_count() or 1
    loaders = [
        subprocess.Popen([sys.executable, "-c", LOADER], stdin=subprocess.DEVNULL)
        for _ in range(LOAD_PER_CORE * cores)
    ]
    lost: dict[float, list[int]] = {after: [] for after in AFTER}
    runs: list[int] = []
    missing = 0
    try:
        for _ in range(max(1, repeat)):
            for after in AFTER:
                run, steps_lost, bad = _try(config, after)
                lost[after].append(steps_lost)
                missing += bad
                if run is not None:
                    runs.append(run)
        load = os.getloadavg()[0]
    finally:
        for loader in loaders:
            loader.kill()
        for loader in loaders:
            loader.wait()
    Run.objects.interrupt(runs, "killed on purpose by rewind_bench's crash figure")
    safe = [after for after in AFTER if all(n == 0 for t in AFTER if t >= after for n in lost[t])]
    window = safe[0] if safe else 2 * AFTER[-1]
    losses = "; ".join(f"t={after:g} s: {', '.join(map(str, lost[after]))}" for after in AFTER)
    return {
        "figure": (
            f"steps of a {STEPS}-step rewind_hooks(wait=False) call a kill -9 t s after it "
            f"returned loses, under a CPU load of {LOAD_PER_CORE} busy processes a core "
            f"({connection.vendor}): the loss window beside LINGER_SECONDS"
        ),
        "value": window,
        "anchor": LINGER_SECONDS,
        "goal": f"≤ {LINGER_SECONDS} s",
        "pass": window <= LINGER_SECONDS and not missing,
        "note": (
            f"steps lost by each try, {losses}"
            + (" (more than the grid: still losing at its end)" if not safe else "")
            + f"; load average {load:.1f} on {cores} cores; runs read completed with a step "
            f"missing: {missing}"
        ),
    }
