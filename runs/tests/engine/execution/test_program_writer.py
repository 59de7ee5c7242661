"""Issue 19, item 1: a recorded program's steps leave the step's path — a background writer
writes them, many to a transaction — and none is lost by a normal exit, a crash of the user's
code, Ctrl-C or SIGTERM; ``sync=True`` still commits each step before the next one begins."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from burr.core import ApplicationBuilder, State, default, expr
from burr.core.action import action
from django.db import connections
from django.test.utils import CaptureQueriesContext

from runs.engine.apps.registry import _load
from runs.engine.execution import writer
from runs.models import Node, Run
from runs.tests.conftest import PROJECT_ROOT, subprocess_database_url

pytestmark = pytest.mark.django_db(transaction=True)

COUNTER_APP = textwrap.dedent(
    """
    import os
    import time

    from burr.core import ApplicationBuilder, State, default, expr
    from burr.core.action import action


    @action(reads=["n"], writes=["n"])
    def count(state: State) -> State:
        n = state["n"] + 1
        if n == 4 and os.environ.get("MODE") == "raise":
            raise ValueError("the user's code failed")
        if n == 4 and os.environ.get("MODE") == "wait":
            print("ready", flush=True)
            time.sleep(60)
        return state.update(n=n)


    @action(reads=["n"], writes=["done"])
    def done(state: State) -> State:
        return state.update(done=True)


    def builder():
        return (
            ApplicationBuilder()
            .with_actions(count=count, done=done)
            .with_transitions(("count", "count", expr("n < 6")), ("count", "done", default))
            .with_state(n=0, done=False)
            .with_entrypoint("count")
        )
    """
)
# The writer made to lag behind the steps: whatever the program does next, its steps are
# still queued, not committed.
PROGRAM = textwrap.dedent(
    """
    import os
    import time

    from counter_app import builder

    from runs.engine.execution import writer
    from runs.recording import rewind_hooks

    _write = writer.Writer._write


    def lagging(self, batch):
        time.sleep(0.3)
        _write(self, batch)


    writer.Writer._write = lagging
    hooks = rewind_hooks("counter", wait=os.environ.get("WAIT") != "no")
    app = builder().with_hooks(*hooks).build()
    app.run(halt_after=["done"])
    print("finished", app.state["n"], flush=True)
    """
)


def start_program(tmp_path, mode: str, wait: bool = True) -> subprocess.Popen:
    (tmp_path / "counter_app.py").write_text(COUNTER_APP)
    script = tmp_path / "my_program.py"
    script.write_text(PROGRAM)
    env = {
        **os.environ,
        "DATABASE_URL": subprocess_database_url(),
        "REWIND_PIPELINES": "counter=counter_app.builder",
        "HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), str(tmp_path)]),
        "MODE": mode,
        "WAIT": "yes" if wait else "no",
    }
    return subprocess.Popen(
        [sys.executable, str(script)], cwd=tmp_path, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def steps() -> list[tuple[int, str, str]]:
    run = Run.objects.get(pipeline="counter")
    return [(n.sequence_id, n.name, n.status) for n in run.nodes.order_by("sequence_id")]


@pytest.mark.parametrize("wait", [True, False], ids=["waiting", "wait=False"])
def test_a_normal_exit_loses_no_step(rewind_settings, tmp_path, wait):
    program = start_program(tmp_path, "normal", wait)
    out, err = program.communicate(timeout=120)

    assert program.returncode == 0, err
    assert out.strip() == "finished 6"
    assert steps() == [(i, "count", "completed") for i in range(6)] + [(6, "done", "completed")]
    run = Run.objects.get(pipeline="counter")
    assert run.status == Run.Status.COMPLETED and run.trajectory_sha256
    assert run.turns == [{"inputs": {}}] and run.halt["after"] == ["done"]


def test_a_crash_of_the_users_code_loses_no_step_and_fails_the_run(rewind_settings, tmp_path):
    program = start_program(tmp_path, "raise")
    _, err = program.communicate(timeout=120)

    assert program.returncode == 1 and "ValueError: the user's code failed" in err
    assert steps() == [(0, "count", "completed"), (1, "count", "completed"),
                       (2, "count", "completed"), (3, "count", "failed")]  # fmt: skip
    run = Run.objects.get(pipeline="counter")
    assert run.status == Run.Status.FAILED
    assert run.error == "ValueError: the user's code failed"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_loses_no_step(rewind_settings, tmp_path, signum):
    program = start_program(tmp_path, "wait")
    assert program.stdout.readline().strip() == "ready"  # in the 4th step, 3 done and queued
    program.send_signal(signum)
    _, err = program.communicate(timeout=120)

    assert program.returncode != 0, err
    assert steps() == [(0, "count", "completed"), (1, "count", "completed"),
                       (2, "count", "completed"), (3, "count", "failed")]  # fmt: skip
    run = Run.objects.get(pipeline="counter")
    assert run.status == Run.Status.FAILED
    expected = "KeyboardInterrupt" if signum == signal.SIGINT else "SystemExit"
    assert run.error.startswith(expected), run.error
    assert Node.objects.get(run=run, sequence_id=3).error.startswith(expected)


# -- in this process: what the writer's own connection commits ------------------------------

seen: list[bool] = []  # per step from the second: was the step before it in the database?


last_step: threading.Event | None = None  # set by the last probe step, when a test asks


@action(reads=["n"], writes=["n"])
def probe(state: State) -> State:
    if last_step is not None and state["n"] == 0:  # the run has begun: the writer is busy
        gate = last_step
        writer.shared()._put(None, lambda: gate.wait(30), None)
    if last_step is not None and state["n"] == STEPS - 1:
        last_step.set()
    if state["n"] > 0:
        seen.append(Node.objects.filter(run__pipeline="probe", sequence_id=state["n"] - 1).exists())
    return state.update(n=state["n"] + 1)


@action(reads=["n"], writes=["done"])
def finish(state: State) -> State:
    return state.update(done=True)


STEPS = 20


def probe_app() -> ApplicationBuilder:
    return (
        ApplicationBuilder()
        .with_actions(probe=probe, finish=finish)
        .with_transitions(("probe", "probe", expr(f"n < {STEPS}")), ("probe", "finish", default))
        .with_state(n=0, done=False)
        .with_entrypoint("probe")
    )


@pytest.fixture
def registered(rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "probe": "runs.tests.engine.execution.test_program_writer.probe_app",
    }
    _load.cache_clear()
    seen.clear()
    yield
    writer.shared().close()  # the writer's connection closed before the database goes
    _load.cache_clear()


@contextmanager
def writer_commits() -> Iterator[CaptureQueriesContext]:
    """The statements the writer's own connection runs (it lives in the writer's thread)."""
    shared = writer.shared()
    queries = shared.call(lambda: CaptureQueriesContext(connections["default"]).__enter__())
    try:
        yield queries
    finally:
        shared.call(lambda: queries.__exit__(None, None, None))


def commits(queries: CaptureQueriesContext) -> int:
    return sum(q["sql"] == "COMMIT" for q in queries.captured_queries)


def test_steps_are_written_many_to_a_transaction(registered):
    from runs.recording import rewind_hooks

    app = probe_app().with_hooks(*rewind_hooks("probe")).build()
    with writer_commits() as queries:
        app.run(halt_after=["finish"])

    run = Run.objects.get(pipeline="probe")
    assert run.status == Run.Status.COMPLETED
    assert run.nodes.count() == STEPS + 1  # all committed when run() returned
    assert 1 <= commits(queries) < STEPS + 1


def test_steps_the_writer_has_not_reached_go_in_one_insert_per_table(registered):
    """A writer behind the program writes the steps queued for it as one batch: each kind of
    row in one multi-row INSERT, not one per step (held to the batch's end)."""
    from runs.recording import rewind_hooks

    global last_step
    app = probe_app().with_hooks(*rewind_hooks("probe")).build()
    with writer_commits() as queries:
        last_step = threading.Event()  # the writer is busy from the first probe step to the last
        started = time.monotonic()
        app.run(halt_after=["finish"])
        assert time.monotonic() - started < 25  # released by the last step, not by the timeout
    last_step = None

    run = Run.objects.get(pipeline="probe")
    assert run.status == Run.Status.COMPLETED
    assert run.nodes.count() == STEPS + 1
    inserts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("INSERT")]
    node_rows = [sql for sql in inserts if sql.startswith('INSERT INTO "runs_node"')]
    state_rows = [sql for sql in inserts if sql.startswith('INSERT INTO "runs_burrstate"')]
    # The last step is handed over after the writer went on; the steps before it together.
    assert len(node_rows) <= 2, node_rows
    assert len(state_rows) <= 2
    assert list(run.nodes.order_by("sequence_id").values_list("sequence_id", flat=True)) == list(
        range(STEPS + 1)
    )


