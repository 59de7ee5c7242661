"""Hermetic replays (DESIGN.md, "Hermetic replays"): while a step is answered from the cache,
nothing leaves the process that the capture did not answer.

What every Python network client ends in is wrapped once: ``socket.socket.connect`` and
``connect_ex`` (TCP, a connected UDP socket, a Unix-domain socket), ``sendto``/``sendmsg`` (a
datagram) and the name lookups ``getaddrinfo``/``gethostbyname(_ex)`` (DNS; a literal address
or ``localhost`` is not a lookup). Such an effect the capture is not making itself
(``core.sending``) is, when it belongs to a step:

- refused before it happens, when the step is guarded (an unchanged replay; a fork's step
  that re-executes with its source's inputs): the step fails with :class:`NotCaptured`,
  naming the step, what it tried (host:port, the socket's path, the name) and the line of the
  user's code that did it — a side effect is never repeated;
- let through and written down, when the step is live (``StepCalls.note_uncaptured``): the run
  is recorded with a warning that its replay will not be hermetic.

It belongs to a step when the thread or task that does it runs in the step's context, and
also when it runs in **no step's context at all** while steps run in the process — a thread
started before the step (a queue served by a thread the app started at import, a client
library's background sender) or a pool made at import: then it is held to every step
running (refused if one is guarded; else noted on each live one). Only a thread whose stack
runs through Rewind's own code is let alone (its OpenTelemetry exporter, its writer, Django's
threads), however bare the app's thread (a ``Thread(target=urlopen)``). Processes are the subprocess adapter's; gRPC's own sockets (opened in C)
the gRPC adapter's. ``--allow-network`` (the run's ``allow_network``, or
``REWIND_ALLOW_NETWORK``) lifts the refusal, not the record.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import sysconfig
import threading
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any

from runs.engine.calls.capture.core import (
    active_steps,
    any_active,
    current_step,
    in_a_step_context,
    is_sending,
)
from runs.engine.errors import NodeFailure

# Modules whose frames are the machinery of a connection, never the user's line: the
# standard library, HTTP and RPC clients, the model SDKs built on them, and Rewind itself.
MACHINERY = frozenset(
    "aiohttp anyio anthropic boto3 botocore certifi google grpc h11 h2 httpcore httpcore2 "
    "httpx httpx2 openai requests sniffio tavily urllib3 websocket websockets yarl runs "
    "burr asgiref django psycopg opentelemetry mcp uvicorn".split()
)
# What Rewind runs on: a thread whose stack goes through one of these is Rewind's, not the app's.
OWN = frozenset("runs django asgiref uvicorn opentelemetry psycopg".split())
_STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
_ours: dict[tuple[int, str], Any] = {}  # (owner, attribute) → the wrapper put there
# Sockets connected outside the capture (by the app, not a captured call): their writes too.
_opened_outside: weakref.WeakSet[socket.socket] = weakref.WeakSet()


class NotCaptured(NodeFailure, ConnectionRefusedError):
    """A hermetic step tried to open a connection the capture did not answer."""


def opened_by(skip: int = 2) -> str:
    """``file:line`` of the innermost frame that belongs to the user's code."""
    return _user_line(skip + 1) or "an unknown line"


