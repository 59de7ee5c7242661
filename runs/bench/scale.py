"""The list figures at scale (issue 33): runs seeded by the million in one statement, and the
query plans of a page that misses its goal.

``insert_lineages`` writes the lineages of three ``runs.bench.lists`` seeds (a root, a fork, a
replay of the fork; ``searched`` of them holding the search's needle) with one ``INSERT …
SELECT`` over a series (PostgreSQL's ``generate_series``, a recursive CTE on SQLite): no row
passes through Python. On PostgreSQL 1,000,000 runs take about 30 s, most of it the deferred
checks of their keys to one another at the commit (``bulk_create`` took 3.5 minutes; this
project's 2-core machine). Their ``created_at`` run back from ``before`` a microsecond apart, in
the order a person makes them, so the ``-created_at, -id`` orderings are those of rows made one
by one.

``page_plans`` asks the database how it ran a page's slowest statements (each statement of one
``GET`` timed through ``connection.execute_wrapper``, then ``EXPLAIN (ANALYZE, BUFFERS)`` of the
slowest on PostgreSQL, ``EXPLAIN QUERY PLAN`` on SQLite): what a failing row carries in its
``plans`` so the bench's ``--json`` says why.

``scale_rows`` are the issue's rows at ``--scale-runs`` (1,000,000 on PostgreSQL): the runs list's
first page, a middle page, the search and the compare page, each ≤ ``SCALE_GOAL_S`` of server
time, each beside the same page at 1,000 runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection
from django.test import Client

from runs.models import Run

SCALE_GOAL_S = 0.150
PLANNED = 3  # the slowest statements of a failing page whose plans its row carries
# The columns ``insert_lineages`` computes per row; every other one is the template run's.
_VARYING = {
    "id",
    "root_id",
    "parent_id",
    "fork_node",
    "fork_sequence_id",
    "override",
    "created_at",
}


def insert_lineages(
    template: Run, start: int, lineages: int, searched: int, needle: str, before: datetime
) -> int:
    """``lineages`` lineages of three, ids from ``start``, every other column as ``template``
    has it; lineage ``n`` forks to ``needle`` when ``n < searched``, else to ``1 + n % 97``.
    One statement; the number of runs written."""
    if lineages <= 0:
        return 0
    total = 3 * lineages
    postgresql = connection.vendor == "postgresql"
    columns, values, params = [], [], []
    for field in Run._meta.concrete_fields:
        value = getattr(template, field.attname)
        if field.column in _VARYING or value is None:
            continue  # computed below; NULL where the template holds none
        columns.append(field.column)
        cast = f"::{field.db_type(connection)}" if postgresql else ""
        values.append(f"%s{cast}")
        params.append(field.get_db_prep_save(value, connection))
    # g: the run's place in the series; g / 3: its lineage; g % 3: root, fork, replay of it.
    if postgresql:
        series = "FROM generate_series(0, %s - 1) AS s(g)"
        value = "CASE WHEN g / 3 < %s THEN to_jsonb(%s::text) ELSE to_jsonb(1 + g / 3 %% 97) END"
        override = (
            f"jsonb_build_object('node', 'analyse', 'field', 'args.cost_scale', 'value', {value})"
        )
        created = "%s::timestamptz - (%s - g) * interval '1 microsecond'"
        prefix = ""
    else:
        prefix = "WITH RECURSIVE s(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM s WHERE g + 1 < %s) "
        series = "FROM s"
        value = "CASE WHEN g / 3 < %s THEN %s ELSE 1 + g / 3 %% 97 END"
        override = f"json_object('node', 'analyse', 'field', 'args.cost_scale', 'value', {value})"
        # Django's text for a UTC moment, from its microseconds since the epoch.
        micros = "(%s - (%s - g))"
        created = (
            f"strftime('%%Y-%%m-%%d %%H:%%M:%%S', {micros} / 1000000, 'unixepoch') "
            f"|| '.' || printf('%%06d', {micros} %% 1000000)"
        )
    varying = {
        "id": "%s + g",
        "root_id": "%s + g / 3 * 3",
        "parent_id": "CASE WHEN g %% 3 = 0 THEN NULL ELSE %s + g - 1 END",
        "fork_node": "CASE WHEN g %% 3 = 0 THEN '' ELSE 'analyse' END",
        "fork_sequence_id": "CASE WHEN g %% 3 = 0 THEN NULL ELSE 2 END",
        "override": f"CASE WHEN g %% 3 = 0 THEN NULL ELSE {override} END",
        "created_at": created,
    }
    varying_params = {
        "id": [start],
        "root_id": [start],
        "parent_id": [start],
        "fork_node": [],
        "fork_sequence_id": [],
        "override": [searched, needle],
        "created_at": [before, total] if postgresql else [_micros(before), total] * 2,
    }
    for column, sql in varying.items():
        columns.append(column)
        values.append(sql)
        params.extend(varying_params[column])
    quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
    sql = f"{prefix}INSERT INTO {Run._meta.db_table} ({quoted}) SELECT {', '.join(values)} {series}"
    series_params = [total]
    with connection.cursor() as cursor:
        if postgresql:  # the series' bound closes the statement
            cursor.execute(sql, [*params, *series_params])
        else:  # the CTE's opens it
            cursor.execute(sql, [*series_params, *params])
    return total


def _micros(moment: datetime) -> int:
    """Microseconds since the epoch, exactly."""
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def page_plans(client: Client, path: str) -> list[dict]:
    """The plans of the ``PLANNED`` slowest statements one ``GET path`` runs, slowest first:
    each with its time in that request, its SQL and the plan the database reports for it."""
    statements: list[tuple[float, str, Any]] = []

    def timed(execute: Callable, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if not many:
                statements.append((time.perf_counter() - started, sql, params))

    with connection.execute_wrapper(timed):
        client.get(path)
    slowest = sorted(
        (s for s in statements if s[1].lstrip().upper().startswith(("SELECT", "WITH"))),
        key=lambda s: -s[0],
    )[:PLANNED]
    return [
        {"ms": round(took * 1000, 2), "sql": sql, "plan": _explain(sql, params)}
        for took, sql, params in slowest
    ]


def _explain(sql: str, params: Any) -> list[str]:
    if connection.vendor == "postgresql":
        explain = "EXPLAIN (ANALYZE, BUFFERS) "
    elif connection.vendor == "sqlite":
        explain = "EXPLAIN QUERY PLAN "
    else:
        return []
    with connection.cursor() as cursor:
        if params is None:
            cursor.execute(explain + sql)
        else:
            cursor.execute(explain + sql, params)
        return [" ".join(str(cell) for cell in row) for row in cursor.fetchall()]


PAGES = {
    "first": "runs list page 1",
    "middle": "runs list middle page",
    "search": "runs search (10 matches)",
    "compare": "compare page, a run of that lineage against its root",
}


def scale_rows(
    at: str, scaled: dict, anchors: dict, plans: dict, *, seeded_s: float, anchor_runs: int
) -> list[dict]:
    """The issue's four rows ``at`` so many runs: each page's server time against the absolute goal,
    the same page at ``anchor_runs`` runs beside it, and the plans of a page that fails."""
    rows = []
    for key, name in PAGES.items():
        value, size = scaled[key]
        anchor = anchors[key][0]
        row = {
            "figure": f"{name}, {at} (server time, {connection.vendor})",
            "value": round(value, 6),
            "anchor": round(anchor, 6),
            "ratio": round(value / anchor, 3) if anchor else None,
            "goal": f"≤ {SCALE_GOAL_S:.3f} s",
            "pass": value <= SCALE_GOAL_S,
            "anchor_is": f"the same page at {anchor_runs:,} runs",
            "bytes": size,
        }
        if key in plans:
            row["plans"] = plans[key]
        rows.append(row)
    rows[0]["seeded_s"] = round(seeded_s, 1)
    return rows


def failing(scaled: dict) -> list[str]:
    """The pages of ``scaled`` (name → (seconds, bytes)) over ``SCALE_GOAL_S``."""
    return [key for key, (seconds, _) in scaled.items() if seconds > SCALE_GOAL_S]