def test_sync_commits_each_step_before_the_next_begins(registered):
    from runs.recording import rewind_hooks

    app = probe_app().with_hooks(*rewind_hooks("probe", sync=True)).build()
    with writer_commits() as queries:
        app.run(halt_after=["finish"])

    assert seen == [True] * (STEPS - 1)
    assert commits(queries) >= STEPS + 1
    assert Run.objects.get(pipeline="probe").nodes.count() == STEPS + 1


def test_without_wait_a_run_call_returns_before_its_steps_are_committed(registered, monkeypatch):
    from runs.recording import rewind_hooks

    written = threading.Event()
    _write = writer.Writer._write

    def lagging(self, batch):
        time.sleep(0.3)  # the program is long past its ``run`` by then
        _write(self, batch)
        written.set()

    monkeypatch.setattr(writer.Writer, "_write", lagging)
    app = probe_app().with_hooks(*rewind_hooks("probe", wait=False)).build()
    app.run(halt_after=["finish"])
    assert not written.is_set()
    assert not Node.objects.filter(run__pipeline="probe").exists()

    assert writer.shared().flush(30)
    run = Run.objects.get(pipeline="probe")
    assert run.status == Run.Status.COMPLETED and run.nodes.count() == STEPS + 1


def test_sync_cannot_be_without_wait(registered):
    from runs.recording import rewind_hooks

    with pytest.raises(ValueError, match="sync=True.*wait=False"):
        rewind_hooks("probe", sync=True, wait=False)
    assert not Run.objects.filter(pipeline="probe").exists()


