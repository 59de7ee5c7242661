"""A TLS connection the app opened before the step (a log shipper over TLS, a module-level
client) is held like a plain one (DESIGN.md, "Hermetic replays"): its writes go through the TLS
socket's own ``send``/``sendall``, on a new socket object when a connected socket is wrapped,
and a write on it while an unchanged replay's step runs is refused, naming the endpoint — the
side effect never happens twice. A live step's write is noted, not refused."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator

import pytest
import trustme

from runs.engine.calls.capture import guard
from runs.engine.calls.capture.core import StepCalls
from runs.engine.calls.policy import LIVE, Answering, CallPolicy


@pytest.fixture
def tls_peer() -> Iterator[tuple[tuple[str, int], ssl.SSLContext, list[bytes]]]:
    """A TLS server on loopback that keeps what it reads; a client context trusting it."""
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(server_context)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def serve() -> None:
        try:
            conn, _ = listener.accept()
            with server_context.wrap_socket(conn, server_side=True) as tls:
                while data := tls.recv(4096):
                    received.append(data)
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname(), client_context, received
    listener.close()


@pytest.mark.parametrize("order", ["connect then wrap", "wrap then connect"])
def test_a_write_on_a_tls_connection_opened_before_the_step_is_refused_on_a_replay(tls_peer, order):
    address, context, received = tls_peer
    guard.install()
    if order == "connect then wrap":  # socket.create_connection, then wrap_socket (most clients)
        client = context.wrap_socket(
            socket.create_connection(address, 5), server_hostname="localhost"
        )
    else:
        client = context.wrap_socket(socket.socket(), server_hostname="localhost")
        client.connect(address)
    with client:
        client.sendall(b"before any step\n")  # outside a step: nothing is held
        step = StepCalls(sequence_id=0, action="ship_logs", policy=CallPolicy(Answering.REPLAY))
        with step, pytest.raises(guard.NotCaptured, match=r"127\.0\.0\.1"):
            client.sendall(b"during the replay\n")
        assert "127.0.0.1" in step.refused

        live = StepCalls(sequence_id=1, action="ship_logs", policy=LIVE)
        with live:
            client.sendall(b"during a live step\n")
        assert [u["endpoint"] for u in live.uncaptured] == [f"127.0.0.1:{address[1]}"]
    sent = b"".join(received)
    assert b"during the replay" not in sent
