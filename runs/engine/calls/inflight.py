"""Identical calls in flight at once go to the provider once — across threads, processes
and machines (DESIGN.md, LLM cache key).

The first caller of a key takes a lock, calls, stores the answer and releases; the others
wait on the lock and then find the answer in the cache. Threads of one process share a
``threading.Lock``. Processes share a lock that lives where the database does:

- PostgreSQL: a session-level advisory lock on the key (released by the database if the
  process dies, so a killed worker never wedges a key);
- SQLite (one machine by nature): an ``flock`` on a file beside the database.

No transaction is held while waiting or calling, so a slow provider never blocks writers.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

_guard = threading.Lock()
_thread_locks: dict[str, threading.Lock] = {}


@contextmanager
def call_lock(key: str) -> Iterator[None]:
    with _guard:
        local = _thread_locks.setdefault(key, threading.Lock())
    with local, _process_lock(key):
        yield


@contextmanager
def _process_lock(key: str) -> Iterator[None]:
    if connection.vendor == "postgresql":
        lock_id = int(key[:15], 16)  # 60 bits of the sha256: fits a signed bigint
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [lock_id])
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [lock_id])
    elif connection.vendor == "sqlite" and _sqlite_file():
        directory = Path(f"{_sqlite_file()}.locks")
        directory.mkdir(exist_ok=True)
        with open(directory / f"{key[:32]}.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    else:
        yield  # an in-memory database lives in one process: the thread lock is enough


def _sqlite_file() -> str | None:
    name = str(connection.settings_dict["NAME"])
    return None if name in {"", ":memory:"} or name.startswith("file::memory:") else name
