"""``rewind_bench``'s storage figures (issue 33): what a recorded run costs in the database, and
how the database grows over 10,000 recorded runs with and without ``rewind_prune``.

Size is the database's own, never a sum of values: on SQLite the pages in use
(``(page_count - freelist_count) * page_size``, no VACUUM: pages a delete freed are reused
before the file grows), on PostgreSQL ``pg_total_relation_size`` (heap, TOAST, indexes) of every
``runs_*`` table. PostgreSQL's tables are compacted (``VACUUM FULL``) before a measurement
starts, so the rows measured land in new pages rather than in free space earlier benches left:
run the bench on a scratch database.

**Per run** (``per_run_figures``): the growth across recording N runs, ÷ N.

- the ``nine`` app (nine actions, one openai chat call each, Rewind's simulator on loopback in a
  process of its own, as ``recording``) recorded with ``rewind_hooks``, ÷ the bytes Burr's
  ``LocalTrackingClient`` writes for the same program (every file of its storage folder:
  ``log.jsonl``, ``graph.json``, ``metadata.json``); each run's nine prompts carry a token of its
  own, so no two runs make the same call (as a program's runs on different inputs). Goal ≤ 1×.
- the demo ``research`` pipeline, each run a new question (every call misses the cache, as the
  bench's cold run): reported (no tracker anchor: it is not a plain Burr program).

**Growth** (``growth_figure``): 10,000 runs recorded over 100 simulated days, 100 a day, once
without pruning and once with ``rewind_prune --older-than 30`` (the engine's ``plan_prune`` and
``prune``) at the end of every day; the size is read at the end of every day. A day is 40
recorded ``research`` runs on new questions and 20 lineages of three (a recorded run, a fork of
it at ``analyse`` with a new ``cost_scale``, an unchanged replay of it). Executing 10,000 runs
would take 5–6 minutes a series here (a recorded run or a fork takes ~40 ms on SQLite, a replay
~12 ms; the figure's note gives the measured times), so *one* such day is executed for real
(the template, kept out of both series' sizes) and each simulated day is a copy of its rows —
runs, steps, edges, Burr states, cache entries, blobs — with what is its own made its own: a
blob or a cache entry only one template lineage refers to is copied with the same body under a
new key (the sha256 of its old key and the day, not of the body: a new question's values are
new values of the same size), one that several lineages share (a tool's answer over the same data, the constant parts of a
state) is shared by the copies too, as it would be by new runs. Every timestamp of a copy is
moved to its day (as the retention tests' ``age`` does). The prune is the engine's, its plan
narrowed to the bench's own lineages (nothing else in the database is ever removed); on
PostgreSQL a plain ``VACUUM`` of the runs tables follows each prune, as autovacuum would in a
day (it is off on some installations, this machine's included). The prunes run as a user's
do, the foreign keys checked: every blob deleted is looked up in the four indexed columns that
may name it (migration 0024; before it, each scanned ``runs_node`` and ``runs_burrstate`` and
a day's prune at 3,000 kept runs took about a minute). Each day's prune is timed: the row gives
the mean and the slowest, and their blobs.

The figure: the size after 10,000 runs with daily pruning ÷ the size, without pruning, of as
many runs as the pruning kept (the runs inside the retention window: ``--older-than 30`` at 100
runs a day keeps 3,000) — goal ≤ 1.2×. A prune that leaves nothing behind and a database that
reuses what it frees stay near 1×: the 20 % is for one day's freed space waiting for the next
day's rows (1/30) and the slack of pages and indexes that rows deleted in key order leave.
Beside it: with ÷ without after 10,000 runs, bytes per kept run, the growth from day 60 to day
100 (steady: ~1×) and what is left of the series' rows after a prune of all of them (the
cleanup is itself a prune: blobs and cache entries it left are counted, then deleted).

Seeded runs carry ``MARK`` in ``provider``; a bench killed before its cleanup has its leftovers
pruned by the next one.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from burr.core import ApplicationBuilder
from django.core.management.color import no_style
from django.db import DatabaseError, connection
from django.db.models import Max
from django.utils import timezone

from runs.bench.capture import _served_apart
from runs.bench.lists import MARK
from runs.bench.measure import figure
from runs.bench.recording import _openai_at
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.engine.retention import PruneRequest, plan_prune, prune
from runs.models import Blob, BurrState, Edge, LLMCacheEntry, Node, Prune, Run, ToolCacheEntry

NINE_RUNS = 10
RESEARCH_RUNS = 20
PER_RUN_GOAL = 1.0  # the issue's: no more than the tracker's log
DAYS = 100
LONE = 40  # recorded runs a day with no fork or replay
FORKED = 20  # lineages a day of a recorded run, a fork of it and an unchanged replay of it
RETENTION_DAYS = 30
GROWTH_GOAL = 1.2
SEED = "storage"  # the value of ``MARK`` in a seeded run's provider
DATED = (Run, Node, BurrState, LLMCacheEntry, ToolCacheEntry)  # models with ``created_at``
Say = Callable[[str], Any]


def storage_figures(say: Say | None = None) -> list[dict]:
    say = say or (lambda _: None)
    return [*per_run_figures(), growth_figure(say=say)]


# -- the database's size ------------------------------------------------------------------------


def used_bytes() -> int:
    """The database's bytes in use: SQLite's pages less its free list; PostgreSQL's
    ``pg_total_relation_size`` summed over the ``runs_*`` tables."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            pragma = {}
            for name in ("page_count", "freelist_count", "page_size"):
                cursor.execute(f"PRAGMA {name}")
                pragma[name] = cursor.fetchone()[0]
            return (pragma["page_count"] - pragma["freelist_count"]) * pragma["page_size"]
        cursor.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "WHERE c.relkind IN ('r', 'p') AND c.relname LIKE 'runs\\_%' "
            "AND c.relnamespace = current_schema()::regnamespace"
        )
        return int(cursor.fetchone()[0])


