"""Hermetic replays (DESIGN.md, "Hermetic replays"): while a step is answered from the cache,
no connection leaves the process that the capture did not answer.

``socket.socket.connect``/``connect_ex`` — what every Python HTTP, gRPC or websocket client
ends in, sync or asyncio — are wrapped once. Inside a step (and only there), a TCP connection
the capture is not making itself (``core.sending``) is:

- refused before it is made, when the step is guarded (an unchanged replay; a fork's step
  that re-executes with its source's inputs): the step fails with :class:`NotCaptured`,
  naming the step, the host:port and the line of the user's code that opened it — a side
  effect is never repeated;
- let through and written down, when the step is live (``StepCalls.uncaptured``): the run is
  recorded with a warning that its replay will not be hermetic.

Unix sockets and connections outside a step are left alone. ``--allow-network`` (the run's
``allow_network``, or ``REWIND_ALLOW_NETWORK``) lifts the refusal, not the record.
"""

from __future__ import annotations

import socket
import sys
import sysconfig
from pathlib import Path
from typing import Any

from runs.engine.calls.capture.core import current_step, is_sending
from runs.engine.errors import NodeFailure

# Modules whose frames are the machinery of a connection, never the user's line: the
# standard library, HTTP and RPC clients, the model SDKs built on them, and Rewind itself.
MACHINERY = frozenset(
    "aiohttp anyio anthropic boto3 botocore certifi google grpc h11 h2 httpcore httpcore2 "
    "httpx httpx2 openai requests sniffio tavily urllib3 websocket websockets yarl runs "
    "burr asgiref django".split()
)
_STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
_wrapped: tuple[Any, Any] | None = None


class NotCaptured(NodeFailure, ConnectionRefusedError):
    """A hermetic step tried to open a connection the capture did not answer."""


def opened_by(skip: int = 2) -> str:
    """``file:line`` of the innermost frame that belongs to the user's code."""
    frame = sys._getframe(skip)
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        top = module.partition(".")[0]
        user = top not in MACHINERY and not _in_stdlib(frame.f_code.co_filename)
        if user or module.startswith("runs.tests") or module.startswith("burr.examples"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "an unknown line"


def _in_stdlib(filename: str) -> bool:
    try:
        path = Path(filename).resolve()
    except OSError:
        return False
    return path.is_relative_to(_STDLIB) and "site-packages" not in path.parts


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or is_sending():
        return
    calls = current_step()
    if calls is None:
        return
    host, port = (address[0], address[1]) if isinstance(address, tuple) else (address, "")
    line = opened_by(3)
    if calls.guarded:
        message = (
            f"connected to {host}:{port} outside capture during a replay "
            f"(from {line}): a replay never reaches the network it did not record; run "
            "with --allow-network (or REWIND_ALLOW_NETWORK=true) to let it"
        )
        calls.refused = calls.refused or message
        raise NotCaptured(message)
    calls.note_uncaptured(f"{host}:{port}", line)


def install() -> None:
    """Wrap ``socket.socket.connect`` and ``connect_ex`` — again if something put its own in
    their place since (a test's monkeypatch, restored, takes ours away with it)."""
    global _wrapped
    if _wrapped is not None and socket.socket.connect is _wrapped[0]:
        return
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def connect(sock: socket.socket, address: Any) -> None:
        _check(sock, address)
        return original_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        _check(sock, address)
        return original_connect_ex(sock, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    _wrapped = (connect, connect_ex)
