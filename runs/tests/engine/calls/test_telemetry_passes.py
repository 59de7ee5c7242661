"""Observability is not an effect (DESIGN.md, "Hermetic replays"): a destination declared in
``REWIND_TELEMETRY_DESTINATIONS`` — here a ``logging.handlers.DatagramHandler``'s and a statsd
counter's, both UDP on loopback — passes an unchanged replay, which stays ``identical`` (also
with ``--allow-network``) and lists what went out; without the declaration the replay fails as
for any other datagram, and a destination left undeclared is still refused.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Run
from runs.tests.helpers.counters import DatagramCounter


@pytest.fixture
def world(rewind_settings, monkeypatch, db) -> Iterator[dict]:
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "observed": "runs.tests.helpers.telemetry_apps.observed_application",
    }
    registry._load.cache_clear()
    logs, statsd = DatagramCounter(), DatagramCounter()
    monkeypatch.setenv("LOGS_PORT", str(logs.port))
    monkeypatch.setenv("STATSD_PORT", str(statsd.port))
    yield {"settings": rewind_settings, "logs": logs, "statsd": statsd}
    logs.close()
    statsd.close()
    registry._load.cache_clear()


def declare(world: dict, *names: str) -> None:
    world["settings"].REWIND_TELEMETRY_DESTINATIONS = {
        name: f"udp:127.0.0.1:{world[name].port}" for name in names
    }


def record() -> Run:
    run = execute_run(create_run("observed", {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def test_undeclared_telemetry_fails_the_replay_as_any_datagram(world):
    source = record()
    assert world["logs"].reached(1) == 1 and world["statsd"].reached(1) == 1
    assert any("outside capture" in w for w in source.warnings)

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.FAILED
    assert "outside capture during a replay" in replay.nodes.get(name="answer").error


def test_declared_telemetry_passes_the_replay_which_stays_identical_and_lists_it(world):
    declare(world, "logs", "statsd")
    source = record()
    assert not any("outside capture" in w for w in source.warnings), source.warnings

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert world["logs"].reached(2) == 2 and world["statsd"].reached(2) == 2  # both went out
    assert set(replay.warnings) == {
        f"answer: telemetry passed: udp 127.0.0.1:{world['logs'].port} (logs, DatagramHandler)",
        f"answer: telemetry passed: udp 127.0.0.1:{world['statsd'].port} (statsd)",
    }
    assert len(replay.warnings) == 2


def test_declared_telemetry_keeps_a_replay_with_the_network_allowed_identical(world):
    declare(world, "logs", "statsd")
    source = record()

    replay = execute_run(create_replay(source, allow_network=True).pk)

    verdict = replay_verdict(source, replay)
    assert verdict.verdict == "identical" and verdict.escaped == []


def test_a_destination_left_undeclared_is_still_refused(world):
    declare(world, "logs")
    source = record()

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.FAILED
    error = replay.nodes.get(name="answer").error
    assert f"sent a datagram to udp 127.0.0.1:{world['statsd'].port} outside capture" in error
    assert world["statsd"].reached(2, 0.3) == 1  # the undeclared one did not go out again