def table_bytes() -> dict[str, int]:
    """Bytes in use by table, its indexes with it (SQLite: ``dbstat``, where SQLite has it;
    PostgreSQL: ``pg_total_relation_size``); empty where neither is to be had."""
    with connection.cursor() as cursor:
        try:
            if connection.vendor == "sqlite":
                cursor.execute(
                    "SELECT s.tbl_name, SUM(d.pgsize) FROM dbstat d "
                    "JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name"
                )
            else:
                cursor.execute(
                    "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                    "WHERE c.relkind IN ('r', 'p') AND c.relname LIKE 'runs\\_%' "
                    "AND c.relnamespace = current_schema()::regnamespace"
                )
        except DatabaseError:
            return {}
        return {name: int(size) for name, size in cursor.fetchall()}


def _growth(work: Callable[[], Any]) -> tuple[int, dict[str, int], float]:
    """What ``work`` adds to the database: (bytes, bytes by table, seconds it took)."""
    _vacuum(full=True)
    before, tables, started = used_bytes(), table_bytes(), time.perf_counter()
    work()
    seconds = time.perf_counter() - started
    after = table_bytes()
    by_table = {t: after[t] - tables.get(t, 0) for t in after if after[t] != tables.get(t, 0)}
    return used_bytes() - before, by_table, seconds


def _where(by_table: dict[str, int], runs: int) -> str:
    top = sorted(by_table.items(), key=lambda item: -item[1])[:5]
    return ", ".join(f"{name} {size / runs / 1000:.1f}" for name, size in top)


def _tables() -> list[str]:
    """The app's tables on PostgreSQL (the runs search index is one of ``runs_run``'s)."""
    return sorted(t for t in connection.introspection.table_names() if t.startswith("runs_"))


def _vacuum(full: bool = False) -> None:
    """PostgreSQL (nothing on SQLite): the runs tables vacuumed — plain, as autovacuum would
    over a day, or ``FULL`` (rewritten compact) before a measurement starts."""
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(connection.ops.quote_name(t) for t in _tables())
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM {'FULL ' if full else ''}{tables}")


# -- per recorded run ---------------------------------------------------------------------------