def _user_line(skip: int) -> str | None:
    """The innermost frame of the user's code on this thread's stack, or None: a stack of
    machinery alone (the standard library, the clients above, Rewind, Django)."""
    frame = sys._getframe(skip)
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        top = module.partition(".")[0]
        user = top not in MACHINERY and not _in_stdlib(frame.f_code.co_filename)
        if user or module.startswith("runs.tests") or module.startswith("burr.examples"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _rewinds_own(skip: int) -> bool:
    """Whether this thread's stack runs through Rewind's own code or what it runs on (its
    OpenTelemetry exporter, Django, the ASGI server) rather than only the app's and its
    libraries' — a thread the app started on a bare library function is the app's too."""
    frame = sys._getframe(skip)
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        own = module.partition(".")[0] in OWN and not module.startswith("runs.tests")
        if own and module != __name__:  # the guard's own frames are on every stack
            return True
        frame = frame.f_back
    return False


@lru_cache(maxsize=4096)
def _in_stdlib(filename: str) -> bool:
    try:
        path = Path(filename).resolve()
    except OSError:
        return False
    return path.is_relative_to(_STDLIB) and "site-packages" not in path.parts


def _endpoint(sock: socket.socket, address: Any) -> tuple[str, str] | None:
    """What a socket reaches, and how to say it — or None for what the guard leaves alone
    (netlink, a socket pair, an unnamed address)."""
    datagram = sock.type == socket.SOCK_DGRAM
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        host, port = (address[0], address[1]) if isinstance(address, tuple) else (address, "")
        return ("udp " if datagram else "") + f"{host}:{port}", (
            "sent a datagram to" if datagram else "connected to"
        )
    if sock.family == getattr(socket, "AF_UNIX", None) and address:
        path = address.decode("utf-8", "replace") if isinstance(address, bytes) else str(address)
        return f"unix socket {path.replace(chr(0), '@')}", "connected to"
    return None


def hold(endpoint: str, verb: str) -> None:
    """An effect the capture does not answer (``endpoint``, reached as ``verb`` says): refused
    on a guarded step, noted on a live one — the step of this context, or, from a thread that
    belongs to no step, every step running in the process."""
    if is_sending():
        return
    calls = current_step()
    if calls is not None:
        steps, line = [calls], _user_line(2) or "an unknown line"
    elif in_a_step_context():
        return  # a declared node's own cached call: Rewind's, not the step's
    else:
        steps = [s for s in active_steps() if s.fence is None or not s.fence.closed]
        if not steps:
            return
        if _rewinds_own(2):
            return  # Rewind's own threads: its exporter, its writer, Django's
        thread = threading.current_thread().name
        line = f"{_user_line(2) or 'an unknown line'}, in thread {thread!r} outside the step"
    guarded = [s for s in steps if s.guarded]
    if guarded:
        message = (
            f"{verb} {endpoint} outside capture during a replay (from {line}): a replay "
            "never reaches the network it did not record; run with --allow-network (or "
            "REWIND_ALLOW_NETWORK=true) to let it"
        )
        for step in guarded:
            step.refused = step.refused or message
        raise NotCaptured(message)
    for step in steps:
        step.note_uncaptured(endpoint, line, verb)


def _check(sock: socket.socket, address: Any) -> None:
    if is_sending():
        return
    _opened_outside.add(sock)  # its later writes are held too (``_check_write``)
    if current_step() is None and not active_steps():
        return  # the common case outside any step: one context read, one dict read
    reached = _endpoint(sock, address)
    if reached is not None:
        hold(*reached)


def _check_write(sock: socket.socket) -> None:
    """A write on a connection the app opened itself, outside the capture, perhaps before the
    step (a log shipper's socket, a pooled client's): held like the connection it reuses."""
    if not active_steps() or is_sending() or sock not in _opened_outside:
        return
    try:
        reached = _endpoint(sock, sock.getpeername())
    except OSError:  # the peer is gone: the write is still an attempt
        reached = None
    endpoint = reached[0] if reached is not None else "an address no longer known"
    hold(endpoint, "wrote to a connection it had opened to")


def _looked_up(host: Any) -> None:
    if is_sending() or (current_step() is None and not active_steps()):
        return
    name = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host or "")
    if not name or name.lower() in ("localhost", "localhost.") or _literal(name):
        return
    hold(f"{name} (a DNS lookup)", "looked up")


def _literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    return True


def install() -> None:
    """Wrap the socket entry points — each again if something put its own in its place since
    (a test's monkeypatch, restored, takes ours away with it)."""

    def connect(original: Any) -> Any:  # connect and connect_ex
        def wrapper(sock: socket.socket, address: Any) -> Any:
            _check(sock, address)
            return original(sock, address)

        return wrapper

    def sendto(original: Any) -> Any:
        def wrapper(sock: socket.socket, data: Any, *rest: Any) -> int:
            if rest:  # sendto(data[, flags], address)
                _check(sock, rest[-1])
            return original(sock, data, *rest)

        return wrapper

    def sendmsg(original: Any) -> Any:
        def wrapper(sock: socket.socket, buffers: Any, *rest: Any) -> int:
            if len(rest) >= 3 and rest[2] is not None:  # (buffers, ancdata, flags, address)
                _check(sock, rest[2])
            return original(sock, buffers, *rest)

        return wrapper

    def write(original: Any) -> Any:  # send and sendall
        def wrapper(sock: socket.socket, data: Any, *rest: Any) -> Any:
            if any_active():
                _check_write(sock)
            return original(sock, data, *rest)

        return wrapper

    def lookup(original: Any) -> Any:
        def wrapper(host: Any, *args: Any, **kwargs: Any) -> Any:
            _looked_up(host)
            return original(host, *args, **kwargs)

        return wrapper

    wrap(socket.socket, "connect", connect)
    wrap(socket.socket, "connect_ex", connect)
    wrap(socket.socket, "sendto", sendto)
    wrap(socket.socket, "sendmsg", sendmsg)
    wrap(socket.socket, "send", write)
    wrap(socket.socket, "sendall", write)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        wrap(socket, name, lookup)


def wrap(owner: Any, name: str, make: Any) -> None:
    """Put ``make(current)`` in ``owner.name`` unless ours is there already (the socket
    entry points here; the process starts in ``processes`` and ``subprocess_adapter``)."""
    current = getattr(owner, name)
    if _ours.get((id(owner), name)) is current:
        return
    wrapper = make(current)
    setattr(owner, name, wrapper)
    _ours[id(owner), name] = wrapper
