"""Burr apps that reach the world through what their module opened at import, before any step,
as agent code is written: a module-level client connected at import whose background sender
thread writes what a step queues, and a worker thread started at import that connects on its
own and serves a queue the step feeds. The server (``EVENTS_PORT``, a ``LineCounter``) counts
each line that reaches it.

Unlike the other helpers this module does its work when imported — that is what it is about —
so only the registry of a test's ``manage.py`` subprocess imports it, with ``EVENTS_PORT`` set
(``test_hermetic_from_import.py``).
"""

from __future__ import annotations

import os
import queue
import socket
import threading

from burr.core import ApplicationBuilder, State
from burr.core.action import action

EVENTS = ("127.0.0.1", int(os.environ["EVENTS_PORT"]))

# -- a module-level client and its sender thread --------------------------------------------

_client = socket.create_connection(EVENTS, 5)
_outbox: queue.Queue = queue.Queue()


def _send_forever() -> None:
    while True:
        line = _outbox.get()
        try:
            _client.sendall(line)
        except OSError:  # a library's background sender logs and carries on
            pass
        finally:
            _outbox.task_done()


threading.Thread(target=_send_forever, name="event-sender", daemon=True).start()


@action(reads=[], writes=["published"])
def publish_event(state: State) -> State:
    _outbox.put(b"published\n")
    _outbox.join()  # flushed before the step ends, as a client's flush() does
    return state.update(published=True)


def client_application():
    return _one(publish_event)


# -- a worker thread started at import, with a connection of its own -------------------------

_jobs: queue.Queue = queue.Queue()
_connected = threading.Event()


def _serve_jobs() -> None:
    with socket.create_connection(EVENTS, 5) as connection:
        _connected.set()
        while True:
            job = _jobs.get()
            try:
                connection.sendall(job)
            except OSError:
                pass
            finally:
                _jobs.task_done()


threading.Thread(target=_serve_jobs, name="job-worker", daemon=True).start()
_connected.wait(5)  # the app waits for its worker before it goes on


@action(reads=[], writes=["done"])
def hand_job(state: State) -> State:
    _jobs.put(b"job\n")
    _jobs.join()
    return state.update(done=True)


def worker_application():
    return _one(hand_job)


def _one(step):
    name = step.__name__
    return ApplicationBuilder().with_actions(**{name: step}).with_entrypoint(name).build()
