"""A program recorded with ``rewind_hooks(..., wait=False)`` killed with SIGKILL at various
points (issue 41, item 8): its run is never ``completed`` (nor ``failed``) with steps missing or
with part of a turn it had not ended. Whatever the kill left is either nothing (no batch was
committed yet), a run that reads ``running`` — marked ``interrupted`` by the lease once its
heartbeat is old — or a run finished as its last ended turn left it: every step of each turn it
lists, none of another.

The program is a Burr app whose graph loops back to its start, run for two turns of five steps;
one of its steps may hang (a model call that never answers) so that the kill lands after the
writer committed part of a turn. Committed rows (``django_db(transaction=True)``): the program
is another process. Every wait is a bounded poll; nothing here times how fast anything is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from runs.engine.execution.leases import mark_interrupted_runs
from runs.models import Run
from runs.tests.conftest import PROJECT_ROOT, subprocess_database_url, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

STEPS = 5  # a turn
APP = textwrap.dedent(
    """
    import os
    import time

    from burr.core import ApplicationBuilder, State
    from burr.core.action import action

    HANG = int(os.environ.get("HANG", "-1"))  # the step (counted from 0 over the turns) that hangs


    def make(i):
        @action(reads=["n"], writes=["n", f"v{i}"])
        def step(state: State) -> State:
            n = state["n"]
            if n == HANG:
                print("hanging", flush=True)
                time.sleep(120)
            return state.update(n=n + 1, **{f"v{i}": [n] * 50})

        return step


    def builder():
        names = [f"s{i}" for i in range(5)]
        return (
            ApplicationBuilder()
            .with_actions(**{name: make(i) for i, name in enumerate(names)})
            .with_transitions(*zip(names, names[1:] + names[:1]))
            .with_state(n=0)
            .with_entrypoint("s0")
        )
    """
)
PROGRAM = textwrap.dedent(
    """
    import time

    from turns_app import builder

    from runs.recording import rewind_hooks

    app = builder().with_hooks(*rewind_hooks("turns", wait=False)).build()
    print("started", flush=True)
    for turn in (1, 2):
        app.run(halt_after=["s4"])
        print("returned", turn, flush=True)
    time.sleep(120)  # the program goes on: only the kill ends it
    """
)


@pytest.fixture
def program(rewind_settings, tmp_path):
    """``program(hang=-1)``: the recording program, started; killed when the test ends."""
    (tmp_path / "turns_app.py").write_text(APP)
    (tmp_path / "my_program.py").write_text(PROGRAM)
    rewind_settings.REWIND_RUN_LEASE_SECONDS = 1
    started: list[subprocess.Popen] = []

    def start(hang: int = -1) -> subprocess.Popen:
        env = {
            **os.environ,
            "DATABASE_URL": subprocess_database_url(),
            "REWIND_PIPELINES": "turns=turns_app.builder",
            "HOME": str(tmp_path),
            "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), str(tmp_path)]),
            "HANG": str(hang),
        }
        process = subprocess.Popen(
            [sys.executable, str(tmp_path / "my_program.py")],
            cwd=tmp_path,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()
        process.wait(timeout=30)


def read_until(process: subprocess.Popen, line: str) -> None:
    """Read the program's output up to ``line`` (a bounded wait: the fixture kills it)."""
    while True:
        said = process.stdout.readline()
        assert said, f"the program ended before saying {line!r}"
        if said.strip() == line:
            return


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def the_run() -> Run | None:
    return Run.objects.filter(pipeline="turns").order_by("-pk").first()


def check_what_the_kill_left() -> str:
    """The run reads as an ended turn left it, or ``running`` until the lease interrupts it;
    returns the status it ends in."""
    run = the_run()
    if run is None:
        return "nothing"  # no batch was committed: no run claims anything
    steps = sorted(run.nodes.values_list("sequence_id", flat=True))
    assert steps == list(range(len(steps))), steps  # no hole
    if run.status in (Run.Status.COMPLETED, Run.Status.FAILED):
        assert len(steps) == STEPS * len(run.turns), (run.status, run.turns, steps)
        return run.status
    assert run.status == Run.Status.RUNNING, (run.status, run.error)
    assert len(steps) <= STEPS * (len(run.turns) + 1)
    # The lease (1 s here): the run whose program stopped beating is interrupted.
    wait_for(
        lambda: (mark_interrupted_runs(), the_run().status)[1] == Run.Status.INTERRUPTED,
        timeout=60,
        what="the lease to interrupt the run",
    )
    assert sorted(the_run().nodes.values_list("sequence_id", flat=True)) == steps
    return Run.Status.INTERRUPTED


def test_a_kill_during_the_second_turn_leaves_the_run_running_not_completed(program):
    """The second turn's fourth step hangs; the three before it are committed (the writer's
    linger ran out while it hung); the kill then finds the run ``running``, never ``completed``
    with those steps."""
    process = program(hang=STEPS + 3)
    read_until(process, "hanging")
    wait_for(
        lambda: (run := the_run()) is not None and run.nodes.count() >= STEPS + 3,
        timeout=60,
        what="the turn's first steps committed",
    )
    kill(process)

    assert check_what_the_kill_left() == Run.Status.INTERRUPTED
    run = the_run()
    assert run.nodes.count() == STEPS + 3 and len(run.turns) == 1


def test_a_kill_during_the_first_turn_leaves_the_run_running(program):
    process = program(hang=3)
    read_until(process, "hanging")
    wait_for(
        lambda: (run := the_run()) is not None and run.nodes.count() >= 3,
        timeout=60,
        what="the turn's first steps committed",
    )
    kill(process)

    assert check_what_the_kill_left() == Run.Status.INTERRUPTED
    assert the_run().nodes.count() == 3


@pytest.mark.parametrize(
    ("after", "seconds"),
    [
        ("started", 0.0),
        ("started", 0.2),
        ("returned 1", 0.0),
        ("returned 1", 0.05),
        ("returned 1", 0.3),
        ("returned 2", 0.0),
        ("returned 2", 0.3),
    ],
)
def test_a_kill_at_any_point_never_leaves_a_finished_run_with_steps_missing(
    program, after, seconds
):
    process = program()
    read_until(process, after)
    time.sleep(seconds)  # where the kill lands, not a measurement
    kill(process)

    check_what_the_kill_left()