def per_run_figures() -> list[dict]:
    vendor = connection.vendor
    (rewind, rewind_tables, seconds), tracker = _nine_bytes(NINE_RUNS)
    research, research_tables, research_s = _growth(lambda: _research(RESEARCH_RUNS))
    how = (
        ("pages in use" if vendor == "sqlite" else "pg_total_relation_size of the runs tables")
        + f" before and after ({vendor}"
        + ("; the tables VACUUM FULL first)" if vendor == "postgresql" else ")")
    )
    row = figure(
        f"bytes stored per recorded run ÷ Burr's tracker log for the same run ({vendor})",
        rewind / NINE_RUNS,
        tracker,
        PER_RUN_GOAL,
    )
    row["by_table"] = {t: round(b / NINE_RUNS) for t, b in rewind_tables.items()}
    row["note"] = (
        f"the nine app (9 steps, one openai call each, simulator on loopback), {NINE_RUNS} runs "
        f"with prompts of their own: rewind_hooks {rewind / NINE_RUNS / 1000:.1f} KB a run "
        f"({how}; KB a run by table: {_where(rewind_tables, NINE_RUNS)}), Burr's "
        f"LocalTrackingClient {tracker / 1000:.1f} KB a run (every file it wrote); "
        f"{seconds / NINE_RUNS * 1000:.0f} ms a recorded run"
    )
    research_row = {
        "figure": f"bytes stored per recorded research run ({vendor})",
        "value": round(research / RESEARCH_RUNS),
        "anchor": None,
        "pass": None,
        "by_table": {t: round(b / RESEARCH_RUNS) for t, b in research_tables.items()},
        "note": f"{research / RESEARCH_RUNS / 1000:.1f} KB a run: {RESEARCH_RUNS} runs of the "
        f"demo research pipeline on new questions (8 steps, every call a cache miss), {how}; "
        f"KB a run by table: {_where(research_tables, RESEARCH_RUNS)}; "
        f"{research_s / RESEARCH_RUNS * 1000:.0f} ms a run; reported (not a plain Burr "
        "program: no tracker log to divide by)",
    }
    return [row, research_row]


def _research(count: int) -> None:
    for _ in range(count):
        question = f"Which outreach policy is cheapest per conversion? ({uuid.uuid4().hex})"
        run = execute_run(create_run("research", {"question": question}).pk)
        if run.status != Run.Status.COMPLETED:
            raise RuntimeError(f"bench: run {run.pk} {run.status}: {run.error}")


def _nine(token: str) -> ApplicationBuilder:
    """The nine app with prompts of its own (``token`` in each topic)."""
    from runs.bench.pipelines.nine import STEPS, ask

    names = [f"step{i}" for i in range(1, STEPS + 1)]
    actions = {n: ask.bind(topic=f"topic {i} ({token})") for i, n in enumerate(names)}
    return (
        ApplicationBuilder()
        .with_actions(**actions)
        .with_transitions(*zip(names, names[1:], strict=False))
        .with_state(answers=[])
        .with_entrypoint(names[0])
    )


def _nine_bytes(count: int) -> tuple[tuple[int, dict[str, int], float], float]:
    """What ``count`` runs recorded with ``rewind_hooks`` add (``_growth``), and the bytes
    Burr's tracker writes for a run of the same program."""
    from burr.tracking import LocalTrackingClient

    from runs.engine.execution import writer
    from runs.recording import rewind_hooks

    def record() -> None:
        for _ in range(count):
            app = _nine(uuid.uuid4().hex).with_hooks(*rewind_hooks("nine")).build()
            app.run(halt_after=["step9"])
        writer.shared().close()  # every step committed before the size is read

    with _served_apart() as base, _openai_at(base), tempfile.TemporaryDirectory() as folder:
        try:
            _nine("warm").with_hooks(*rewind_hooks("nine")).build().run(halt_after=["step9"])
            writer.shared().close()
            recorded = _growth(record)
        finally:
            writer.shared().close()
        for _ in range(count):
            tracker = LocalTrackingClient(project="bench", storage_dir=folder)
            _nine(uuid.uuid4().hex).with_tracker(tracker).build().run(halt_after=["step9"])
        written = sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())
    return recorded, written / count


# -- growth over 10,000 runs --------------------------------------------------------------------


@dataclass
class Template:
    """One executed day, as rows: each model's rows (``values()``), which lineage each run is
    in, and the blobs and cache entries only one lineage refers to (copied per copy)."""

    rows: dict[type, list[dict]]
    own_blobs: dict[str, str]  # sha → body
    own_entries: set[str]  # "llm:12", "tool:3"
    started: datetime
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def runs(self) -> int:
        return len(self.rows[Run])


