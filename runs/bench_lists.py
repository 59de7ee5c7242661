"""The list figures of ``rewind_bench`` (issue 19): pages bounded by the page, not by the history.

``seed_runs`` writes runs as rows (``bulk_create``, nothing executes; steps for the few runs a
page compares): lineages of three (a root, a fork, a replay of the fork) and, when asked, one
root with a big lineage of forks, replays of forks and stability samples. 50,000 runs take
seconds, not the hours executing them would.

``list_figures`` seeds, inside a transaction rolled back at the end (nothing stays), 1,000 runs
and measures the anchors there (the runs list's first and middle pages, a search, the compare
page); then seeds up to ``runs`` (default 50,000), one root holding a lineage of 5,000, and
measures the same pages again. Each page is the server's time for ``GET`` in process (Django's
handler: middleware, session, the view, the template; no network), the best of ``repeat``.
The SQL of the runs list is the time its queries take (the same request, timed per statement),
at 10,000 runs. The goals are the issue's: absolute for the first page and the compare page
(≤ 100 ms and ≤ 200 KB whatever the lineage; ≤ 120 ms), ratios to 1,000 runs for the middle page
and the search (≤ 1.5×), ≤ 15 ms for the runs list's SQL at 10,000 runs.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Max
from django.test import Client

from runs.bench_pages import _best_get, _figure, _step
from runs.models import Node, Run
from runs.views.listing import RUNS_PER_PAGE

ANCHOR_RUNS = 1_000
SQL_RUNS = 10_000
LINEAGE = 5_000
STEPS = 8
SEARCHED = "harbour"  # the value 5 forks (and their 5 replays) changed: the search's needle
FIRST_PAGE_GOAL_S = 0.100
FIRST_PAGE_GOAL_KB = 200
COMPARE_GOAL_S = 0.120
RATIO_GOAL = 1.5
SQL_GOAL_S = 0.015
_PROVIDER = {"model": "rewind-sim-1", "temperature": 0.0, "simulator": True}


def _run(**fields: Any) -> Run:
    values = {
        "pipeline": "research",
        "status": Run.Status.COMPLETED,
        "provider": _PROVIDER,
        "inputs": {"region": "all"},
        **fields,
    }
    return Run(**values)


def _fork(parent: Run, root: Run, value: object, **fields: Any) -> Run:
    override = {"node": "analyse", "field": "args.cost_scale", "value": value}
    values = {"fork_node": "analyse", "fork_sequence_id": 2, "override": override, **fields}
    return _run(parent=parent, root=root, **values)


def _next_id() -> int:
    return (Run.objects.aggregate(top=Max("id"))["top"] or 0) + 1


def _with_steps(*runs: Run) -> None:
    Node.objects.bulk_create(_step(run, seq) for run in runs for seq in range(STEPS))


def _background(count: int, searched: int) -> None:
    """``count`` runs as lineages of three, each written in the order a person makes them
    (root, fork, replay of the fork: ids given, so one INSERT holds a batch of whole lineages
    and roots interleave with forks in time as they do in use)."""
    pk = _next_id()
    batch: list[Run] = []
    for n in range(count // 3 + (1 if count % 3 else 0)):
        root = _run(pk=pk, root_id=pk)
        value = SEARCHED if n < searched else 1 + n % 97
        fork = _fork(root, root, value, pk=pk + 1)
        batch += [root, fork, _fork(fork, root, value, pk=pk + 2)]
        pk += 3
        if len(batch) >= 3000:
            Run.objects.bulk_create(batch)
            batch = []
    Run.objects.bulk_create(batch)


def seed_runs(count: int, *, lineage: int = 0, searched: int = 0) -> Run | None:
    """``count`` runs as rows: lineages of three (root, fork, replay of the fork) and, with
    ``lineage``, one root (the newest) with that many descendants — forks, replays of forks and
    10 stability samples. ``searched`` forks (and their replays) change their value to
    ``SEARCHED``. Returns the big lineage's root, its steps and its first fork's written (None
    without a lineage)."""
    _background(max(0, count - (lineage + 1 if lineage else 0)), searched)
    if not lineage:
        return None
    pk = _next_id()
    root = _run(pk=pk, root_id=pk)
    samples = min(10, lineage)
    forks = [
        _fork(root, root, 1 + n % 97, pk=pk + 1 + n) for n in range((lineage - samples) * 2 // 5)
    ]
    pk += 1 + len(forks)
    replays = [
        _fork(forks[n % len(forks)], root, forks[n % len(forks)].override["value"], pk=pk + n)
        for n in range(lineage - samples - len(forks))
    ]
    pk += len(replays)
    sampled = [
        _run(pk=pk + n, parent=root, root=root, fork_node="plan", fork_sequence_id=0,
             mode="live", sample_of=root)
        for n in range(samples)
    ]  # fmt: skip
    root.sample_count = samples
    Run.objects.bulk_create([root, *forks, *replays, *sampled], batch_size=3000)
    _with_steps(root, forks[0])
    return root


@contextmanager
def _timed_sql() -> Iterator[list[float]]:
    """The time each statement of the block took, in seconds."""
    times: list[float] = []

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            times.append(time.perf_counter() - started)

    with connection.execute_wrapper(timed):
        yield times


def _best_sql(client: Client, path: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        with _timed_sql() as times:
            assert client.get(path).status_code == 200
        best = min(best, sum(times))
    return best


def _pages(client: Client, compare: str, repeat: int) -> dict[str, tuple[float, int]]:
    """Server time and bytes of the pages the figures read, at the runs seeded so far."""
    roots = Run.objects.filter(parent__isnull=True).count()
    middle = max(1, (roots // RUNS_PER_PAGE) // 2)
    paths = {
        "first": "/runs/",
        "middle": f"/runs/?page={middle}",
        "search": f"/runs/?q={SEARCHED}",
        "compare": compare,
    }
    for path in paths.values():
        client.get(path)  # warm: templates compiled
    return {name: _best_get(client, path, repeat) for name, path in paths.items()}


def list_figures(repeat: int, runs: int = 50_000) -> list[dict]:
    """The issue's page figures, each beside its anchor at 1,000 runs (see the module)."""
    repeat = max(5, repeat)  # a page takes tens of ms: five tries cost little, and steady it
    runs = max(runs, SQL_RUNS + LINEAGE + 1)
    vendor = connection.vendor
    started = time.perf_counter()
    with transaction.atomic():
        user = get_user_model().objects.create_user(f"rewind-bench-{uuid.uuid4().hex[:12]}")
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(user)
        seed_runs(ANCHOR_RUNS, searched=5)
        small = Run.objects.filter(parent__isnull=False, override__value=SEARCHED).first()
        _with_steps(small.parent, small)
        _analyze()
        anchors = _pages(client, f"/compare/{small.parent_id}/{small.pk}/", repeat)
        sql_anchor = _best_sql(client, "/runs/", repeat)
        seed_runs(SQL_RUNS - ANCHOR_RUNS)
        _analyze()
        sql = _best_sql(client, "/runs/", repeat)
        root = seed_runs(runs - SQL_RUNS, lineage=LINEAGE)
        seeded = time.perf_counter() - started
        _analyze()
        fork = Run.objects.filter(parent=root).order_by("id").first()
        subjects = _pages(client, f"/compare/{root.pk}/{fork.pk}/", repeat)
        total = Run.objects.count()
        transaction.set_rollback(True)
    at = f"{runs:,} runs, one root with {LINEAGE:,} descendants"
    first, first_bytes = subjects["first"]
    return [
        _figure(
            f"runs list page 1, {at} (server time)",
            first,
            anchors["first"][0],
            FIRST_PAGE_GOAL_S,
            anchor_is=f"the same page at {ANCHOR_RUNS:,} runs, no big lineage",
            bytes=first_bytes,
            seeded_s=round(seeded, 1),
            runs_in_database=total,
        ),
        {
            **_figure(
                f"runs list page 1, {at}: size",
                first_bytes / 1000,
                anchors["first"][1] / 1000,
                FIRST_PAGE_GOAL_KB,
            ),
            "goal": f"≤ {FIRST_PAGE_GOAL_KB} KB",
            "anchor_is": f"the same page at {ANCHOR_RUNS:,} runs (KB)",
        },
        _figure(
            f"compare page, a run of that lineage against its root (server time, {vendor})",
            subjects["compare"][0],
            anchors["compare"][0],
            COMPARE_GOAL_S,
            anchor_is=f"the same page for a root and its fork at {ANCHOR_RUNS:,} runs",
            bytes=subjects["compare"][1],
        ),
        _ratio(
            f"runs list middle page, {runs:,} ÷ {ANCHOR_RUNS:,} runs", subjects, anchors, "middle"
        ),
        _ratio(
            f"runs search (10 matches), {runs:,} ÷ {ANCHOR_RUNS:,} runs",
            subjects,
            anchors,
            "search",
        ),
        _figure(
            f"runs list SQL at {SQL_RUNS:,} runs ({vendor})",
            sql,
            sql_anchor,
            SQL_GOAL_S,
            anchor_is=f"the same statements at {ANCHOR_RUNS:,} runs",
        ),
    ]


def _ratio(name: str, subjects: dict, anchors: dict, key: str) -> dict:
    value, anchor = subjects[key][0], anchors[key][0]
    return {
        "figure": name,
        "value": round(value, 6),
        "anchor": round(anchor, 6),
        "ratio": round(value / anchor, 3),
        "goal": f"≤ {RATIO_GOAL}×",
        "pass": value / anchor <= RATIO_GOAL,
        "anchor_is": f"the same page at {ANCHOR_RUNS:,} runs",
    }


def _analyze() -> None:
    """PostgreSQL: fresh planner statistics for the rows just written, as autovacuum would
    have them (rolled back with the rows). SQLite keeps none unless asked: none are made."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE runs_run")
