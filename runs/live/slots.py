"""How many live-update streams may be open: ``REWIND_STREAMS_PER_USER`` for one user and
``REWIND_STREAMS_TOTAL`` in all. A stream that finds no free slot is refused (the view answers
429) and its page keeps the polling it runs anyway.

A slot is a lock that dies with whoever holds it, so the count holds across every web process
sharing the database and a crashed process never leaks a slot:

- PostgreSQL: session-level advisory locks taken on the stream's own connection (the one it
  ``LISTEN``s on, ``runs.live``). The database drops them when that connection closes — the
  stream ended, the client went away, or the process died. Every machine sharing the database
  shares the count.
- SQLite (one machine by nature): an ``flock`` on a file per slot in ``<database>.streams/``;
  the kernel drops it when the file is closed or its process dies.
- An in-memory SQLite database lives in one process: a counter in that process.

One slot of each kind is taken: the first free of the user's ``per_user`` and the first free
of the ``total``. Looking costs one statement per kind on PostgreSQL (the database walks the
slots and stops at the first it can lock) and at most ``per_user`` + ``total`` non-blocking
``flock`` calls on SQLite.
"""

from __future__ import annotations

import fcntl
import logging
import threading
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from django.conf import settings
from django.db import connections

logger = logging.getLogger("rewind.live")

# PostgreSQL: the two-int advisory lock space (pg_locks.objsubid = 2; runs.engine.calls.inflight
# uses the bigint one). A user's slot is (user id, USER_SLOTS + i); a slot of the total is
# (0, ALL_SLOTS + i): user ids start at 1. The offsets keep clear of small keys other code
# sharing the database might take.
USER_SLOTS = 0x52570000
ALL_SLOTS = 0x52580000

_FIRST_FREE = (
    "SELECT s FROM generate_series(0, %s - 1) AS s WHERE pg_try_advisory_lock(%s, %s + s) LIMIT 1"
)

_HELD = (
    "SELECT count(*) FILTER (WHERE classid = %s AND objid BETWEEN %s AND %s), "
    "count(*) FILTER (WHERE classid = 0 AND objid BETWEEN %s AND %s) "
    "FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


@dataclass(frozen=True)
class Limits:
    per_user: int
    total: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(settings.REWIND_STREAMS_PER_USER, settings.REWIND_STREAMS_TOTAL)


@dataclass(eq=False)
class Slot:
    """A stream's place. ``connection`` (PostgreSQL) is the session holding the locks, which
    the stream then listens on; closing it gives the slot back."""

    connection: Any = None
    files: list[BinaryIO] = field(default_factory=list)  # closed when released or collected
    counted: int | None = None  # in-memory database: the user counted in this process
    released: bool = False

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        for handle in self.files:
            handle.close()  # drops the flock
        if self.counted is not None:
            _memory.give_back(self.counted)
        if self.connection is not None:
            # Unlock before closing: the server drops a closed session's locks only once its
            # backend has noticed the close, and a stream opened meanwhile would still count
            # this slot as held (a reconnecting page refused for a moment; a flaky test).
            with suppress(Exception):  # a broken session: closing it drops them all the same
                await self.connection.execute("SELECT pg_advisory_unlock_all()")
            await self.connection.close()  # drops whatever it still holds


async def claim(user_id: int, limits: Limits | None = None, alias: str = "default") -> Slot | None:
    """A slot for a stream of ``user_id``, or None when the user's or everyone's are taken (or,
    on PostgreSQL, when the database refuses the stream a connection: a stream it cannot
    serve is refused like one over the cap)."""
    limits = limits or Limits.from_settings()
    connection = connections[alias]
    if connection.vendor == "postgresql":
        return await _claim_advisory(connection, user_id, limits)
    path = _database_file(connection.settings_dict["NAME"])
    if path is None:
        return _memory.claim(user_id, limits)
    return claim_files(Path(f"{path}.streams"), user_id, limits)


# --- PostgreSQL ------------------------------------------------------------------------------


def _looks_full(alias: str, user_id: int, limits: Limits) -> bool:
    """Whether the user's slots or everyone's are all held now, read from ``pg_locks`` over
    the request's own connection: a stream over the cap is refused without opening the
    connection a slot needs (a burst of refused streams is no burst of connections). Only a
    hint: the locks decide."""
    with connections[alias].cursor() as cursor:
        cursor.execute(
            _HELD, [user_id, USER_SLOTS, USER_SLOTS + 0xFFFF, ALL_SLOTS, ALL_SLOTS + 0xFFFF]
        )
        mine, everyone = cursor.fetchone()
    return mine >= limits.per_user or everyone >= limits.total


async def _claim_advisory(connection: Any, user_id: int, limits: Limits) -> Slot | None:
    import psycopg
    from asgiref.sync import sync_to_async

    from runs.live.changes import listen_params

    if await sync_to_async(_looks_full)(connection.alias, user_id, limits):
        return None
    try:
        session = await psycopg.AsyncConnection.connect(
            **listen_params(connection.alias), autocommit=True
        )
    except psycopg.Error as exc:
        logger.warning("a live-update stream was refused: no database connection: %s", exc)
        return None
    slot = Slot(connection=session)
    try:
        for count, key, space in (
            (limits.per_user, user_id, USER_SLOTS),
            (limits.total, 0, ALL_SLOTS),
        ):
            cursor = await session.execute(_FIRST_FREE, [count, key, space])
            if await cursor.fetchone() is None:
                await slot.release()
                return None
    except BaseException:
        await slot.release()
        raise
    return slot


# --- SQLite: a file per slot -------------------------------------------------------------------


def claim_files(directory: Path, user_id: int, limits: Limits) -> Slot | None:
    """The first free of the user's slots and of everyone's, as locked files in ``directory``
    (kept open: closing one, or the process ending, frees it)."""
    directory.mkdir(parents=True, exist_ok=True)
    taken: list[BinaryIO] = []
    for prefix, count in ((f"user-{user_id}", limits.per_user), ("all", limits.total)):
        handle = _first_free_file(directory, prefix, count)
        if handle is None:
            for held in taken:
                held.close()
            return None
        taken.append(handle)
    return Slot(files=taken)


def _first_free_file(directory: Path, prefix: str, count: int) -> BinaryIO | None:
    for index in range(count):
        handle = open(directory / f"{prefix}-{index}.lock", "ab")  # noqa: SIM115 (held open)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        return handle
    return None


def _database_file(name: object) -> str | None:
    name = str(name)
    return None if name in {"", ":memory:"} or name.startswith("file::memory:") else name


# --- an in-memory database: one process --------------------------------------------------------


class _Counter:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_user: dict[int, int] = {}

    def claim(self, user_id: int, limits: Limits) -> Slot | None:
        with self.lock:
            if self.by_user.get(user_id, 0) >= limits.per_user:
                return None
            if sum(self.by_user.values()) >= limits.total:
                return None
            self.by_user[user_id] = self.by_user.get(user_id, 0) + 1
        return Slot(counted=user_id)

    def give_back(self, user_id: int) -> None:
        with self.lock:
            self.by_user[user_id] -= 1


_memory = _Counter()
