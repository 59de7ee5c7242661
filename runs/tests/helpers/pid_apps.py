"""The ``pids`` Burr app: its one code step appends ``os.getpid()`` to a file each time it executes
(a Burr action is a code step, re-executed by every replay), so a test sees *where* a run ran —
here or in which queue worker. Away from the test process, the ``raise``, ``die``, ``slow`` and
``slower`` variants misbehave. Used by ``commands/test_command_replay_workers.py`` (``rewind_replay
--workers``) and ``commands/test_command_batch_workers.py`` (``rewind_batch --workers``); the
worker processes import it by its dotted path (``APPS``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.execution import workers as workers_module
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Run

PID_DIR = "REWIND_TEST_PID_DIR"  # where the step records the pid that executed it
HOME_PID = "REWIND_TEST_HOME_PID"  # the test process: a source run always completes here


# --- the ``pids`` Burr app --------------------------------------------------------------------


@action(reads=["n", "mode"], writes=["n"])
def count(state: State) -> State:
    """Records the executing pid; away from the test process, ``mode`` may make it misbehave."""
    folder = os.environ.get(PID_DIR)
    if folder:
        with open(Path(folder) / f"{os.getpid()}.pid", "a") as handle:
            handle.write("x")
    away = str(os.getpid()) != os.environ.get(HOME_PID)
    if away and state["mode"] == "raise":
        raise ValueError("the step refused to run in a worker")
    if away and state["mode"] == "die":
        os._exit(7)  # the worker process dies mid-run, like a kill -9 or the OOM killer
    if away and state["mode"] == "slow":
        time.sleep(0.5)
    if away and state["mode"] == "slower":
        time.sleep(2)
    return state.update(n=state["n"] + 1)


@action(reads=["n"], writes=["total"])
def finish(state: State) -> State:
    return state.update(total=state["n"] * 10)


def _application(mode: str) -> Application:
    return (
        ApplicationBuilder()
        .with_actions(count=count, finish=finish)
        .with_transitions(("count", "finish"))
        .with_state(n=1, mode=mode)
        .with_entrypoint("count")
        .build()
    )


def pids_application() -> Application:
    return _application("ok")


def raising_application() -> Application:
    return _application("raise")


def dying_application() -> Application:
    return _application("die")


def slow_application() -> Application:
    return _application("slow")


def slower_application() -> Application:
    return _application("slower")


APPS = {
    "pids": f"{__name__}.pids_application",
    "pids_raise": f"{__name__}.raising_application",
    "pids_die": f"{__name__}.dying_application",
    "pids_slow": f"{__name__}.slow_application",
    "pids_slower": f"{__name__}.slower_application",
}


# --- registering it, reading what it recorded --------------------------------------------------


@pytest.fixture
def pids(rewind_settings, monkeypatch, tmp_path) -> Path:
    """The ``pids`` apps registered; returns the folder their step records pids in."""
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv(PID_DIR, str(folder))
    monkeypatch.setenv(HOME_PID, str(os.getpid()))
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield folder
    registry._load.cache_clear()


def recorded_pids(folder: Path) -> dict[int, int]:
    """pid → how many steps it executed; the folder is emptied for the next command."""
    counts = {int(p.stem): len(p.read_text()) for p in folder.glob("*.pid")}
    for path in folder.glob("*.pid"):
        path.unlink()
    return counts


def completed(pipeline: str, inputs: dict | None = None) -> Run:
    run = execute_run(create_run(pipeline, inputs).pk)
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


def counting_starts(monkeypatch) -> list[int]:
    """The pids of the worker processes ``run_on_workers`` starts, in order."""
    started: list[int] = []
    real = workers_module.start_worker

    def start(config, worker_id):
        worker = real(config, worker_id)
        started.append(worker.pid)
        return worker

    monkeypatch.setattr(workers_module, "start_worker", start)
    return started


def assert_gone(pids_: list[int] | set[int]) -> None:
    for pid in pids_:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # every worker has exited (and been reaped)
