"""``rewind_serve``: a taken or invalid port is a clear error, never a uvicorn traceback.

No test starts a server: ``uvicorn.run`` is replaced by a recorder in every test, so a
path that wrongly gets as far as serving records the call instead of blocking the suite.
"""

from __future__ import annotations

import io
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.management.commands.rewind_serve import port_is_free


@pytest.fixture(autouse=True)
def served(monkeypatch) -> list[dict[str, Any]]:
    """Every call that would have started uvicorn, with its arguments."""
    calls: list[dict[str, Any]] = []

    def fake_run(app: str, **kwargs: Any) -> None:
        calls.append({"app": app, **kwargs})

    monkeypatch.setattr("uvicorn.run", fake_run)
    monkeypatch.delenv("REWIND_PORT", raising=False)
    return calls


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port held by a listening socket for the duration of the test."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        yield holder.getsockname()[1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_error(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("rewind_serve", *args, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message


def test_port_is_free_is_false_for_a_port_in_use(taken_port):
    assert port_is_free("127.0.0.1", taken_port) is False


def test_port_is_free_is_true_for_a_free_port():
    assert port_is_free("127.0.0.1", free_port()) is True


def test_port_is_free_is_false_when_held_on_every_interface():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("0.0.0.0", 0))
        holder.listen(1)
        assert port_is_free("127.0.0.1", holder.getsockname()[1]) is False


def test_a_taken_port_is_a_clear_error(taken_port, served):
    message = serve_error("--port", str(taken_port))

    assert f"port {taken_port} on 127.0.0.1 is already in use" in message
    assert "--port" in message
    assert served == []


def test_a_taken_port_from_rewind_port_is_a_clear_error(taken_port, served, monkeypatch):
    monkeypatch.setenv("REWIND_PORT", str(taken_port))

    message = serve_error()

    assert f"port {taken_port}" in message and "REWIND_PORT" in message
    assert served == []


@pytest.mark.parametrize("port", ["70000", "65536", "-1"])
def test_a_port_out_of_range_is_rejected(port, served):
    message = serve_error("--port", port)

    assert message == f"--port must be between 1 and 65535, got {port}"
    assert served == []


def test_a_port_that_is_not_a_number_is_rejected(served):
    assert "--port" in serve_error("--port", "http")
    assert served == []


def test_port_zero_is_rejected(served):
    message = serve_error("--port", "0")

    assert message == "--port must be between 1 and 65535, got 0"
    assert served == []


@pytest.mark.parametrize("host", ["no-such-host.invalid", "192.0.2.1"])
def test_a_host_that_cannot_be_bound_is_a_clear_error(host, served):
    message = serve_error("--host", host, "--port", str(free_port()))

    assert host in message and "--host" in message
    assert served == []


def test_a_free_port_is_served(served):
    port = free_port()
    out = io.StringIO()

    call_command("rewind_serve", "--port", str(port), stdout=out)

    assert served == [
        {
            "app": "rewind_site.asgi:application",
            "host": "127.0.0.1",
            "port": port,
            "log_level": "warning",
        }
    ]
    assert f"http://127.0.0.1:{port}/runs/" in out.getvalue()