def _fields(model: type) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields]


def _record_day() -> tuple[list[int], dict[str, float]]:
    """The template day, executed: its runs' ids, and the seconds a run of each kind took."""
    times: dict[str, list[float]] = {"recorded run": [], "fork at analyse": [], "replay": []}

    def timed(kind: str, make: Callable[[], Run]) -> Run:
        started = time.perf_counter()
        run = execute_run(make().pk)
        times[kind].append(time.perf_counter() - started)
        if run.status != Run.Status.COMPLETED:
            raise RuntimeError(f"bench: run {run.pk} {run.status}: {run.error}")
        return run

    made: list[int] = []
    for n in range(LONE + FORKED):
        question = f"Which outreach policy is cheapest per conversion? ({uuid.uuid4().hex})"
        root = timed("recorded run", lambda q=question: create_run("research", {"question": q}))
        made.append(root.pk)
        if n < FORKED:
            scale = f"{1.5 + n / 10:g}"
            fork = timed(
                "fork at analyse",
                lambda r=root, v=scale: create_fork(r, "analyse", "args.cost_scale", v),
            )
            replay = timed("replay", lambda r=root: create_replay(r))
            made += [fork.pk, replay.pk]
    for run in Run.objects.filter(pk__in=made):  # marked: a killed bench's leftovers are found
        Run.objects.filter(pk=run.pk).update(provider={**run.provider, MARK: SEED})
    return made, {k: sum(v) / len(v) for k, v in times.items()}


def _load(ids: list[int], seconds: dict[str, float]) -> Template:
    runs = list(Run.objects.filter(pk__in=ids).values(*_fields(Run)))
    lineage = {r["id"]: r["root_id"] or r["id"] for r in runs}
    rows: dict[type, list[dict]] = {Run: runs}
    rows[Node] = list(Node.objects.filter(run_id__in=ids).values(*_fields(Node)))
    rows[Edge] = list(Edge.objects.filter(run_id__in=ids).values(*_fields(Edge)))
    apps = [str(pk) for pk in ids]
    rows[BurrState] = list(BurrState.objects.filter(app_id__in=apps).values(*_fields(BurrState)))
    users: dict[str, set[int]] = {}  # blob or entry → the lineages referring to it
    for step in rows[Node]:
        for ref in (step["inputs_blob_id"], step["output_blob_id"], step["prompt_blob_id"]):
            if ref:
                users.setdefault(ref, set()).add(lineage[step["run_id"]])
        for pin in step["cache_entries"] or []:
            users.setdefault(pin, set()).add(lineage[step["run_id"]])
    for state in rows[BurrState]:
        users.setdefault(state["state_blob_id"], set()).add(lineage[int(state["app_id"])])
    own = {ref for ref, lineages in users.items() if len(lineages) == 1}
    entries = {ref for ref in own if ref.startswith(("llm:", "tool:"))}
    blobs = dict(Blob.objects.filter(pk__in=own - entries).values_list("sha256", "body"))
    for prefix, model in (("llm:", LLMCacheEntry), ("tool:", ToolCacheEntry)):
        pks = [int(e.removeprefix(prefix)) for e in entries if e.startswith(prefix)]
        rows[model] = list(model.objects.filter(pk__in=pks).values(*_fields(model)))
    started = min(r["created_at"] for r in runs)
    return Template(rows, blobs, entries, started, seconds)


@contextmanager
def _dated() -> Iterator[None]:
    """``created_at`` taken as given (not "now") while copies are written."""
    fields = [model._meta.get_field("created_at") for model in DATED]
    saved = [f.auto_now_add for f in fields]
    for f in fields:
        f.auto_now_add = False
    try:
        yield
    finally:
        for f, value in zip(fields, saved, strict=True):
            f.auto_now_add = value


def _next(model: type) -> int:
    return (model.objects.aggregate(top=Max("id"))["top"] or 0) + 1


