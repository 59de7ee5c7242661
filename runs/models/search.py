"""Finding runs by what a person remembers of them (issue 19): an id ("12", "run 12", "#12"), or
text found in the pipeline, the fork point, the changed field or its value — through an index,
never ``LIKE`` over the runs table.

The text searched is one string per run, its four parts joined by the unit separator (U+001F,
taken out of every query: a match never spans two parts), kept in the index of each backend:

- SQLite: an FTS5 table ``runs_run_search`` (the ``trigram`` tokenizer: a match is a substring,
  case-insensitive, as ``icontains`` was) filled and kept in step by triggers on ``runs_run``.
  A trigram index cannot look up fewer than 3 characters: a 1- or 2-character search reads the
  FTS table through (its rows are short; the runs table is not read).
- PostgreSQL: a GIN trigram index (``pg_trgm``) on the same string; ``ILIKE '%text%'`` uses it
  from 3 characters on. Where ``pg_trgm`` cannot be created the search still works, unindexed.

``install`` is what migration 0019 runs; ``repair`` runs after every ``migrate`` (SQLite drops a
table's triggers when a later migration rebuilds the table) and puts back what is missing.
"""

from __future__ import annotations

import logging
import re

from django.db import DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL

log = logging.getLogger(__name__)

# "12", "run 12", "#12": a search for one run by its id.
RUN_ID = re.compile(r"^(?:run\s*|#)?(\d{1,10})$", re.IGNORECASE)

SEPARATOR = "\x1f"
FTS_TABLE = "runs_run_search"
TRIGRAM_INDEX = "run_search_trgm"
_TRIGGERS = ("runs_run_search_ai", "runs_run_search_ad", "runs_run_search_au")


def _sqlite_text(row: str) -> str:
    return (
        f"{row}.pipeline || char(31) || {row}.fork_node || char(31)"
        f" || coalesce(json_extract({row}.override, '$.field'), '') || char(31)"
        f" || coalesce(json_extract({row}.override, '$.value'), '')"
    )


# The indexed expression: a query must spell it exactly so the planner uses the index.
PG_TEXT = (
    '("runs_run"."pipeline" || chr(31) || "runs_run"."fork_node" || chr(31)'
    " || coalesce(\"runs_run\".\"override\" ->> 'field', '') || chr(31)"
    " || coalesce(\"runs_run\".\"override\" ->> 'value', ''))"
)


def search_runs(runs: QuerySet, query: str) -> QuerySet:
    """``runs`` narrowed to the run ``query`` names by id, or to the runs whose text contains
    ``query`` (case-insensitive), through the backend's index."""
    match = RUN_ID.match(query)
    query = query.replace(SEPARATOR, "")
    if match:
        return runs.filter(pk=int(match.group(1)))
    vendor = connections[runs.db].vendor
    if vendor == "sqlite":
        if len(query) >= 3:
            phrase = '"' + query.replace('"', '""') + '"'  # a literal phrase: substrings
            where = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"
            return runs.filter(pk__in=RawSQL(where, [phrase]))
        where = f"SELECT rowid FROM {FTS_TABLE} WHERE body LIKE %s ESCAPE '\\'"
        return runs.filter(pk__in=RawSQL(where, [_like(query)]))
    if vendor == "postgresql":
        found = RawSQL(f"{PG_TEXT} ILIKE %s", [_like(query)], output_field=BooleanField())
        return runs.filter(found)
    return runs.filter(  # another backend: the same matches, unindexed
        Q(pipeline__icontains=query)
        | Q(fork_node__icontains=query)
        | Q(override__field__icontains=query)
        | Q(override__value__icontains=query)
    )


def _like(query: str) -> str:
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# --------------------------------------------------------------------------- the index itself


def install(connection: BaseDatabaseWrapper) -> None:
    """Create the search index of ``connection``'s backend and fill it from the runs there."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(body, "
                "tokenize = 'trigram')"
            )
            cursor.execute(f"DELETE FROM {FTS_TABLE}")
            cursor.execute(
                f"INSERT INTO {FTS_TABLE}(rowid, body) "
                f"SELECT id, {_sqlite_text('runs_run')} FROM runs_run"
            )
            for statement in _sqlite_triggers():
                cursor.execute(statement)
    elif connection.vendor == "postgresql":
        try:
            with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        except DatabaseError as exc:  # no permission: search works, unindexed
            log.warning("runs search: pg_trgm unavailable (%s); search is not indexed", exc)
            return
        with connection.cursor() as cursor:
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {TRIGRAM_INDEX} ON runs_run "
                f"USING gin ({PG_TEXT} gin_trgm_ops)"
            )


def uninstall(connection: BaseDatabaseWrapper) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            for name in _TRIGGERS:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
            cursor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        elif connection.vendor == "postgresql":
            cursor.execute(f"DROP INDEX IF EXISTS {TRIGRAM_INDEX}")


def repair(connection: BaseDatabaseWrapper) -> bool:
    """Put the SQLite triggers back (and refill the index) if a migration that rebuilt
    ``runs_run`` dropped them; True when something was repaired."""
    if connection.vendor != "sqlite":
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('trigger', 'table') AND name IN "
            f"({', '.join(['%s'] * (len(_TRIGGERS) + 1))})",
            [*_TRIGGERS, FTS_TABLE],
        )
        present = {row[0] for row in cursor.fetchall()}
    if present == {*_TRIGGERS, FTS_TABLE}:
        return False
    install(connection)
    return True


def _sqlite_triggers() -> list[str]:
    text = _sqlite_text("new")
    return [
        f"CREATE TRIGGER IF NOT EXISTS {_TRIGGERS[0]} AFTER INSERT ON runs_run BEGIN "
        f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.id, {text}); END",
        f"CREATE TRIGGER IF NOT EXISTS {_TRIGGERS[1]} AFTER DELETE ON runs_run BEGIN "
        f"DELETE FROM {FTS_TABLE} WHERE rowid = old.id; END",
        f"CREATE TRIGGER IF NOT EXISTS {_TRIGGERS[2]} "
        "AFTER UPDATE OF pipeline, fork_node, override ON runs_run BEGIN "
        f"UPDATE {FTS_TABLE} SET body = {text} WHERE rowid = new.id; END",
    ]