def test_quick_steps_wait_for_one_another_and_go_in_one_transaction(registered, monkeypatch):
    """The writer lingers for more pieces before it writes: a run whose steps come quicker than
    ``LINGER_SECONDS`` is one transaction, committed by the flush at the end of ``run``."""
    from runs.recording import rewind_hooks

    monkeypatch.setattr(writer, "LINGER_SECONDS", 60.0)  # only the flush ends the batch
    app = probe_app().with_hooks(*rewind_hooks("probe")).build()
    with writer_commits() as queries, CaptureQueriesContext(connections["default"]) as own:
        started = time.monotonic()
        app.run(halt_after=["finish"])
        assert time.monotonic() - started < 30  # ended by the flush, not by the linger

    # None on the program's own thread but the probe's own look at the steps committed.
    probes = 'SELECT 1 AS "a" FROM "runs_node"'
    assert all(q["sql"].startswith(probes) for q in own.captured_queries), own.captured_queries
    run = Run.objects.get(pipeline="probe")
    assert run.status == Run.Status.COMPLETED and run.nodes.count() == STEPS + 1
    # The end of writer_commits' own call, then everything else (before the linger: one or
    # more a step).
    assert commits(queries) == 2, [q["sql"] for q in queries.captured_queries]
    assert seen == [False] * (STEPS - 1)  # nothing was committed while the steps ran


@action(reads=["n"], writes=["n"])
def patient(state: State) -> State:
    """Waits (10 s at most) until the step before it is committed: the writer's linger ends by
    itself while a step takes its time, without a flush."""
    if state["n"] > 0:
        deadline = time.monotonic() + 10
        previous = Node.objects.filter(run__pipeline="patient", sequence_id=state["n"] - 1)
        while not previous.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        seen.append(previous.exists())
    return state.update(n=state["n"] + 1)