def _copy_day(t: Template, when: datetime, nonce: str) -> tuple[set[int], list[str], list[int]]:
    """The template's rows once more, dated ``when``: (the copies' lineage roots, the blobs
    and the cache entries (``llm:`` ids as negative numbers, ``tool:`` positive) it made)."""
    shift = when - t.started
    run_ids = dict(zip((r["id"] for r in t.rows[Run]), range(_next(Run), 10**18), strict=False))
    blobs = {sha: hashlib.sha256(f"{sha}/{nonce}".encode()).hexdigest() for sha in t.own_blobs}
    pins: dict[str, str] = {}
    for prefix, model in (("llm:", LLMCacheEntry), ("tool:", ToolCacheEntry)):
        start = _next(model)
        for n, row in enumerate(t.rows[model]):
            pins[f"{prefix}{row['id']}"] = f"{prefix}{start + n}"

    def dated(row: dict, **changes: Any) -> dict:
        row = {k: v + shift if isinstance(v, datetime) else v for k, v in row.items()}
        return {**row, **changes}

    def blob(sha: str | None) -> str | None:
        return blobs.get(sha, sha) if sha else sha

    def run_id(pk: int | None) -> int | None:
        return run_ids.get(pk, pk) if pk else pk

    with _dated():
        Blob.objects.bulk_create(
            [Blob(sha256=blobs[sha], body=body) for sha, body in t.own_blobs.items()],
            batch_size=500,
        )
        for prefix, model in (("llm:", LLMCacheEntry), ("tool:", ToolCacheEntry)):
            model.objects.bulk_create(
                [
                    model(**dated(row, id=int(pins[f"{prefix}{row['id']}"].split(":")[1]),
                                  key=hashlib.sha256(f"{row['key']}/{nonce}".encode()).hexdigest()))
                    for row in t.rows[model]
                ],
                batch_size=500,
            )  # fmt: skip
        Run.objects.bulk_create(
            [
                Run(**dated(r, id=run_ids[r["id"]], root_id=run_id(r["root_id"]),
                            parent_id=run_id(r["parent_id"]), sample_of_id=run_id(r["sample_of_id"]),
                            spawned_by_id=run_id(r["spawned_by_id"])))
                for r in t.rows[Run]
            ],
            batch_size=500,
        )  # fmt: skip
        Node.objects.bulk_create(
            [
                Node(**dated(
                    {k: v for k, v in s.items() if k != "id"}, run_id=run_ids[s["run_id"]],
                    src_run_id=run_id(s["src_run_id"]), inputs_blob_id=blob(s["inputs_blob_id"]),
                    output_blob_id=blob(s["output_blob_id"]), prompt_blob_id=blob(s["prompt_blob_id"]),
                    cache_entries=[pins.get(p, p) for p in s["cache_entries"] or []],
                ))
                for s in t.rows[Node]
            ],
            batch_size=500,
        )  # fmt: skip
        Edge.objects.bulk_create(
            [Edge(**{**e, "id": None, "run_id": run_ids[e["run_id"]]}) for e in t.rows[Edge]],
            batch_size=500,
        )
        BurrState.objects.bulk_create(
            [
                BurrState(**dated({k: v for k, v in s.items() if k != "id"},
                                  app_id=str(run_ids[int(s["app_id"])]),
                                  state_blob_id=blob(s["state_blob_id"])))
                for s in t.rows[BurrState]
            ],
            batch_size=500,
        )  # fmt: skip
    _reset_sequences()
    roots = {run_ids[r["id"]] for r in t.rows[Run] if (r["root_id"] or r["id"]) == r["id"]}
    made = [int(p.split(":")[1]) * (-1 if p.startswith("llm:") else 1) for p in pins.values()]
    return roots, list(blobs.values()), made


def _reset_sequences() -> None:
    """PostgreSQL: the id sequences past the ids the copies were given."""
    statements = connection.ops.sequence_reset_sql(no_style(), [Run, LLMCacheEntry, ToolCacheEntry])
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


def _prune_ours(days: float, now: datetime, ours: set[int]) -> Prune | None:
    """``rewind_prune --older-than days`` as of ``now``, its plan narrowed to the lineages in
    ``ours`` (whole groups of them only): no other run in the database is touched. Its record
    (``Prune``: what it removed)."""
    plan = plan_prune(PruneRequest(days), now=now)
    plan.groups = [g for g in plan.groups if set(g) <= ours]
    plan.batches, plan.grids, plan.kept = [], [], 0
    plan.runs = Run.objects.filter(root_id__in=[r for g in plan.groups for r in g]).count()
    _, record = prune(plan)
    return record


