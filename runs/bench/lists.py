"""The list figures of ``rewind_bench`` (issue 19): pages bounded by the page, not by the history.

``seed_runs`` writes runs as rows (nothing executes; steps for the few runs a page compares):
lineages of three (a root, a fork, a replay of the fork; one ``INSERT … SELECT`` over a series,
``runs.bench.scale``) and, when asked, one root with a big lineage of forks, replays of forks
and stability samples (``bulk_create``). 50,000 runs take seconds, 1,000,000 half a minute on
PostgreSQL, not the hours executing them would.

``list_figures`` seeds 1,000 runs and measures the anchors there (the runs list's first and
middle pages, a search, the compare page); then seeds up to ``runs`` (default 50,000), one root
holding a lineage of 5,000, and measures the same pages again. Nothing stays: on SQLite the
seeding is a transaction rolled back at the end. On PostgreSQL uncommitted rows would distort
the figures (no VACUUM can mark them visible to all, so every index-only scan reads the heap),
so each seeding stage is committed and ``VACUUM ANALYZE`` run on the tables it wrote before
measuring, as autovacuum would have them in use; every seeded row (runs, steps, the bench's
user, its session and sign-in log) is deleted at the end, whatever happens. Seeded runs carry a marker in
``provider`` (``MARK``) and the bench's user a name of its own, so a bench killed before its
clean-up has its leftovers removed (and said) by the next one; a PostgreSQL advisory lock keeps
two benches on one database from measuring, or removing, each other's rows. Each page is the server's time for ``GET`` in process (Django's
handler: middleware, session, the view, the template; no network), the best of ``repeat``.
The SQL of the runs list is the time its queries take (the same request, timed per statement),
at 10,000 runs. The goals are the issue's: absolute for the first page and the compare page
(≤ 100 ms and ≤ 200 KB whatever the lineage; ≤ 120 ms), ratios to 1,000 runs for the middle page
and the search (≤ 1.5×), ≤ 15 ms for the runs list's SQL at 10,000 runs. A page row that misses
its goal carries ``plans``: how the database ran its slowest statements (``scale.page_plans``).

With ``scale`` (``rewind_bench --scale-runs 1000000``, issue 33) a last stage adds history behind
those runs up to ``scale`` runs — lineages of three dated before every run there, so the first
page still holds the big lineage — and measures the four pages again, each ≤ 150 ms of server
time beside the same page at 1,000 runs (``scale.scale_rows``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Max, Min
from django.test import Client
from django.utils import timezone

from runs.bench.pages import _best_get, _figure, _step, forget_sign_ins
from runs.bench.scale import failing, insert_lineages, page_plans, scale_rows
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
MARK = "rewind_bench"  # the key in a seeded run's ``provider`` that says it is the bench's
USER_PREFIX = "rewind-bench-lists-"
_PROVIDER = {"model": "rewind-sim-1", "temperature": 0.0, "simulator": True, MARK: "lists"}
_LOCK = 0x5245_5749_4E44  # PostgreSQL advisory lock: one list bench per database at a time


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


def _background(count: int, searched: int, before: datetime | None = None) -> None:
    """``count`` runs (rounded up to whole lineages) as lineages of three, each written in the
    order a person makes them (root, fork, replay of the fork: roots interleave with forks in
    time as they do in use), dated up to ``before`` (now). One statement: ``scale``."""
    lineages = count // 3 + (1 if count % 3 else 0)
    insert_lineages(_run(), _next_id(), lineages, searched, SEARCHED, before or timezone.now())


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


def _paths(compare: str) -> dict[str, str]:
    """The pages the figures read, at the runs seeded so far."""
    roots = Run.objects.filter(parent__isnull=True).count()
    middle = max(1, (roots // RUNS_PER_PAGE) // 2)
    return {
        "first": "/runs/",
        "middle": f"/runs/?page={middle}",
        "search": f"/runs/?q={SEARCHED}",
        "compare": compare,
    }


def _pages(client: Client, paths: dict[str, str], repeat: int) -> dict[str, tuple[float, int]]:
    """Server time and bytes of ``paths``' pages."""
    for path in paths.values():
        client.get(path)  # warm: templates compiled
    return {name: _best_get(client, path, repeat) for name, path in paths.items()}


