"""Statements a run sends every time, written once rather than built by the ORM per call:
a step's rows, cache entries, a run's claim and its end.

Building a query is most of what a small statement costs (measured on SQLite: 0.45 of a
0.5–0.7 ms statement), and a cached replay is a few milliseconds, so its statements are
written here.

A cached replay step writes three rows (its state row, its step row, the edge to it); built
by ``Model.save()`` each INSERT is compiled again for every step, which the profile of a
200-step replay put at over half of a step's time. ``insert`` builds the same parameterised
statement once per model and connection vendor, and binds each row's values the way the ORM
does (``Field.pre_save`` then ``get_db_prep_save``): the same SQL, the same stored values.
``insert_if_new`` inserts a row unless its unique values are there (a cache entry), and
``insert_all`` writes many rows of one model as one multi-row INSERT (the steps a cached
replay held back, ``StepRecorder``), its primary keys read back in order as ``bulk_create``
reads them. Neither sends model signals (Rewind connects none) nor stores blobs — the caller
does (``Blob.objects.store``, through ``insert_new``: rows whose key is their own, each unless
it is there). ``update_where`` is ``filter(...).exclude(...).update(...)``
for equalities, the values bound the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, models


@cache
def _statement(
    model: type[models.Model], vendor: str, rows: int = 1
) -> tuple[str, tuple[models.Field, ...]]:
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    pk = model._meta.pk
    values = "({})".format(", ".join(["%s"] * len(fields)))
    sql = "INSERT INTO {} ({}) VALUES {} RETURNING {}".format(
        quote(model._meta.db_table),
        ", ".join(quote(f.column) for f in fields),
        ", ".join([values] * rows),
        quote(pk.column),
    )
    return sql, fields


@cache
def _unnest_statement(model: type[models.Model]) -> str:
    """PostgreSQL's multi-row INSERT: a column's values as one array (``INSERT … SELECT * FROM
    UNNEST(…)``), as Django's own ``bulk_create`` sends rows there. Its parameters are as many
    as the columns, however many the rows, so psycopg parses it once (it keeps statements of
    at most 50 parameters parsed; eight steps' rows as VALUES have 224, parsed every time)."""
    sql, fields = _statement(model, "postgresql")
    connection = connections[DEFAULT_DB_ALIAS]
    # ``varchar[]``, not ``varchar(100)[]``, as Django does: the column checks the length.
    arrays = ", ".join(f"(%s)::{f.db_type(connection).split('(')[0]}[]" for f in fields)
    into, _, rest = sql.partition(" VALUES ")
    return f"{into} SELECT * FROM UNNEST({arrays}) RETURNING {rest.partition(' RETURNING ')[2]}"


def insert(obj: models.Model) -> models.Model:
    """INSERT ``obj`` as one statement and give it its primary key, like ``save()`` on a new
    row of a model with an automatic key."""
    insert_all([obj])
    return obj


def insert_all(objs: Sequence[models.Model]) -> None:
    """INSERT ``objs`` (rows of one model) in as few statements as the database's limit on
    parameters allows — one for a replay's steps — each given its primary key."""
    if not objs:
        return
    # The connection itself, not the ``django.db.connection`` proxy, which looks the thread's
    # connection up again on every attribute the fields' preparation reads.
    connection = connections[DEFAULT_DB_ALIAS]
    model = type(objs[0])
    fields = _statement(model, connection.vendor)[1]
    unnest = connection.vendor == "postgresql" and len(objs) > 1
    size = len(objs) if unnest else max(1, connection.ops.bulk_batch_size(fields, objs))
    with connection.cursor() as cursor:
        for start in range(0, len(objs), size):
            chunk = objs[start : start + size]
            rows = [
                [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
                for obj in chunk
            ]
            if unnest:
                cursor.execute(_unnest_statement(model), [list(c) for c in zip(*rows, strict=True)])
            else:
                sql = _statement(model, connection.vendor, len(chunk))[0]
                cursor.execute(sql, [value for row in rows for value in row])
            # In the order of the VALUES, as Django's own bulk_create relies on (SQLite's
            # RETURNING and PostgreSQL's both emit the rows in the order they are inserted).
            for obj, (pk,) in zip(chunk, cursor.fetchall(), strict=True):
                obj.pk = pk
                obj._state.adding = False
                obj._state.db = connection.alias


def insert_if_new(obj: models.Model, unique: tuple[str, ...]) -> models.Model:
    """INSERT ``obj`` unless a row with its values of ``unique`` (a unique constraint's
    fields) is there; either way ``obj`` gets the key of the row that holds them. The
    conflict is the database's to settle (``ON CONFLICT DO NOTHING``: SQLite ≥ 3.35 and
    PostgreSQL): no savepoint, no exception, two statements at most."""
    insert_all_if_new([obj], unique)
    return obj


def insert_all_if_new(objs: Sequence[models.Model], unique: tuple[str, ...]) -> None:
    """``insert_if_new`` for many rows of one model (cache entries a batch of steps got): one
    multi-row INSERT that skips the rows already there, then one SELECT for those, so two
    statements however many rows (more only past the database's limit on parameters). Each
    row gets the key of the row that holds its values of ``unique``; two rows with the same
    values are one row. ``unique``'s fields are text or integers (their values come back as
    they were bound)."""
    if not objs:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    model = type(objs[0])
    fields = _statement(model, connection.vendor)[1]
    quote = connection.ops.quote_name
    meta = model._meta
    at = [fields.index(meta.get_field(name)) for name in unique]
    rows: dict[tuple, list[Any]] = {}  # unique values -> the row's values, first row kept
    uniques = []
    for obj in objs:
        row = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
        uniques.append(tuple(row[i] for i in at))
        rows.setdefault(uniques[-1], row)
    returned = ", ".join([quote(meta.pk.column), *(quote(fields[i].column) for i in at)])
    table = quote(meta.db_table)
    keys: dict[tuple, int] = {}
    pending = list(rows.items())
    size = max(1, connection.ops.bulk_batch_size(fields, pending))
    with connection.cursor() as cursor:
        for start in range(0, len(pending), size):
            chunk = pending[start : start + size]
            into = _statement(model, connection.vendor, len(chunk))[0].rpartition(" RETURNING ")[0]
            cursor.execute(
                f"{into} ON CONFLICT DO NOTHING RETURNING {returned}",
                [value for _, row in chunk for value in row],
            )
            keys.update((tuple(found), key) for key, *found in cursor.fetchall())
        there = [values_ for values_ in rows if values_ not in keys]  # kept before: read them
        match = "({})".format(" AND ".join(f"{quote(fields[i].column)} = %s" for i in at))
        size = max(1, (connection.features.max_query_params or 999) // len(unique))
        for start in range(0, len(there), size):
            chunk = there[start : start + size]
            cursor.execute(
                f"SELECT {returned} FROM {table} WHERE {' OR '.join([match] * len(chunk))}",
                [value for values_ in chunk for value in values_],
            )
            keys.update((tuple(found), key) for key, *found in cursor.fetchall())
    for obj, values_ in zip(objs, uniques, strict=True):
        obj.pk = keys[values_]
        obj._state.adding = False
        obj._state.db = connection.alias


def insert_new(objs: Sequence[models.Model]) -> None:
    """``bulk_create(objs, ignore_conflicts=True)`` for rows whose key is theirs (a blob's
    hash): each row not there yet, in as few statements as the parameter limit allows."""
    if not objs:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    model = type(objs[0])
    fields = tuple(model._meta.concrete_fields)
    quote = connection.ops.quote_name
    head = "INSERT INTO {} ({}) VALUES ".format(
        quote(model._meta.db_table), ", ".join(quote(f.column) for f in fields)
    )
    row = "({})".format(", ".join(["%s"] * len(fields)))
    size = max(1, connection.ops.bulk_batch_size(fields, objs))
    with connection.cursor() as cursor:
        for start in range(0, len(objs), size):
            chunk = objs[start : start + size]
            params = [
                f.get_db_prep_save(f.pre_save(o, True), connection) for o in chunk for f in fields
            ]
            cursor.execute(f"{head}{', '.join([row] * len(chunk))} ON CONFLICT DO NOTHING", params)


def update_where(
    model: type[models.Model],
    values: dict[str, Any],
    where: dict[str, Any],
    unless: dict[str, Any] | None = None,
) -> int:
    """``model.objects.filter(**where).exclude(**unless).update(**values)`` for equalities on
    fields that are never NULL (``exclude`` then needs no NULL test): the same statement,
    sent without building a query. The rows changed."""
    connection = connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    meta = model._meta
    params: list[Any] = []

    def bound(pairs: dict[str, Any], joiner: str) -> str:
        terms = []
        for name, value in pairs.items():
            field = meta.get_field(name)
            terms.append(f"{quote(field.column)} = %s")
            params.append(field.get_db_prep_save(value, connection))
        return joiner.join(terms)

    sql = f"UPDATE {quote(meta.db_table)} SET {bound(values, ', ')} WHERE {bound(where, ' AND ')}"
    if unless:
        sql += f" AND NOT ({bound(unless, ' AND ')})"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