@dataclass
class Series:
    """One pass of 100 days: the size (over the baseline) at the end of each day, the bench's
    runs kept at the end, and what a prune of them all left."""

    pruned: bool
    sizes: list[int] = field(default_factory=list)  # bytes over the baseline, after each day
    kept: int = 0
    seconds: float = 0.0
    prunes: list[tuple[float, int]] = field(default_factory=list)  # each day's: (s, blobs)
    left_bytes: int = 0
    left_blobs: int = 0
    left_entries: int = 0


@dataclass
class Made:
    """What a series wrote: its lineage roots, blobs, cache entries and prune records."""

    roots: set[int] = field(default_factory=set)
    blobs: list[str] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)  # llm: negative, tool: positive
    prunes: list[Prune | None] = field(default_factory=list)


def _series(t: Template, pruned: bool, say: Say) -> Series:
    series, made = Series(pruned), Made()
    _vacuum(full=True)
    baseline, started = used_bytes(), time.perf_counter()
    first = timezone.now() - timedelta(days=DAYS + 1)
    nonce = uuid.uuid4().hex[:12]
    for day in range(DAYS):
        roots, blobs, entries = _copy_day(t, first + timedelta(days=day), f"{nonce}/{day}")
        made.roots |= roots
        made.blobs += blobs
        made.entries += entries
        if pruned:
            now = first + timedelta(days=day, hours=12)
            before = time.perf_counter()
            record = _prune_ours(RETENTION_DAYS, now, made.roots)
            made.prunes.append(record)
            series.prunes.append((time.perf_counter() - before, record.blobs if record else 0))
            _vacuum()
        series.sizes.append(used_bytes() - baseline)
        if day % 10 == 9:
            say(
                f"storage ({'daily prune' if pruned else 'no prune'}): {(day + 1) * t.runs:,} "
                f"runs, {series.sizes[-1] / 1e6:.1f} MB over the baseline"
            )
    series.seconds = time.perf_counter() - started
    series.kept = Run.objects.filter(root_id__in=made.roots).count()
    _cleanup(made, series)
    _vacuum(full=True)
    series.left_bytes = used_bytes() - baseline
    return series


def _cleanup(made: Made, series: Series) -> None:
    """A prune of every lineage of the series (as of now, older than 0 days); then what it
    left of the blobs and cache entries the series made is counted and deleted, and the
    series' prune records."""
    made.prunes.append(_prune_ours(0, timezone.now() + timedelta(seconds=1), made.roots))
    for start in range(0, len(made.blobs), 2000):
        left = Blob.objects.filter(pk__in=made.blobs[start : start + 2000])
        series.left_blobs += left.count()
        left.delete()
    llm = [-pk for pk in made.entries if pk < 0]
    tool = [pk for pk in made.entries if pk > 0]
    for model, pks in ((LLMCacheEntry, llm), (ToolCacheEntry, tool)):
        for start in range(0, len(pks), 2000):
            left = model.objects.filter(pk__in=pks[start : start + 2000])
            series.left_entries += left.count()
            left.delete()
    Prune.objects.filter(pk__in=[p.pk for p in made.prunes if p]).delete()


def _remove_seeded() -> int:
    """The runs an earlier storage bench left (marked ``MARK``: killed before its cleanup),
    pruned; the number of runs removed."""
    marked = Run.objects.filter(**{f"provider__{MARK}": SEED})
    roots = set(marked.values_list("root_id", flat=True)) | set(
        marked.filter(root_id__isnull=True).values_list("pk", flat=True)
    )
    if not roots:
        return 0
    before = Run.objects.count()
    record = _prune_ours(0, timezone.now() + timedelta(seconds=1), roots)
    if record:
        record.delete()
    return before - Run.objects.count()


def _at(sizes: list[int], runs_a_day: int, runs: float) -> float:
    """The size of a series (read after each day) at ``runs`` runs, linearly between days."""
    days = runs / runs_a_day
    low = max(1, min(int(days), len(sizes)))
    high = min(low + 1, len(sizes))
    below, above = sizes[low - 1], sizes[high - 1]
    return below + (above - below) * (days - low) if high > low else float(below)


