"""Hermetic replays (issue 15, item 4 and 5): while a step is answered from the cache, a
connection the capture did not answer is refused before it is made, naming the step, the
host:port and the user's line; a live step keeps its network but the run says what escaped
the capture; a replayed call with no entry names the recorded call it most resembles.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action
from django.core.management import CommandError, call_command

from runs.engine.analysis.report import run_json
from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.engine.providers.simulator import Simulator
from runs.models import Node, Run
from runs.recording import live_values
from runs.tests.conftest import closed_port_url
from runs.tests.helpers.counters import Listener


@action(reads=["n"], writes=["sent"])
def notify(state: State) -> State:
    # A side effect through no HTTP library: a raw socket (an email, a message queue, …).
    with socket.create_connection(("127.0.0.1", int(os.environ["SIDE_EFFECT_PORT"])), 2):
        pass
    return state.update(sent=state["n"])


def notify_application():
    return (
        ApplicationBuilder()
        .with_actions(notify=notify)
        .with_state(n=1)
        .with_entrypoint("notify")
        .build()
    )


@action(reads=[], writes=["answer"])
def ask_with_clock(state: State) -> State:
    # A prompt that embeds a wall-clock reading kept live: every replay asks something new.
    with live_values():
        now = time.time()
    body = {
        "model": "rewind-sim-1",
        "messages": [{"role": "user", "content": f"What time is it? It is {now}"}],
    }
    reply = httpx.post(os.environ["OPENAI_BASE_URL"] + "/chat/completions", json=body, timeout=5)
    return state.update(answer=reply.json()["choices"][0]["message"]["content"])


def clock_application():
    return ApplicationBuilder().with_actions(ask=ask_with_clock).with_entrypoint("ask").build()


@pytest.fixture
def apps(rewind_settings, monkeypatch, db) -> Iterator[Listener]:
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "notify": "runs.tests.engine.calls.test_capture_guard.notify_application",
        "clock": "runs.tests.engine.calls.test_capture_guard.clock_application",
    }
    registry._load.cache_clear()
    listener = Listener()
    monkeypatch.setenv("SIDE_EFFECT_PORT", str(listener.port))
    yield listener
    listener.close()
    registry._load.cache_clear()


def test_a_live_step_that_connects_outside_capture_is_recorded_with_a_warning(apps):
    source = execute_run(create_run("notify", {}).pk)

    assert source.status == Run.Status.COMPLETED, source.error
    assert apps.reached(2, 0.3) == 1
    expected = f"notify connected to 127.0.0.1:{apps.port} outside capture"
    assert len(source.warnings) == 1 and source.warnings[0].startswith(expected)
    assert "test_capture_guard.py:" in source.warnings[0]  # the user's line
    assert "its replay will not be hermetic" in source.warnings[0]
    assert run_json(source)["warnings"] == source.warnings
    step = source.nodes.get(name="notify")
    assert [c["kind"] for c in step.calls] == ["uncaptured"]


def test_a_replay_refuses_the_uncaptured_connection_and_names_it(apps):
    source = execute_run(create_run("notify", {}).pk)
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.FAILED
    assert apps.reached(2, 0.3) == 1  # the side effect did not happen again
    step = replay.nodes.get(name="notify")
    assert step.status == Node.Status.FAILED
    assert f"connected to 127.0.0.1:{apps.port} outside capture during a replay" in step.error
    assert replay.error.startswith("notify: connected to")  # the run's error names the step
    assert "test_capture_guard.py:" in step.error and "--allow-network" in step.error


def test_allow_network_lets_a_replay_reach_it(apps):
    source = execute_run(create_run("notify", {}).pk)
    replay = execute_run(create_replay(source, allow_network=True).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert apps.reached(2) == 2 and replay.allow_network


def test_the_setting_lifts_the_guard_too(apps, rewind_settings):
    source = execute_run(create_run("notify", {}).pk)
    rewind_settings.REWIND_ALLOW_NETWORK = True
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert apps.reached(2) == 2


def test_a_fork_that_changes_the_step_keeps_its_network(apps):
    source = execute_run(create_run("notify", {}).pk)
    fork = execute_run(create_fork(source, "notify", "state.n", "2").pk)

    assert fork.status == Run.Status.COMPLETED, fork.error
    assert apps.reached(2) == 2
    assert fork.nodes.get(name="notify").output == {"sent": 2}


def test_rewind_replay_allow_network_flag(apps, capsys):
    source = execute_run(create_run("notify", {}).pk)
    with pytest.raises(CommandError, match="1 of 1 replay"):
        call_command("rewind_replay", str(source.pk), "--json")
    out = json.loads(capsys.readouterr().out)
    assert out["results"][0]["verdict"] == "failed"
    assert apps.reached(2, 0.3) == 1

    # The network allowed, the replay reaches the listener again: the same hashes, but it
    # repeated an effect it did not record, so it is never called identical.
    with pytest.raises(CommandError, match="not hermetic"):
        call_command("rewind_replay", str(source.pk), "--json", "--allow-network")
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert apps.reached(2) == 2
    assert result["verdict"] == "not-hermetic" and result["trajectory_equal"]
    assert result["escaped"] == [
        {
            "node": "notify",
            "endpoint": f"127.0.0.1:{apps.port}",
            "line": result["escaped"][0]["line"],
        }
    ]
    assert "test_capture_guard.py:" in result["escaped"][0]["line"]


def test_a_replayed_call_with_no_entry_names_the_nearest_recorded_call(apps, monkeypatch):
    with ExitStack() as stack:
        monkeypatch.setenv("OPENAI_BASE_URL", stack.enter_context(Simulator().serve()))
        source = execute_run(create_run("clock", {}).pk)
        assert source.status == Run.Status.COMPLETED, source.error
        replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.FAILED
    step = replay.nodes.get(name="ask")
    assert "a call the recorded run never made: POST chat/completions" in step.error
    assert "nearest recorded call POST chat/completions differs in" in step.error
    assert "body.messages[0].content" in step.error, step.error
    assert step.calls[0]["error"] in step.error  # the call says it too (the inspector lists it)
    assert run_json(replay)["error"].startswith("ask: a call the recorded run never made")


def test_without_a_server_the_closed_port_is_never_tried_on_a_hermetic_miss(apps, monkeypatch):
    with ExitStack() as stack:
        monkeypatch.setenv("OPENAI_BASE_URL", stack.enter_context(Simulator().serve()))
        source = execute_run(create_run("clock", {}).pk)
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    replay = execute_run(create_replay(source).pk)
    step = replay.nodes.get(name="ask")
    assert "never made" in step.error and "ConnectError" not in step.error
