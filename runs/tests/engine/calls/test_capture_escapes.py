"""Nothing escapes a replay silently (issue 29, item 5; DESIGN.md "Hermetic replays"): a
connection made by a thread that was started before the step (the app's sender, the standard
library's log shipper), a UDP datagram, a Unix-domain socket and a name lookup are each refused
on a replayed step before they happen, naming what was tried and where; recorded live, each is a
warning on the run; and a replay let through with ``--allow-network`` is ``not-hermetic``,
never ``identical``. Each side-effect server counts what reaches it.
"""

from __future__ import annotations

import json
import logging.handlers
import os
import socket
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Node, Run
from runs.tests.helpers import escape_apps
from runs.tests.helpers.counters import DatagramCounter, Listener, UnixCounter

APPS = {
    "sender": "sender_application",
    "datagram": "datagram_application",
    "unix": "unix_application",
    "lookup": "lookup_application",
    "audit": "audit_application",
}


@pytest.fixture
def world(rewind_settings, monkeypatch, db, tmp_path) -> Iterator[dict]:
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        **{name: f"runs.tests.helpers.escape_apps.{fn}" for name, fn in APPS.items()},
    }
    registry._load.cache_clear()
    tcp, udp = Listener(), DatagramCounter()
    unix = UnixCounter(str(tmp_path / "db.sock"))
    monkeypatch.setenv("SIDE_EFFECT_PORT", str(tcp.port))
    monkeypatch.setenv("UDP_PORT", str(udp.port))
    monkeypatch.setenv("UNIX_SOCKET", unix.path)
    # The log shipper the app started before any step: the standard library's own thread.
    shipper = logging.handlers.QueueListener(
        escape_apps.AUDIT, logging.handlers.SocketHandler("127.0.0.1", tcp.port)
    )
    shipper.start()
    yield {"tcp": tcp, "udp": udp, "unix": unix}
    shipper.stop()
    for server in (tcp, udp, unix):
        server.close()
    registry._load.cache_clear()


def record(pipeline: str) -> Run:
    run = execute_run(create_run(pipeline, {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def test_a_thread_started_at_import_is_held_to_the_step_it_works_for(world):
    source = record("sender")
    assert world["tcp"].reached(1) == 1
    (warning,) = source.warnings
    assert warning.startswith(f"queue_event connected to 127.0.0.1:{world['tcp'].port} outside")
    assert "in thread 'telemetry-sender' outside the step" in warning
    assert "escape_apps.py:" in warning  # the sender's line, in the app's code

    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.FAILED
    assert world["tcp"].reached(2, 0.3) == 1  # the sender swallowed the refusal: none went out
    step = replay.nodes.get(name="queue_event")
    assert step.status == Node.Status.FAILED
    assert f"connected to 127.0.0.1:{world['tcp'].port} outside capture during a replay" in (
        step.error
    )
    assert "telemetry-sender" in step.error and "--allow-network" in step.error


def test_the_standard_librarys_own_thread_is_held_too(world):
    source = record("audit")
    assert world["tcp"].reached(1) == 1
    assert "in thread" in source.warnings[0] and "outside the step" in source.warnings[0]

    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.FAILED, "a log shipper's connection escaped the replay"
    assert world["tcp"].reached(2, 0.3) == 1
    assert "outside capture during a replay" in replay.nodes.get(name="audit_log").error


def test_a_datagram_is_refused_on_a_replay_and_noted_when_recorded(world):
    source = record("datagram")
    assert world["udp"].reached(1) == 1
    expected = f"send_datagram sent a datagram to udp 127.0.0.1:{world['udp'].port} outside"
    assert source.warnings[0].startswith(expected)

    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.FAILED
    step = replay.nodes.get(name="send_datagram")
    assert f"sent a datagram to udp 127.0.0.1:{world['udp'].port} outside capture" in step.error
    assert "escape_apps.py:" in step.error
    assert world["udp"].reached(2, 0.3) == 1


def test_a_unix_domain_socket_is_refused_on_a_replay_and_noted_when_recorded(world):
    source = record("unix")
    assert world["unix"].reached(1) == 1
    assert source.warnings[0].startswith(
        f"ping_unix_socket connected to unix socket {world['unix'].path} outside capture"
    )

    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.FAILED
    assert world["unix"].reached(2, 0.3) == 1
    error = replay.nodes.get(name="ping_unix_socket").error
    assert f"connected to unix socket {world['unix'].path} outside capture" in error


def test_a_name_lookup_is_refused_on_a_replay(world):
    source = record("lookup")
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.FAILED
    error = replay.nodes.get(name="look_up").error
    assert f"looked up {socket.gethostname()} (a DNS lookup) outside capture" in error


def test_a_replay_let_through_is_not_hermetic_never_identical(world):
    source = record("unix")
    replay = execute_run(create_replay(source, allow_network=True).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert world["unix"].reached(2) == 2

    verdict = replay_verdict(source, replay)
    assert verdict.trajectory_equal and verdict.total_tokens == 0
    assert verdict.verdict == "not-hermetic"
    assert [e["endpoint"] for e in verdict.escaped] == [f"unix socket {world['unix'].path}"]


def test_rewind_replay_prints_what_escaped(world, capsys):
    source = record("datagram")
    with pytest.raises(CommandError, match="not hermetic"):
        call_command("rewind_replay", str(source.pk), "--allow-network")
    out = capsys.readouterr().out
    assert "not-hermetic" in out and "0/1 identical" in out
    assert f"not hermetic: send_datagram reached udp 127.0.0.1:{world['udp'].port}" in out

    with pytest.raises(CommandError):
        call_command("rewind_replay", str(source.pk), "--json", "--allow-network")
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["verdict"] == "not-hermetic" and result["escaped"][0]["node"] == "send_datagram"


def test_outside_any_step_nothing_is_held(world):
    # The app's own threads, with no step running in the process, are none of Rewind's business.
    with socket.create_connection(("127.0.0.1", world["tcp"].port), 2):
        pass
    done: list[str] = []
    escape_apps._jobs.put((world["tcp"].port, done))
    escape_apps._jobs.join()
    assert done == ["sent"] and world["tcp"].reached(2) == 2
    assert os.environ["UNIX_SOCKET"]  # the fixture's world is intact
