"""What a run page's live updates wait on: a cheap "last change" marker of a run, and a way to
sleep until it may have changed.

The marker is the run's status and the sequence id of its last step — read in one indexed
query, and written by nothing but what the engine writes anyway (a step row, a status change):
no step pays an extra statement for it. An update is due when the marker differs from what
the page holds (``Cursor``).

How the event stream waits for a change depends on the database:

- PostgreSQL: the database says so. Migration 0007 installs triggers that ``pg_notify`` the
  ``CHANNEL`` with the run's id when a step row is inserted and when a run row changes (a
  heartbeat alone does not count). The stream ``LISTEN``s on a psycopg connection of its own
  — Django's connections are synchronous and shared with the request's thread — and wakes on
  a notification for its run; it also re-reads the marker every ``NOTIFY_SAFETY_SECONDS``,
  so a lost connection delays an update, never loses it.
- SQLite (no notifications): the stream reads the marker every ``POLL_SECONDS``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connection, connections
from django.db.models import OuterRef, Subquery

from runs.models import Node, Run

logger = logging.getLogger("rewind.live")

CHANNEL = "rewind_live"  # the channel migration 0007's triggers notify
TRIGGERS = (  # how many of migration 0007's triggers are installed
    "SELECT count(*) FROM pg_trigger WHERE tgname IN ('rewind_live_node', 'rewind_live_run')"
)
POLL_SECONDS = 0.1  # SQLite: how often a stream reads the marker
NOTIFY_SAFETY_SECONDS = 5.0  # PostgreSQL: a marker read even when no notification came

FINISHED = Run.FINISHED


@dataclass(frozen=True)
class Cursor:
    """Where a page stands: the last step it shows (-1: none) and the run status it shows
    ("": unknown, so anything is news)."""

    after: int = -1
    status: str = ""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def token(self) -> str:
        """The SSE event id: what the browser sends back as ``Last-Event-ID`` when it
        reconnects on its own."""
        return f"{self.after}:{self.status}"

    @classmethod
    def parse(cls, token: str) -> Cursor | None:
        after, _, status = token.partition(":")
        try:
            number = int(after)
        except ValueError:
            return None
        if number < -1 or (status and status not in Run.Status.values):
            return None
        return cls(number, status)


def last_step() -> Subquery:
    """The sequence id of the run's last step (the ``(run, sequence_id)`` index answers it)."""
    return Subquery(
        Node.objects.filter(run_id=OuterRef("pk"))
        .order_by("-sequence_id")
        .values("sequence_id")[:1]
    )


@cache
def _marker_sql(vendor: str) -> str:
    quote = connections["default"].ops.quote_name
    run, node = Run._meta, Node._meta
    last = f"MAX({quote(node.get_field('sequence_id').column)})"
    steps = f"{quote(node.db_table)} WHERE {quote(node.get_field('run').column)} = %s"
    return (
        f"SELECT {quote(run.get_field('status').column)}, (SELECT {last} FROM {steps}) "
        f"FROM {quote(run.db_table)} WHERE {quote(run.pk.column)} = %s"
    )


def marker(run_id: int) -> Cursor | None:
    """The run's marker now, or None if there is no such run: one query, two values. Plain
    SQL: a stream asks ten times a second, and building the ORM's query cost more than
    running it."""
    with connection.cursor() as cursor:
        cursor.execute(_marker_sql(connection.vendor), [run_id, run_id])
        row = cursor.fetchone()
    if row is None:
        return None
    status, last = row
    return Cursor(-1 if last is None else last, status)


# --- waiting for a change ----------------------------------------------------------------------


class Poller:
    """SQLite: a change is possible at any moment; look again after ``POLL_SECONDS``."""

    async def wait(self, timeout: float) -> None:
        await asyncio.sleep(min(POLL_SECONDS, timeout))


class Listener:
    """PostgreSQL: sleep until a notification names the run (or ``timeout`` passes)."""

    def __init__(self, connection: Any, run_id: int) -> None:
        self.connection = connection
        self.payload = str(run_id)
        self.lost = False  # the connection failed: poll like SQLite for the rest of the stream

    async def wait(self, timeout: float) -> None:
        import psycopg

        if self.lost:
            return await Poller().wait(timeout)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(timeout, NOTIFY_SAFETY_SECONDS)
        try:
            while (left := deadline - loop.time()) > 0:
                async for notify in self.connection.notifies(timeout=left, stop_after=1):
                    if notify.payload == self.payload:
                        return
        except psycopg.Error as exc:
            logger.warning("live updates of run %s poll: LISTEN lost: %s", self.payload, exc)
            self.lost = True


def listen_params(alias: str = "default") -> dict[str, Any] | None:
    """psycopg connection parameters of the database ``alias`` when it is PostgreSQL (those
    Django's own connection uses, less what only a synchronous Django cursor takes)."""
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return None
    params = connection.get_connection_params()
    for name in ("cursor_factory", "context"):
        params.pop(name, None)
    return params


@asynccontextmanager
async def waiter(
    run_id: int, alias: str = "default", session: Any = None
) -> AsyncIterator[Poller | Listener]:
    """What a stream of ``run_id`` waits on: a ``Listener`` on a connection of its own on
    PostgreSQL — ``session``, the one holding the stream's slot (``runs.live.slots``), which its
    owner closes; else one opened here and closed when the stream ends — and a ``Poller`` on
    SQLite, and on PostgreSQL too, logged, if it refuses the connection or the triggers are
    missing, so the page still updates."""
    params = listen_params(alias)
    if params is None:
        yield Poller()
        return
    import psycopg

    owned = session is None
    try:
        if owned:
            session = await psycopg.AsyncConnection.connect(**params, autocommit=True)
        await session.execute(f"LISTEN {CHANNEL}")
        cursor = await session.execute(TRIGGERS)
        installed = (await cursor.fetchone())[0]
    except psycopg.Error as exc:
        logger.warning("live updates of run %s poll: LISTEN failed: %s", run_id, exc)
        yield Poller()
        return
    if installed < 2:  # nothing would notify (migration 0007 not applied, or reverted)
        logger.warning("live updates of run %s poll: the notify triggers are missing", run_id)
        if owned:
            await session.close()
        yield Poller()
        return
    try:
        yield Listener(session, run_id)
    finally:
        if owned:
            await session.close()  # also when the client went away (the task is cancelled)
