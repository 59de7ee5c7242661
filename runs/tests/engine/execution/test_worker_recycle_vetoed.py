"""A step timeout recycles a worker even when the app replaced its SIGTERM handler (issue 41,
item 7), with real worker processes.

The app is written as agent apps in the wild are: at import it installs a "graceful shutdown"
SIGTERM handler that only notes the request, and an ``atexit`` hook that waits for the work in
flight to finish; its ``spin`` step is a pure-Python loop far longer than the step timeout. A
worker that imported it cannot be stopped by SIGTERM, and once it gives up on the step it cannot
exit by itself either (the hook waits for the loop). Its supervisor — ``rewind_serve``'s, or a
batch's (``run_on_workers``) — must still end it: the worker says it is recycling, takes no
other run, and is killed once ``REWIND_WORKER_GRACE_SECONDS`` have passed; the run keeps the
timeout's reason and the run queued behind it completes on the fresh worker.

Committed rows (``django_db(transaction=True)``): the workers are other processes. Every wait
is a bounded poll; nothing here times how fast anything is.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.models import Run
from runs.tasks import enqueue_run
from runs.tests.conftest import PROJECT_ROOT, wait_for, worker_environment

pytestmark = pytest.mark.django_db(transaction=True)

APP = textwrap.dedent(
    '''
    """An agent app with a graceful shutdown of its own."""
    import atexit
    import signal
    import threading
    import time

    from burr.core import ApplicationBuilder, State
    from burr.core.action import action

    stopping = threading.Event()
    in_flight = threading.Event()


    def graceful(signum, frame):
        stopping.set()  # "finish what is in flight first": the process does not exit here


    signal.signal(signal.SIGTERM, graceful)


    @atexit.register
    def drain():
        while in_flight.is_set():  # the work in flight finishes before the process goes
            time.sleep(0.05)


    @action(reads=[], writes=["a"])
    def first(state: State) -> State:
        return state.update(a=1)


    @action(reads=["a"], writes=["b"])
    def spin(state: State) -> State:
        in_flight.set()
        deadline = time.monotonic() + 600
        n = 0
        while time.monotonic() < deadline:
            n += 1
        in_flight.clear()
        return state.update(b=n)


    @action(reads=["a"], writes=["b"])
    def quick(state: State) -> State:
        return state.update(b=2)


    def _app(middle):
        return (
            ApplicationBuilder()
            .with_actions(first=first, middle=middle)
            .with_transitions(("first", "middle"))
            .with_state(a=0)
            .with_entrypoint("first")
            .build()
        )


    def stubborn():
        return _app(spin)


    def polite():
        return _app(quick)
    '''
)
TIMEOUT = 3  # seconds; the loop runs for ten minutes
GRACE = 2
PIPELINES = {"stubborn": "stubborn_app.stubborn", "polite": "stubborn_app.polite"}


@pytest.fixture
def stubborn_app(rewind_settings, tmp_path, monkeypatch) -> Iterator[Path]:
    """The app on the path and registered, for this process and the workers it starts. It is
    imported here once with this process's SIGTERM handler put back: the test runner must stay
    stoppable."""
    (tmp_path / "stubborn_app.py").write_text(APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **PIPELINES}
    rewind_settings.REWIND_STEP_TIMEOUT = TIMEOUT
    rewind_settings.REWIND_WORKER_GRACE_SECONDS = GRACE
    # A worker started from this process's environment (``manage.py db_worker``) sees the same.
    environment = worker_environment(
        REWIND_PIPELINES=",".join(f"{k}={v}" for k, v in PIPELINES.items()),
        REWIND_STEP_TIMEOUT=str(TIMEOUT),
        REWIND_WORKER_GRACE_SECONDS=str(GRACE),
        PYTHONPATH=os.pathsep.join([str(PROJECT_ROOT), str(tmp_path)]),
    )
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    registry._load.cache_clear()
    previous = signal.getsignal(signal.SIGTERM)
    try:
        registry.get_pipeline("stubborn")
    finally:
        signal.signal(signal.SIGTERM, previous)
    yield tmp_path
    registry._load.cache_clear()
    sys.modules.pop("stubborn_app", None)


def status(run: Run) -> str:
    return Run.objects.get(pk=run.pk).status


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def kill(*pids: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_rewind_serve_recycles_a_worker_whose_app_ignores_sigterm(stubborn_app, caplog):
    from runs.management.commands.rewind_serve import Supervisor, start_worker, stop_worker

    stuck = create_run("stubborn", {})
    enqueue_run(stuck)
    behind = create_run("research")
    enqueue_run(behind)
    out = io.StringIO()
    supervisor = Supervisor(start_worker(), out)
    first = supervisor.worker
    supervisor.start()
    try:
        wait_for(lambda: status(behind) == Run.Status.COMPLETED, timeout=120, what="the run behind")
        stuck.refresh_from_db()
        assert stuck.status == Run.Status.FAILED
        assert stuck.error == f"step `middle` exceeded the step timeout of {TIMEOUT} s"
        # The worker that held the loop is gone (killed after the grace: its app's exit hook
        # waits for the loop), and it never took the run behind: a fresh worker did.
        wait_for(lambda: not alive(first.pid), timeout=60, what="the first worker's end")
        assert supervisor.worker is not first
        said = [record.getMessage() for record in caplog.records]
        assert any(f"worker process {first.pid} was killed" in line for line in said), said
    finally:
        supervisor.stop()
        if supervisor.worker is not None:
            stop_worker(supervisor.worker, timeout=5)
        kill(first.pid)


def test_rewind_serve_stops_an_idle_worker_whose_app_ignores_sigterm(stubborn_app):
    """The app's handler cannot hold the server's shutdown: the idle worker leaves at once,
    by itself (exit status 0), rather than being killed when the shutdown's time is up."""
    from runs.management.commands.rewind_serve import start_worker, stop_worker

    done = create_run("polite", {})
    enqueue_run(done)
    worker = start_worker()
    try:
        # Its run imported the app (and its SIGTERM handler) into the worker.
        wait_for(lambda: status(done) == Run.Status.COMPLETED, timeout=120, what="the run")
        stop_worker(worker, timeout=60)
        assert worker.poll() == 0
    finally:
        kill(worker.pid)


