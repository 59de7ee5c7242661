"""The replayed clock never mixes two timelines: a step that polls its worker thread against a
``time.time()`` deadline, replayed a day after it was recorded with a slower worker, reads more
often than recorded; once the recorded reads are used up the clock continues from the last one
by the time elapsed since — never earlier than a recorded read, never the wall clock of today —
so the loop does not conclude it timed out, and the step names the line whose reads were not
recorded.
"""

from __future__ import annotations

import threading
import time

import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Run

DAY_NS = 86_400 * 10**9
# How long the worker's job takes (a model, an API, a disk): the test makes a replay's slower.
WORKER = {"seconds": 0.05}


@action(reads=["documents"], writes=["summary", "on_time", "timed_out"])
def summarise_in_background(state: State) -> State:
    done = False
    result: dict = {}

    def work() -> None:
        nonlocal done
        started = time.time()  # the worker's own reads: its branch's, replayed to it
        time.sleep(WORKER["seconds"])
        result["summary"] = f"{len(state['documents'])} documents summarised"
        result["on_time"] = time.time() - started < 0.2
        done = True

    threading.Thread(target=work, daemon=True).start()
    deadline = time.time() + 5
    while time.time() < deadline:
        if done:
            break
        time.sleep(0.01)
    else:
        return state.update(summary=None, on_time=None, timed_out=True)
    return state.update(**result, timed_out=False)


@action(reads=[], writes=["ticks"])
def poll_until_ready(state: State) -> State:
    ready = threading.Event()
    threading.Thread(target=lambda: (time.sleep(WORKER["seconds"]), ready.set())).start()
    ticks = [time.time()]
    while not ready.is_set():
        time.sleep(0.01)
        ticks.append(time.time())
    return state.update(ticks=ticks)


def app_of(**actions):
    def build():
        name = next(iter(actions))
        builder = ApplicationBuilder().with_actions(**actions).with_entrypoint(name)
        return builder.with_state(documents=["q3.pdf", "q4.pdf", "notes.md"]).build()

    return build


deadline_application = app_of(summarise=summarise_in_background)
ticks_application = app_of(poll=poll_until_ready)

APPS = {
    "clock_deadline": f"{__name__}.deadline_application",
    "clock_ticks": f"{__name__}.ticks_application",
}


@pytest.fixture
def apps(rewind_settings, transactional_db, monkeypatch):
    """Committed rows: the worker thread is the step's branch, with a connection of its own."""
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    monkeypatch.setitem(WORKER, "seconds", 0.05)
    yield rewind_settings
    registry._load.cache_clear()


def recorded_yesterday(name: str) -> Run:
    """A run of ``name``, its clock reads moved a day back: as if recorded yesterday and
    replayed today (the usual case; a test cannot wait a day)."""
    source = execute_run(create_run(name, {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    for node in source.nodes.all():
        reads = node.values_read["reads"]
        for key, values in reads.items():
            if key.split("|")[1] == "clock":
                reads[key] = [v - DAY_NS for v in values]
        node.save(update_fields=["values_read"])
    return source


def line_of(function, text: str) -> str:
    """``module:line`` of the first line of ``function`` that holds ``text``."""
    import inspect

    lines, first = inspect.getsourcelines(function)
    return f"{__name__}:{first + next(i for i, line in enumerate(lines) if text in line)}"


def test_a_step_polling_its_worker_against_a_deadline_replays_identical_when_slower(apps):
    source = recorded_yesterday("clock_deadline")
    wrote = source.nodes.get().output
    assert wrote == {"summary": "3 documents summarised", "on_time": True, "timed_out": False}
    reads = source.nodes.get().values_read["reads"]
    assert {key.partition("|")[0] for key in reads} == {"", "0"}  # the worker's: branch 0

    WORKER["seconds"] = 0.4  # the worker is slower today: the loop polls more than recorded
    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay.nodes.get().output == wrote  # not a timeout; the worker's reads replayed
    assert verdict.verdict == "identical", verdict
    # The loop's extra reads were not recorded, and the step says so; the deadline's was.
    missed = replay.nodes.get().values_read["not_replayed"]
    assert [(m["line"], m["what"], m["thread"]) for m in missed] == [
        (line_of(summarise_in_background, "while time.time()"), "clock", "")
    ]
    assert missed[0]["reads"] >= 10


def test_a_loop_that_runs_longer_on_replay_sees_a_monotone_clock_continuing_the_recorded(apps):
    source = recorded_yesterday("clock_ticks")
    recorded = [tick - 86_400 for tick in source.nodes.get().output["ticks"]]  # as replayed

    WORKER["seconds"] = 0.4
    began = time.monotonic()
    replay = execute_run(create_replay(source).pk)
    took = time.monotonic() - began
    assert replay.status == Run.Status.COMPLETED, replay.error
    ticks = replay.nodes.get().output["ticks"]

    assert len(ticks) > len(recorded) + 5
    assert ticks[: len(recorded)] == pytest.approx(recorded, abs=1e-6)  # as recorded
    assert ticks == sorted(ticks)  # never earlier than a read before it
    # Continued by the time elapsed: yesterday's clock moved on by about the replay's time,
    # never today's wall clock.
    assert 0.15 < ticks[-1] - recorded[-1] < took + 1
    missed = replay.nodes.get().values_read["not_replayed"]
    assert missed == [
        {
            "line": line_of(poll_until_ready, "ticks.append"),
            "what": "clock",
            "thread": "",
            "reads": len(ticks) - len(recorded),
        }
    ]
