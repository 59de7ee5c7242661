"""rewind_import --follow (issue 18, item 5): a Burr app running in another process, tracked
with ``.with_tracker("local")``, is imported step by step as its log grows — running while a
step is open, completed when it ends — by the command running in a process of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from runs.models import Run
from runs.tests.conftest import PROJECT_ROOT, subprocess_database_url

pytestmark = pytest.mark.django_db(transaction=True)

APP = """
import pathlib, sys, time

from burr.core import ApplicationBuilder, State, action

gate = pathlib.Path(sys.argv[2])


@action(reads=["n"], writes=["n"])
def step(state: State) -> State:
    if state["n"] == 3:  # wait, inside step 3, until the test opens the gate
        while not gate.exists():
            time.sleep(0.05)
    return state.update(n=state["n"] + 1)


app = (
    ApplicationBuilder()
    .with_actions(step=step)
    .with_transitions(("step", "step"))
    .with_state(n=0)
    .with_entrypoint("step")
    .with_tracker("local", project="slow", params={"storage_dir": sys.argv[1]})
    .with_identifiers(app_id="live")
    .build()
)
for _ in range(6):
    app.step()
"""


def _wait(predicate, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _run() -> Run | None:
    return Run.objects.filter(imported_from__app_id="live").first()


def test_follow_imports_the_steps_of_an_app_running_elsewhere(tmp_path):
    storage, gate = tmp_path / "burr", tmp_path / "gate"
    script = tmp_path / "slow_app.py"
    script.write_text(APP)
    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "HOME": str(tmp_path),
           "PYTHONPATH": str(PROJECT_ROOT)}  # fmt: skip
    app = subprocess.Popen([sys.executable, str(script), str(storage), str(gate)], env=env)
    follower = None
    try:
        _wait(lambda: (storage / "slow" / "live" / "log.jsonl").exists(), "the app's log")
        follower = subprocess.Popen(
            [sys.executable, "manage.py", "rewind_import", str(storage), "--follow",
             "--interval", "0.2"],
            cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        # Steps 0–2 are done, step 3 is open: the run is running with three steps.
        _wait(lambda: (r := _run()) is not None and r.nodes.count() == 3, "three steps")
        assert _run().status == Run.Status.RUNNING
        gate.touch()
        assert app.wait(timeout=60) == 0
        _wait(lambda: _run().nodes.count() == 6, "six steps")
        _wait(lambda: _run().status == Run.Status.COMPLETED, "the run to complete")
        run = _run()
        assert [n.output for n in run.nodes.order_by("sequence_id")] == [
            {"n": i} for i in range(1, 7)
        ]
        follower.send_signal(signal.SIGINT)
        out, err = follower.communicate(timeout=30)
        assert follower.returncode == 0, err
        assert "imported 1 run(s)" in out and "updated 1 run(s)" in out
        assert "stopped following" in err
    finally:
        for process in (app, follower):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
