"""Hermetic replays (DESIGN.md, "Hermetic replays"): while a step is answered from the cache,
nothing leaves the process that the capture did not answer.

What every Python network client ends in is wrapped once: ``socket.socket.connect`` and
``connect_ex`` (TCP, a connected UDP socket, a Unix-domain socket), ``sendto``/``sendmsg`` (a
datagram) and the name lookups ``getaddrinfo``/``gethostbyname(_ex)`` (DNS; a literal address
or ``localhost`` is not a lookup). Such an effect the capture is not making itself
(``core.sending``) is, when it belongs to a step:

- refused before it happens, when the step is guarded — as the run's call policy says
  (``runs.engine.calls.policy.CallPolicy.guards``: an unchanged replay; a fork's step that
  re-executes with its source's inputs): the step fails with :class:`NotCaptured`,
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
``REWIND_ALLOW_NETWORK``: the policy's ``allow_network``) lifts the refusal, not the record.

**From process start.** The wrappers are put in place before the registered app's module is
imported (``capture.install_guard``: the ``runs`` app's ``ready()``, the registry's load, so
every ``manage.py`` command, worker and server, and ``rewind_hooks``, which sets Django up), so
a connection the app opens at import (a module-level client, a sender or worker thread it
starts) is known like one opened in a step; and the first ``install()`` also takes in every
socket already connected to an address (one a program opened before it called
``rewind_hooks``). A write on any of them while a step runs is held like a connection.

**Observability is not an effect.** A destination declared in
``REWIND_TELEMETRY_DESTINATIONS`` (``label → [tcp:|udp:]host:port`` or ``unix:/path``: a log
shipper's ``SocketHandler``/``DatagramHandler``/``SysLogHandler``, statsd, an OTLP collector)
is let through on every step, a guarded one included, without a note against the replay's
verdict: the step lists it instead (``telemetry_passed``: "udp 127.0.0.1:8125 (statsd,
DatagramHandler)"), and the run shows it as a note. A name lookup of a declared host passes
too, and the addresses it resolved to are that destination's. Every other destination is held
as above.
"""

from __future__ import annotations

import gc
import ipaddress
import logging
import socket
import ssl
import sys
import sysconfig
import threading
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from runs.engine.calls.capture.core import (
    StepCalls,
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


def _involved(skip: int) -> tuple[list[StepCalls], str] | None:
    """The steps an effect made here belongs to, and the line that made it — the step of this
    context, or, from a thread that belongs to no step, every step running in the process —
    or None: no step's (outside any, Rewind's own threads, a declared node's own call)."""
    calls = current_step()
    if calls is not None:
        return [calls], _user_line(skip + 1) or "an unknown line"
    if in_a_step_context():
        return None  # a declared node's own cached call: Rewind's, not the step's
    steps = [s for s in active_steps() if s.fence is None or not s.fence.closed]
    if not steps or _rewinds_own(skip + 1):
        return None  # no step running; or Rewind's own threads: its exporter, its writer, Django's
    thread = threading.current_thread().name
    return (
        steps,
        f"{_user_line(skip + 1) or 'an unknown line'}, in thread {thread!r} outside the step",
    )


def hold(endpoint: str, verb: str) -> None:
    """An effect the capture does not answer (``endpoint``, reached as ``verb`` says): refused
    on a guarded step, noted on a live one — the step of this context, or, from a thread that
    belongs to no step, every step running in the process."""
    if is_sending():
        return
    involved = _involved(2)
    if involved is None:
        return
    steps, line = involved
    guarded = [s for s in steps if s.policy.guards(s.unchanged)]
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
    if reached is None:
        return
    declared = _declared(sock, address)
    if declared is not None:
        _let_through(reached[0], declared)
    else:
        hold(*reached)


def _check_write(sock: socket.socket) -> None:
    """A write on a connection the app opened itself, outside the capture, perhaps before the
    step or at import (a log shipper's socket, a module-level client's): held like the
    connection it reuses."""
    if not active_steps() or is_sending() or sock not in _opened_outside:
        return
    try:
        peer = sock.getpeername()
    except OSError:  # the peer is gone: the write is still an attempt
        peer = None
    reached = _endpoint(sock, peer) if peer is not None else None
    declared = _declared(sock, peer) if reached is not None else None
    if reached is not None and declared is not None:
        _let_through(reached[0], declared)
        return
    endpoint = reached[0] if reached is not None else "an address no longer known"
    hold(endpoint, "wrote to a connection it had opened to")


def _looked_up(host: Any) -> None:
    if is_sending() or (current_step() is None and not active_steps()):
        return
    name = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host or "")
    if not name or name.lower() in ("localhost", "localhost.") or _literal(name):
        return
    if _declared_name(name):
        return  # a telemetry destination's name: its connection is what is listed
    hold(f"{name} (a DNS lookup)", "looked up")