def _failing(subjects: dict, anchors: dict) -> list[str]:
    """The pages measured at ``runs`` that miss their goals (the rows' verdicts, ahead)."""
    goals = {"first": FIRST_PAGE_GOAL_S, "compare": COMPARE_GOAL_S}
    return [
        key
        for key, (value, _) in subjects.items()
        if value > goals.get(key, RATIO_GOAL * anchors[key][0])
    ]


def list_figures(
    repeat: int, runs: int = 50_000, say: Callable[[str], Any] | None = None, scale: int = 0
) -> list[dict]:
    """The issue's page figures, each beside its anchor at 1,000 runs (see the module); with
    ``scale``, the four pages again at that many runs against ``scale.SCALE_GOAL_S``.
    ``say`` is told of the leftovers of an earlier bench removed first, if any."""
    repeat = max(5, repeat)  # a page takes tens of ms: five tries cost little, and steady it
    runs = max(runs, SQL_RUNS + LINEAGE + 1)
    scale = max(scale, runs) if scale > 0 else 0
    # Committed, vacuumed rows on PostgreSQL; inside a caller's transaction (a test's) nothing
    # can be committed nor vacuumed: rolled back there, as on SQLite.
    vendor = connection.vendor
    committed = vendor == "postgresql" and not connection.in_atomic_block
    with _one_bench():
        left_runs, left_users = remove_seeded()
        if (left_runs or left_users) and say:
            say(
                f"rewind_bench: removed what an earlier list bench left: {left_runs:,} runs "
                f"(and their steps), {left_users} user(s)"
            )
        there = Run.objects.count()
        if there and say:  # the anchors are "at 1,000 runs" only in an empty database
            say(
                f"rewind_bench: the database already holds {there:,} runs; the list figures' "
                f"anchors count them too (measure on an empty scratch database)"
            )
        if not committed:
            with transaction.atomic():
                measured = _measure(repeat, runs, stage=_nothing, settle=_analyze, scale=scale)
                transaction.set_rollback(True)
        else:
            try:
                measured = _measure(
                    repeat, runs, stage=transaction.atomic, settle=_vacuum, scale=scale
                )
            finally:
                remove_seeded()
                _vacuum()  # the planner's statistics back to the tables as they are
    seeded, total, anchors, sql_anchor, sql, subjects, plans, scaled = measured
    at = f"{runs:,} runs, one root with {LINEAGE:,} descendants"
    first, first_bytes = subjects["first"]
    rows = [
        _figure(
            f"runs list page 1, {at} (server time)",
            first,
            anchors["first"][0],
            FIRST_PAGE_GOAL_S,
            anchor_is=f"the same page at {ANCHOR_RUNS:,} runs, no big lineage",
            bytes=first_bytes,
            seeded_s=round(seeded, 1),
            runs_in_database=total,
            seeding="committed, VACUUM ANALYZE, deleted after" if committed else "rolled back",
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
    for key, row in zip(("first", None, "compare", "middle", "search"), rows, strict=False):
        if key in plans:
            row["plans"] = plans[key]
    if scaled:
        rows += scale_rows(
            f"{scale:,} runs, one root with {LINEAGE:,} descendants",
            scaled["pages"],
            anchors,
            scaled["plans"],
            seeded_s=scaled["seeded_s"],
            anchor_runs=ANCHOR_RUNS,
        )
        rows[-4].update(vacuum_s=round(scaled["settled_s"], 1), runs_in_database=scaled["total"])
    return rows


def _measure(
    repeat: int, runs: int, *, stage: Callable, settle: Callable[[], None], scale: int = 0
) -> tuple:
    """Seed the stages and measure each; ``stage()`` is the context of a stage's seeding,
    ``settle()`` runs after it (the statistics, and on PostgreSQL the vacuum). With ``scale``,
    a last stage adds the history behind those runs up to ``scale`` (dated before them all, so
    the first page still holds the big lineage) and measures the pages again."""
    started = time.perf_counter()
    user = get_user_model().objects.create_user(f"{USER_PREFIX}{uuid.uuid4().hex[:12]}")
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    try:
        with stage():
            seed_runs(ANCHOR_RUNS, searched=5)
            small = Run.objects.filter(parent__isnull=False, override__value=SEARCHED).first()
            _with_steps(small.parent, small)
        settle()
        anchors = _pages(client, _paths(f"/compare/{small.parent_id}/{small.pk}/"), repeat)
        sql_anchor = _best_sql(client, "/runs/", repeat)
        with stage():
            seed_runs(SQL_RUNS - ANCHOR_RUNS)
        settle()
        sql = _best_sql(client, "/runs/", repeat)
        with stage():
            root = seed_runs(runs - SQL_RUNS, lineage=LINEAGE)
        seeded = time.perf_counter() - started
        settle()
        fork = Run.objects.filter(parent=root).order_by("id").first()
        compare = f"/compare/{root.pk}/{fork.pk}/"
        paths = _paths(compare)
        subjects = _pages(client, paths, repeat)
        plans = {key: page_plans(client, paths[key]) for key in _failing(subjects, anchors)}
        total = Run.objects.count()
        scaled: dict = {}
        if scale:  # at least ``runs``: none seeded when it is no more
            scaled = _scale(client, compare, scale - runs, repeat, stage=stage, settle=settle)
    finally:
        client.logout()  # its session's row
        user.delete()
    return seeded, total, anchors, sql_anchor, sql, subjects, plans, scaled


def _scale(
    client: Client, compare: str, more: int, repeat: int, *, stage: Callable, settle: Callable
) -> dict:
    """``more`` runs of history, older than every run there; the pages measured again, with
    the plans of those over the goal."""
    started = time.perf_counter()
    with stage():
        oldest = Run.objects.aggregate(at=Min("created_at"))["at"] or timezone.now()
        _background(more, 0, before=oldest - timedelta(microseconds=1))
    seeded = time.perf_counter() - started
    settle()
    settled = time.perf_counter() - started - seeded
    paths = _paths(compare)
    pages = _pages(client, paths, repeat)
    return {
        "pages": pages,
        "plans": {key: page_plans(client, paths[key]) for key in failing(pages)},
        "seeded_s": seeded,
        "settled_s": settled,
        "total": Run.objects.count(),
    }


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@contextmanager
def _one_bench() -> Iterator[None]:
    """PostgreSQL: one list bench at a time on a database (a session lock: a killed bench's
    goes with its connection), so none removes another's rows as leftovers."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [_LOCK])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_LOCK])


def remove_seeded() -> tuple[int, int]:
    """Delete every row a list bench seeded (runs marked ``MARK``, their steps, the bench's
    users, their sessions and sign-in logs): what an earlier bench left if it was killed. The numbers of runs
    and of users removed."""
    marked = Run.objects.filter(**{f"provider__{MARK}": "lists"}).values("pk")
    sql, params = marked.query.sql_with_params()
    users = get_user_model().objects.filter(username__startswith=USER_PREFIX)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Node._meta.db_table} WHERE run_id IN ({sql}) OR src_run_id IN ({sql})",
            [*params, *params],
        )
        # One statement: the runs' keys to one another (parent, root, sample) are checked at
        # its end, when none is left.
        cursor.execute(f"DELETE FROM {Run._meta.db_table} WHERE id IN ({sql})", params)
        removed = cursor.rowcount
        ids = {str(pk) for pk in users.values_list("pk", flat=True)}
        if ids:
            _forget_sessions(ids)
            users.delete()
        forget_sign_ins(USER_PREFIX)
    return removed, len(ids)


def _forget_sessions(user_ids: set[str]) -> None:
    """The stored sessions of those users (a killed bench's logged-in client)."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        return
    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.models import Session

    stale = [
        session.pk
        for session in Session.objects.iterator()
        if str(session.get_decoded().get(SESSION_KEY)) in user_ids
    ]
    Session.objects.filter(pk__in=stale).delete()


def _vacuum() -> None:
    """PostgreSQL, outside any transaction: the tables the seeding writes vacuumed (their
    rows marked visible to all, so index-only scans skip the heap) and analysed."""
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {Run._meta.db_table}, {Node._meta.db_table}")


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
