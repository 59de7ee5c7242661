"""A short replay has no fixed cost to speak of (issue 19, item 2): a fully cached replay of
the demo takes a handful of statements and three commits, while a replay that goes live still
commits each live step before the next begins, a cancel still leaves no write after the fence
closes, and a replay whose worker died with steps held resumes to the same result.

Commits are real here (another connection reads what is committed, a canceller runs beside
the run), so these tests use ``transaction=True``. Statement counts, never timings:
``rewind_bench`` times the same replay against bare Burr.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import httpx
import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from django.core.management import call_command
from django.db import connection

from runs.bench.replays import Statements
from runs.engine.apps import registry
from runs.engine.execution import actions, runner
from runs.engine.execution.fence import Fence
from runs.engine.execution.leases import resume_run
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import BurrState, LLMCacheEntry, Node, Run
from runs.tests.helpers import slow_apps

pytestmark = pytest.mark.django_db(transaction=True)


def committed_steps(run_id: int) -> int:
    """The steps of ``run_id`` another connection sees: those committed."""
    seen: list[int] = []

    def count() -> None:
        try:
            seen.append(Node.objects.filter(run_id=run_id).count())
        finally:
            connection.close()

    reader = threading.Thread(target=count)
    reader.start()
    reader.join(timeout=30)
    return seen[0]


def test_a_fully_cached_replay_of_the_demo_takes_few_statements_and_three_commits(
    research_run,
):
    with Statements() as sent:
        replay = execute_run(create_replay(research_run).pk)
        verdict = replay_verdict(research_run, replay)

    assert verdict.verdict == "identical", verdict
    assert replay.nodes.count() == 8
    # create: 1. the source's first executed step  2. INSERT the run (commits by itself)
    # execute: 3. claim (commits by itself)  4. the run, its parent joined  5. its steps and
    # its source's  6–7. the pinned llm and tool entries  8. the source's state blobs
    # end, one transaction: 9–11. the 8 state rows, the 8 steps, the 7 edges (one INSERT
    # each)  12–13. cache hits (llm, tool)  14. the run's end (not read back: its values are
    # the ones it wrote)
    # verdict: 15. both runs' steps
    assert len(sent.data) == 15, "\n".join(sent.data)
    assert sent.statements <= 3 * 8 + 8
    assert sent.transactions == 1
    assert sent.commits == 3
    # What execute_run returns is the row as it is (the heartbeat aside: a thread beats it).
    stored = Run.objects.get(pk=replay.pk)
    for field in Run._meta.concrete_fields:
        if field.name != "heartbeat_at":
            assert getattr(replay, field.attname) == getattr(stored, field.attname), field.name


def test_a_replay_that_goes_live_commits_the_steps_before_the_call_and_each_live_step_before_the_next(
    research_run, monkeypatch
):
    # revise (step 4) has no cache entry any more: the replay calls the simulator there.
    LLMCacheEntry.objects.filter(node_name="revise").delete()
    replay = create_replay(research_run)
    at_begin: dict[int, int] = {}
    at_call: list[int] = []
    begin, call_llm = Fence.begin, actions._call_llm

    def begin_step(fence: Fence, sequence_id: int, name: str) -> None:
        at_begin[sequence_id] = committed_steps(replay.pk)
        begin(fence, sequence_id, name)

    def calling(spec, request, occurrence, ctx, record):  # noqa: ANN001
        at_call.append(committed_steps(replay.pk))
        return call_llm(spec, request, occurrence, ctx, record)

    monkeypatch.setattr(Fence, "begin", begin_step)
    monkeypatch.setattr(actions, "_call_llm", calling)
    replay = execute_run(replay.pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    sources = list(replay.nodes.order_by("sequence_id").values_list("name", "cache_source"))
    assert sources[4] == ("revise", "live")
    assert at_begin[0] == 0 and at_begin[3] == 0  # cached: held, not committed yet
    assert at_call == [4]  # the steps before the live call show while it is made
    assert at_begin[5] == 5  # the live step is committed before the next begins
    assert committed_steps(replay.pk) == 8
    assert replay.trajectory_sha256 == research_run.trajectory_sha256


# -- a Burr app whose cached first step is held while its second hangs -----------------------


def _answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"n": json.loads(request.content)["n"] + 1})


client = httpx.Client(base_url="http://fetch.invalid", transport=httpx.MockTransport(_answer))


@action(reads=["n"], writes=["n"])
def fetch(state: State) -> State:
    return state.update(n=client.post("/next", json={"n": state["n"]}).json()["n"])


@action(reads=["n"], writes=["m"])
def wait(state: State) -> State:
    slow_apps.hang()
    return state.update(m=state["n"] * 10)


def fetcher() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(fetch=fetch, wait=wait)
        .with_transitions(("fetch", "wait"))
        .with_state(n=1)
        .with_entrypoint("fetch")
        .build()
    )


@pytest.fixture
def fetcher_app(rewind_settings) -> Iterator:
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "fetcher": "runs.tests.engine.execution.test_replay_cost.fetcher",
    }
    rewind_settings.REWIND_STEP_TIMEOUT = 3600  # only the cancel stops the hanging step
    rewind_settings.REWIND_STEP_TIMEOUTS = {}
    registry._load.cache_clear()
    slow_apps.STARTED.clear()
    slow_apps.RELEASE.set()  # the source run's wait returns at once
    yield
    slow_apps.RELEASE.set()
    registry._load.cache_clear()


def test_cancel_during_a_cached_replay_writes_the_held_steps_and_nothing_after_the_fence_closes(
    fetcher_app,
):
    source = execute_run(create_run("fetcher", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    slow_apps.STARTED.clear()
    slow_apps.RELEASE.clear()
    replay = create_replay(source)
    held: list[int] = []

    def cancel() -> None:
        try:
            assert slow_apps.STARTED.wait(30), "the slow step never started"
            held.append(Node.objects.filter(run_id=replay.pk).count())
            call_command("rewind_cancel", str(replay.pk), stdout=open("/dev/null", "w"))
        finally:
            connection.close()

    canceller = threading.Thread(target=cancel)
    canceller.start()
    replay = execute_run(replay.pk)
    canceller.join(timeout=30)

    assert held == [0]  # fetch came from the cache: held while wait hung
    assert replay.status == Run.Status.CANCELLED
    steps = list(replay.nodes.order_by("sequence_id").values_list("name", "status", "cache_source"))
    assert steps == [("fetch", "completed", "tool-cache"), ("wait", "failed", "live")]

    slow_apps.RELEASE.set()  # the abandoned step finishes after all: it writes nothing
    for thread in threading.enumerate():
        if thread.name == f"run-{replay.pk}-steps":
            thread.join(timeout=30)
            assert not thread.is_alive()
    assert (
        list(replay.nodes.order_by("sequence_id").values_list("name", "status", "cache_source"))
        == steps
    )
    rows = BurrState.objects.filter(app_id=str(replay.pk)).order_by("sequence_id")
    assert list(rows.values_list("sequence_id", "status")) == [(0, "completed"), (1, "failed")]


# -- a worker that dies with steps held ---------------------------------------------------------


class WorkerDied(BaseException):
    """What a killed worker looks like from inside: nothing after it runs."""


class NoHeartbeat:
    def __init__(self, run_id: int) -> None:
        self.cancelled = None

    def start(self) -> None: ...

    def stop(self) -> None: ...


def test_a_replay_whose_worker_died_with_steps_held_resumes_to_an_identical_result(
    research_run, monkeypatch
):
    replay = create_replay(research_run)
    begin = Fence.begin

    def die_at_step_5(fence: Fence, sequence_id: int, name: str) -> None:
        if sequence_id == 5:
            raise WorkerDied
        begin(fence, sequence_id, name)

    with monkeypatch.context() as patched:
        patched.setattr(runner, "Heartbeat", NoHeartbeat)
        patched.setattr(Fence, "begin", die_at_step_5)
        with pytest.raises(WorkerDied):
            execute_run(replay.pk)

    # Steps 0–4 were held, never committed: the run is left running with none of them.
    replay.refresh_from_db()
    assert replay.status == Run.Status.RUNNING
    assert committed_steps(replay.pk) == 0
    assert not BurrState.objects.filter(app_id=str(replay.pk)).exists()

    Run.objects.interrupt([replay.pk], "the worker died")  # as the lease would, later
    resumed = execute_run(resume_run(Run.objects.get(pk=replay.pk)).pk)

    assert resumed.status == Run.Status.COMPLETED, resumed.error
    assert replay_verdict(research_run, resumed).verdict == "identical"
    hashes = lambda run: list(  # noqa: E731
        run.nodes.order_by("sequence_id").values_list("name", "output_sha256")
    )
    assert hashes(resumed) == hashes(research_run)