def growth_figure(say: Say | None = None) -> dict:
    say = say or (lambda _: None)
    vendor = connection.vendor
    removed = _remove_seeded()
    if removed:
        say(f"storage: pruned {removed} run(s) an earlier storage bench left")
    started = time.perf_counter()
    ids, seconds = _record_day()
    template = _load(ids, seconds)
    recorded = time.perf_counter() - started
    try:
        without = _series(template, False, say)
        with_prune = _series(template, True, say)
    finally:
        record = _prune_ours(0, timezone.now() + timedelta(seconds=1), set(ids))
        if record:
            record.delete()
    return _growth_row(vendor, template, recorded, without, with_prune)


def _growth_row(vendor: str, t: Template, recorded: float, without: Series, pruned: Series) -> dict:
    runs = t.runs * DAYS
    anchor = _at(without.sizes, t.runs, pruned.kept)
    end = pruned.sizes[-1]
    row = figure(
        f"storage after {runs:,} recorded runs with a daily rewind_prune --older-than "
        f"{RETENTION_DAYS} ÷ storage of the runs it keeps, unpruned ({vendor})",
        end,
        anchor,
        GROWTH_GOAL,
    )
    row["anchor_is"] = f"the unpruned series at {pruned.kept:,} runs (as many as the prune kept)"
    mid = DAYS * 3 // 5  # well past the retention window: steady from there on
    steady = end / pruned.sizes[mid - 1] if pruned.sizes[mid - 1] else None
    kinds = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in t.seconds.items())
    working = [(s, b) for s, b in pruned.prunes if b]  # the days a prune removed something
    daily = sum(s for s, _ in working) / max(1, len(working))
    slowest = max(working, default=(0.0, 0))
    per_blob = sum(s for s, _ in working) / max(1, sum(b for _, b in working))
    row.update(
        with_over_without=round(end / without.sizes[-1], 4),
        bytes_per_kept_run=round(end / pruned.kept) if pruned.kept else None,
        bytes_per_run_unpruned=round(without.sizes[-1] / runs),
        kept_runs=pruned.kept,
        prune_s={
            "a day's prune (mean of the days it removed runs)": round(daily, 3),
            "the slowest day's": {"s": round(slowest[0], 3), "blobs": slowest[1]},
            "per 1,000 blobs deleted": round(per_blob * 1000, 3),
        },
        steady_growth={f"day {mid} → {DAYS}": round(steady, 4) if steady else None},
        checkpoints=[
            {"runs": (d + 1) * t.runs, "without": without.sizes[d], "with": pruned.sizes[d]}
            for d in range(9, DAYS, 10)
        ],
        left_after_pruning_all={
            name: {"bytes": s.left_bytes, "blobs": s.left_blobs, "cache_entries": s.left_entries}
            for name, s in (("without", without), ("with", pruned))
        },
    )
    row["note"] = (
        f"{DAYS} simulated days of {t.runs} runs ({LONE} recorded research runs on new "
        f"questions, {FORKED} lineages of a recorded run, a fork at analyse and an unchanged "
        f"replay); one such day executed for real ({recorded:.1f} s: {kinds}), each "
        f"simulated day a copy of its rows (blobs and cache entries one lineage "
        f"owns copied under new keys, shared ones shared; timestamps moved to the day); "
        f"prune = plan_prune + prune as of noon each day, narrowed to the bench's lineages"
        + ("; a plain VACUUM of the runs tables after each" if vendor == "postgresql" else "")
        + f". With ÷ without at {runs:,}: {end / without.sizes[-1]:.3f}; "
        f"{end / max(1, pruned.kept) / 1000:.1f} KB a kept run ({pruned.kept:,} kept) vs "
        f"{without.sizes[-1] / runs / 1000:.1f} KB a run unpruned; day {mid} → {DAYS} "
        f"{steady or 0:.3f}×; series {without.seconds:.0f} s / {pruned.seconds:.0f} s. "
        f"A day's prune (foreign keys checked, as a user's) took {daily:.2f} s on average, "
        f"the slowest {slowest[0]:.2f} s for {slowest[1]:,} blobs; "
        f"{per_blob * 1e6:.0f} µs a blob deleted"
    )
    return row
