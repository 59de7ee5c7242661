"""Burr's state-persister tables, read: the rows ``SQLitePersister`` and
``PostgreSQLPersister`` write, one per step (partition key, app id, sequence id, position — the
action —, status, the state after it as Burr serialised it, created at). The database is opened
read-only and the rows are read in order, a cursor at a time: nothing is loaded whole, nothing
is written there. A persister keeps no runtime inputs, spans or graph: a step's output is the
keys it changed."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from runs.engine.errors import InputError
from runs.engine.imports.tracker import LogError, Step

_TABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_COLUMNS = "partition_key, app_id, sequence_id, position, status, state, created_at"


@dataclass(frozen=True)
class Database:
    url: str  # as given
    kind: str  # "sqlite" | "postgresql"
    location: str  # a file, or the URL without its password: never a credential
    table: str


def database(url: str, table: str) -> Database:
    """The persister database ``url`` names (``sqlite:///path``, ``postgresql://…``), checked
    before anything is read: the table's name, the file."""
    if not _TABLE.match(table or ""):
        raise InputError(f"--table {table!r}: not a table name (letters, digits, _)")
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        given = url.split("://", 1)[1]
        path = Path(given)
        if not path.is_file() and given.startswith("/") and Path(given[1:]).is_file():
            path = Path(given[1:])  # sqlite:///relative/path, as SQLAlchemy reads it
        if not path.is_file():
            raise InputError(f"{given}: no such SQLite file")
        return Database(url, "sqlite", str(path.resolve()), table)
    if parts.scheme in {"postgres", "postgresql"}:
        netloc = parts.netloc.rsplit("@", 1)
        host = netloc[-1]
        user = netloc[0].split(":", 1)[0] + "@" if len(netloc) == 2 else ""
        location = urlunsplit(("postgresql", user + host, parts.path, "", ""))
        return Database(url, "postgresql", location, table)
    scheme = f"{parts.scheme}://…" if parts.scheme else "that URL"
    raise InputError(f"{scheme}: give sqlite:///path/to/file.db or postgresql://user@host/db")


@dataclass
class PersistedApp:
    partition_key: str
    app_id: str


def _state(value: Any, where: str, line: int) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise LogError(where, line, f"state is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise LogError(where, line, "state is not an object")
    return value


def _time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def _rows(db: Database) -> Iterator[tuple]:
    query = f"SELECT {_COLUMNS} FROM {db.table} ORDER BY partition_key, app_id, sequence_id"
    if db.kind == "sqlite":
        uri = f"file:{db.location}?mode=ro"
        try:
            with closing(sqlite3.connect(uri, uri=True)) as conn:
                yield from conn.execute(query)
        except sqlite3.Error as exc:
            raise InputError(f"{db.location}: {exc}") from None
        return
    import psycopg

    try:
        with psycopg.connect(db.url, autocommit=False) as conn:
            conn.read_only = True
            with conn.cursor(name="rewind_import") as cursor:
                cursor.itersize = 500
                cursor.execute(query)
                yield from cursor
    except psycopg.Error as exc:
        message = str(exc).replace(urlsplit(db.url).password or "\x00", "***")
        raise InputError(f"{db.location}: {message.strip().splitlines()[0]}") from None


def persisted_apps(db: Database) -> Iterator[tuple[PersistedApp, Iterator[Step]]]:
    """Each app of the table with its steps in order, read as one pass over the rows: the
    steps of an app must be consumed before the next app is asked for."""
    rows = _rows(db)
    where = f"{db.location}:{db.table}"
    pending: tuple | None = None
    number = 0

    def next_row() -> tuple | None:
        nonlocal number
        number += 1
        return next(rows, None)

    pending = next_row()
    while pending is not None:
        app = PersistedApp(str(pending[0] or ""), str(pending[1]))

        def app_steps(app: PersistedApp = app) -> Iterator[Step]:
            nonlocal pending
            while pending is not None and (str(pending[0] or ""), str(pending[1])) == (
                app.partition_key,
                app.app_id,
            ):
                _, _, seq, position, status, state, created = pending
                row_number = number
                pending = next_row()
                when = _time(created)
                yield Step(
                    sequence_id=int(seq),
                    action=str(position),
                    inputs={},
                    started=when,
                    ended=when,
                    state=_state(state, where, row_number),
                    exception=None if status == "completed" else f"Burr's row says {status}",
                    line=row_number,
                )

        steps = app_steps()
        yield app, steps
        for _ in steps:  # the caller left some: skip to the next app
            pass