def _literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    return True


# -- telemetry: what passes a replay without being an effect ---------------------------------


@dataclass(frozen=True)
class Telemetry:
    """A destination declared as telemetry (``REWIND_TELEMETRY_DESTINATIONS``): where a log
    shipper, statsd or an OTLP collector sends. ``transport`` is ``tcp``, ``udp``, ``unix`` or
    empty (either of TCP and UDP)."""

    label: str
    transport: str
    host: str = ""
    port: int = 0
    path: str = ""

    @classmethod
    def parse(cls, label: str, text: str) -> Telemetry:
        """``[tcp:|udp:]host:port`` (``[::1]:4317`` for IPv6) or ``unix:/path``."""
        spec = text.strip()
        transport, sep, rest = spec.partition(":")
        if not sep or transport.lower() not in ("tcp", "udp", "unix"):
            transport, rest = "", spec
        transport = transport.lower()
        if transport == "unix":
            if not rest:
                raise ImproperlyConfigured(f"telemetry destination {label!r}: no socket path")
            return cls(label, "unix", path=rest)
        host, sep, port = rest.rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ImproperlyConfigured(
                f"telemetry destination {label!r} must look like [tcp:|udp:]host:port or "
                f"unix:/path, got {text!r}"
            )
        return cls(label, transport, host=host.lower(), port=int(port))

    def reached_by(self, transport: str, host: str, port: Any, path: str) -> bool:
        if self.transport == "unix" or transport == "unix":
            return self.transport == transport and self.path == path
        if self.transport and self.transport != transport:
            return False
        if self.port != port:
            return False
        host = host.lower()
        return host == self.host or _resolved.get(host) == self.host


# An address a declared host name was resolved to (by a lookup made in this process) → the name.
_resolved: dict[str, str] = {}
# What each step let through as telemetry: id(step) → (a weak reference to it, what passed).
_passed: dict[int, tuple[weakref.ref, list[str]]] = {}
_passed_lock = threading.Lock()


def destinations() -> tuple[Telemetry, ...]:
    """The telemetry destinations the settings declare (none when Django is not set up)."""
    from django.conf import settings

    try:
        declared = getattr(settings, "REWIND_TELEMETRY_DESTINATIONS", None) or {}
    except ImproperlyConfigured:  # settings not configured: nothing is declared
        return ()
    if not isinstance(declared, Mapping):
        declared = {str(item): str(item) for item in declared}
    return _parsed(tuple(declared.items()))


@lru_cache(maxsize=8)
def _parsed(items: tuple[tuple[str, str], ...]) -> tuple[Telemetry, ...]:
    return tuple(Telemetry.parse(label, text) for label, text in items)


def _declared(sock: socket.socket, address: Any) -> Telemetry | None:
    """The telemetry destination ``address`` (reached by ``sock``) is, or None."""
    declared = destinations()
    if not declared:
        return None
    if sock.family == getattr(socket, "AF_UNIX", None):
        path = address.decode("utf-8", "replace") if isinstance(address, bytes) else str(address)
        transport, host, port = "unix", "", 0
    elif isinstance(address, tuple) and len(address) >= 2:
        transport = "udp" if sock.type == socket.SOCK_DGRAM else "tcp"
        host, port, path = str(address[0]), address[1], ""
    else:
        return None
    return next((d for d in declared if d.reached_by(transport, host, port, path)), None)


def _declared_name(name: str) -> bool:
    name = name.lower().rstrip(".")
    return any(d.host == name for d in destinations() if d.transport != "unix")


def _remember(host: Any, answer: Any) -> None:
    """A lookup of a declared host answered ``answer``: its addresses are that host's."""
    name = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host or "")
    if not name or not destinations() or not _declared_name(name):
        return
    name = name.lower().rstrip(".")
    if isinstance(answer, str):  # gethostbyname
        addresses: Iterable[Any] = [answer]
    elif isinstance(answer, tuple):  # gethostbyname_ex: (name, aliases, addresses)
        addresses = answer[2]
    else:  # getaddrinfo: [(family, type, proto, canonname, sockaddr), …]
        addresses = [entry[4][0] for entry in answer]
    for address in addresses:
        _resolved[str(address).lower()] = name


