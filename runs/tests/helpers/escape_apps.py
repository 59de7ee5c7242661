"""Burr apps whose steps reach the world by ways no HTTP library sees, written as agent code
is: a queue served by a thread the module starts at import (a client library's background
sender), a datagram (UDP: metrics, syslog), a Unix-domain socket (a local database, Docker's
socket), a name lookup, and the standard library's log shipper on a thread of its own. Each
side-effect server counts what reaches it, from the address in an environment variable.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import queue
import socket
import threading

from burr.core import ApplicationBuilder, State
from burr.core.action import action

# -- a sender thread started at import, before any step -------------------------------------

_jobs: queue.Queue = queue.Queue()


def _sender() -> None:
    while True:
        port, done = _jobs.get()
        try:
            with socket.create_connection(("127.0.0.1", port), 2):
                done.append("sent")
        except OSError as exc:  # a library's sender logs and carries on
            done.append(f"failed: {type(exc).__name__}")
        finally:
            _jobs.task_done()


threading.Thread(target=_sender, name="telemetry-sender", daemon=True).start()


@action(reads=[], writes=["queued"])
def queue_event(state: State) -> State:
    done: list[str] = []
    _jobs.put((int(os.environ["SIDE_EFFECT_PORT"]), done))
    _jobs.join()  # flushed before the step ends, as a sender's flush() does
    return state.update(queued=True)


def sender_application():
    return _one(queue_event)


# -- a datagram, a Unix-domain socket, a lookup, a bare thread -------------------------------


@action(reads=[], writes=["sent"])
def send_datagram(state: State) -> State:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"runs.completed:1|c", ("127.0.0.1", int(os.environ["UDP_PORT"])))
    return state.update(sent=True)


def datagram_application():
    return _one(send_datagram)


@action(reads=[], writes=["pinged"])
def ping_unix_socket(state: State) -> State:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(os.environ["UNIX_SOCKET"])
        sock.sendall(b"PING\n")
    return state.update(pinged=True)


def unix_application():
    return _one(ping_unix_socket)


@action(reads=[], writes=["resolved"])
def look_up(state: State) -> State:
    try:  # this machine's own name: resolved locally, no network needed to record it
        socket.getaddrinfo(socket.gethostname(), 80)
    except socket.gaierror:
        pass
    return state.update(resolved=True)


def lookup_application():
    return _one(look_up)


# The standard library's own background thread: a ``QueueListener`` the app (here, the test)
# started before the step, shipping log records to a ``SocketHandler`` — no line of the app's
# code is on that thread's stack.
AUDIT: queue.Queue = queue.Queue()
_audit = logging.getLogger("escape_apps.audit")
_audit.addHandler(logging.handlers.QueueHandler(AUDIT))
_audit.propagate = False


@action(reads=[], writes=["logged"])
def audit_log(state: State) -> State:
    _audit.warning("step ran")
    AUDIT.join()  # shipped before the step ends
    return state.update(logged=True)


def audit_application():
    return _one(audit_log)


def _one(step):
    name = step.__name__
    return ApplicationBuilder().with_actions(**{name: step}).with_entrypoint(name).build()