def patient_app() -> ApplicationBuilder:
    return (
        ApplicationBuilder()
        .with_actions(patient=patient, finish=finish)
        .with_transitions(("patient", "patient", expr("n < 4")), ("patient", "finish", default))
        .with_state(n=0, done=False)
        .with_entrypoint("patient")
    )


def test_a_step_that_takes_longer_than_the_linger_finds_the_one_before_it_committed(
    registered, rewind_settings, monkeypatch
):
    from runs.recording import rewind_hooks

    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "patient": "runs.tests.engine.execution.test_program_writer.patient_app",
    }
    _load.cache_clear()
    monkeypatch.setattr(writer, "LINGER_SECONDS", 0.05)
    patient_app().with_hooks(*rewind_hooks("patient")).build().run(halt_after=["finish"])

    assert seen == [True] * 3
    assert Run.objects.get(pipeline="patient").nodes.count() == 5


class CountingCondition(threading.Condition):
    def __init__(self) -> None:
        super().__init__()
        self.notified = 0

    def notify(self, n: int = 1) -> None:
        self.notified += 1
        super().notify(n)


class Piecework:
    stopped = False
    holding = True

    def __init__(self) -> None:
        self.done: list[int] = []
        self.batches = 0

    def failed(self, exc: BaseException) -> None:
        raise AssertionError(exc)

    def batch_end(self) -> None:
        self.batches += 1


def test_the_writer_is_woken_for_a_first_piece_and_a_flush_not_for_each_piece(monkeypatch):
    """Each wake-up is a thread switch the program's step pays for: pieces that join a
    lingering batch leave the writer asleep until the flush that ends it."""
    monkeypatch.setattr(writer, "LINGER_SECONDS", 60.0)
    own = writer.Writer()
    own._ready = CountingCondition()
    owner = Piecework()
    try:
        for i in range(20):
            own.submit(owner, lambda i=i: owner.done.append(i))
        assert own.flush(timeout=30)
    finally:
        own.close(timeout=30)

    assert owner.done == list(range(20))
    assert owner.batches == 1  # one transaction
    assert own._ready.notified <= 4  # the first piece, the flush, and close: its flush, its stop


def test_a_batch_of_steps_stores_its_cache_entries_in_one_insert(rewind_settings, monkeypatch):
    """The answers of the steps in one batch go in one multi-row INSERT (and one SELECT for
    those kept before), not one or two statements a call; each step names its own entry."""
    import openai

    from runs.bench.pipelines import nine
    from runs.engine.providers.simulator import Simulator
    from runs.models import LLMCacheEntry
    from runs.recording import rewind_hooks

    monkeypatch.setattr(writer, "LINGER_SECONDS", 60.0)  # the steps go in one batch
    with Simulator().serve() as url:
        client = openai.OpenAI(base_url=url, api_key="sk-test-writer", max_retries=0)
        # The second run's answers are all kept already: read back by one SELECT.
        for expected in (["INSERT"], ["INSERT", "SELECT"]):
            app = nine.builder(client).with_hooks(*rewind_hooks("nine")).build()
            with writer_commits() as queries:
                app.run(halt_after=[f"step{nine.STEPS}"])
            writer.shared().close()
            sent = [q["sql"] for q in queries.captured_queries]
            entries = [sql.split()[0] for sql in sent if '"runs_llmcacheentry"' in sql]
            assert entries == expected, sent

    assert LLMCacheEntry.objects.count() == nine.STEPS
    first, second = Run.objects.filter(pipeline="nine").order_by("pk")
    for run in (first, second):
        assert run.status == Run.Status.COMPLETED
        steps = list(run.nodes.order_by("sequence_id"))
        assert [n.name for n in steps] == [f"step{i}" for i in range(1, nine.STEPS + 1)]
        named = [n.cache_entries for n in steps]
        assert all(len(e) == 1 for e in named)
        for node in steps:  # each step's entry holds that step's own question
            entry = LLMCacheEntry.objects.get(pk=int(node.cache_entries[0].split(":")[1]))
            assert entry.node_name == node.name
            assert entry.key == node.calls[0]["key"]
    assert [n.cache_entries for n in first.nodes.order_by("sequence_id")] == [
        n.cache_entries for n in second.nodes.order_by("sequence_id")
    ]