def test_a_batch_recycles_a_worker_whose_app_ignores_sigterm(stubborn_app, monkeypatch):
    from runs.engine.execution import workers

    started: list[int] = []
    start = workers.start_worker

    def recorded(*args, **kwargs):
        worker = start(*args, **kwargs)
        started.append(worker.pid)  # to be killed whatever happens
        return worker

    monkeypatch.setattr(workers, "start_worker", recorded)
    stuck = create_run("stubborn", {})
    behind = create_run("research")
    outcome: list = []

    def run_batch() -> None:
        try:
            outcome.append(workers.run_on_workers([stuck.pk, behind.pk], workers=1))
        finally:
            connection.close()  # this thread's own

    batch = threading.Thread(target=run_batch, daemon=True)
    batch.start()
    batch.join(timeout=180)
    try:
        assert not batch.is_alive(), "the batch is still waiting for its runs"
        (result,) = outcome
        assert set(result.done) == {stuck.pk, behind.pk} and not result.lost
        assert result.done[stuck.pk].run.status == Run.Status.FAILED
        assert result.done[stuck.pk].run.error == (
            f"step `middle` exceeded the step timeout of {TIMEOUT} s"
        )
        assert result.done[behind.pk].run.status == Run.Status.COMPLETED
        first, second = result.pids
        assert result.done[behind.pk].pid == second
        assert not alive(first) and not alive(second)
    finally:
        kill(*started)
        batch.join(timeout=30)