def _let_through(endpoint: str, declared: Telemetry) -> None:
    """Declared telemetry reached ``endpoint``: let through, and listed on the step (or the
    steps, from a thread that belongs to none) it was sent for."""
    involved = _involved(3)
    if involved is None:
        return
    steps, _ = involved
    with _passed_lock:
        lists = [_passed_list(step) for step in steps]
    if all(any(item.startswith(endpoint + " (") for item in kept) for kept in lists):
        return  # listed already: one entry a destination, however many records
    handler = _handler(3)
    what = f"{endpoint} ({declared.label}{', ' + handler if handler else ''})"
    with _passed_lock:
        for kept in lists:
            if not any(item.startswith(endpoint + " (") for item in kept):
                kept.append(what)


def _passed_list(step: StepCalls) -> list[str]:
    key = id(step)
    entry = _passed.get(key)
    if entry is None or entry[0]() is not step:
        entry = (weakref.ref(step, lambda _, key=key: _passed.pop(key, None)), [])
        _passed[key] = entry
    return entry[1]


def _handler(skip: int) -> str:
    """The logging handler whose ``emit`` sends this, if one does: its class's name."""
    frame = sys._getframe(skip)
    while frame is not None:
        candidate = frame.f_locals.get("self") if frame.f_code.co_name == "emit" else None
        if isinstance(candidate, logging.Handler):
            return type(candidate).__name__
        frame = frame.f_back
    return ""


def telemetry_passed(step: StepCalls) -> list[str]:
    """What ``step`` let through as declared telemetry ("udp 127.0.0.1:8125 (statsd)"), once:
    the list is the caller's from here."""
    with _passed_lock:
        entry = _passed.pop(id(step), None)
    return list(entry[1]) if entry is not None and entry[0]() is step else []


# -- installing -------------------------------------------------------------------------------


def install() -> None:
    """Wrap the socket entry points — each again if something put its own in its place since
    (a test's monkeypatch, restored, takes ours away with it). The first time, the sockets
    already connected are taken in: their writes are held like those of one opened later."""

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
            answer = original(host, *args, **kwargs)
            if _resolving_declared():
                _remember(host, answer)
            return answer

        return wrapper

    def tls(original: Any) -> Any:  # SSLContext.wrap_socket: a new socket, the same peer
        def wrapper(context: Any, sock: Any, *args: Any, **kwargs: Any) -> Any:
            wrapped = original(context, sock, *args, **kwargs)
            if sock in _opened_outside:
                _opened_outside.add(wrapped)
            return wrapped

        return wrapper

    first = not _ours
    # A TLS socket writes through its own send/sendall (not the plain socket's), and is a new
    # object when a connected socket is wrapped: both followed, so a log shipper's TLS
    # connection opened at import is held like a plain one.
    wrap(ssl.SSLSocket, "send", write)
    wrap(ssl.SSLSocket, "sendall", write)
    wrap(ssl.SSLContext, "wrap_socket", tls)
    wrap(socket.socket, "connect", connect)
    wrap(socket.socket, "connect_ex", connect)
    wrap(socket.socket, "sendto", sendto)
    wrap(socket.socket, "sendmsg", sendmsg)
    wrap(socket.socket, "send", write)
    wrap(socket.socket, "sendall", write)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        wrap(socket, name, lookup)
    if first:
        _take_in_connected()


def _resolving_declared() -> bool:
    """Whether lookups are to be remembered: some telemetry is declared (and Django set up)."""
    try:
        return bool(destinations())
    except Exception:  # noqa: BLE001 — settings that cannot be read declare nothing here
        return False


def _take_in_connected() -> None:
    """Every socket already connected to an address (the app's, opened before the guard was
    in place): its writes are held from now on. A socket pair or an unnamed peer is left
    alone (asyncio's self-pipe), as ``_endpoint`` leaves it."""
    for candidate in gc.get_objects():
        if type(candidate) is not socket.socket or candidate._closed:  # type: ignore[attr-defined]
            continue
        try:
            peer = candidate.getpeername()
        except OSError:  # not connected (a listening socket, one never used)
            continue
        if peer and _endpoint(candidate, peer) is not None:
            _opened_outside.add(candidate)


def wrap(owner: Any, name: str, make: Any) -> None:
    """Put ``make(current)`` in ``owner.name`` unless ours is there already (the socket
    entry points here; the process starts in ``processes`` and ``subprocess_adapter``)."""
    current = getattr(owner, name)
    if _ours.get((id(owner), name)) is current:
        return
    wrapper = make(current)
    setattr(owner, name, wrapper)
    _ours[id(owner), name] = wrapper
