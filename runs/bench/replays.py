"""The figures of ``rewind_bench`` (issue 10): each measured beside its anchor in the same
process, reported as a ratio with its goal and PASS/FAIL — never an absolute time (machines
are noisy and shared). Timings run without tracing; memory is measured in a separate pass.
"""

from __future__ import annotations

import json
import math
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from burr.core import ApplicationBuilder
from burr.core.persistence import SQLLitePersister
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.bench.measure import best_time, figure
from runs.engine.analysis.diff import diff_values
from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.lib.hashing import canonical_json
from runs.models import Blob, BurrState, Edge, Node, Run

# -- anchors ----------------------------------------------------------------------------------


def burr_step_seconds(app: BurrApp, *, tuned: bool, repeat: int) -> float:
    """Seconds per step of a registered Burr app (the ``loop`` app, found by name) run by bare
    Burr from its own graph, initial state and entrypoint, persisting every step with its
    ``SQLitePersister``: the same actions and the same HTTP call per step as the replay it is
    the anchor of. ``tuned`` gives the connection the pragmas Rewind's SQLite uses (WAL,
    synchronous NORMAL)."""

    def once() -> int:
        with tempfile.TemporaryDirectory() as folder:
            db = sqlite3.connect(Path(folder) / "burr.db", check_same_thread=False)
            if tuned:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            persister = SQLLitePersister(db_path="", connection=db)
            persister.initialize()
            bare = (
                ApplicationBuilder()
                .with_graph(app.graph)
                .with_state(**app.state)
                .with_entrypoint(app.entrypoint)
                .with_state_persister(persister)
                .with_identifiers(app_id="bench")
                .build()
            )
            taken = 0
            while bare.has_next_action():
                bare.step()
                taken += 1
            db.close()
            return taken

    seconds, taken = best_time(once, repeat)
    return seconds / taken


def plain_diff(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """The anchor of the diff figure: a plain recursive diff that skips equal subtrees."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in a.keys() | b.keys():
            out.extend(plain_diff(a.get(key), b.get(key), f"{path}.{key}"))
        return out
    return [(path, a, b)]


def leaf_types(value: Any) -> Any:
    """The shape of ``value`` with every leaf replaced by its type (and a float's sign)."""
    if isinstance(value, dict):
        return {key: leaf_types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [leaf_types(item) for item in value]
    if isinstance(value, float):
        return (float, math.copysign(1.0, value))
    return type(value)


def strict_plain_diff(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """The same plain diff made strict the obvious way, as canonical JSON demands (1, 1.0
    and true differ): a subtree is skipped when it is ``==`` and its leaves' types match."""
    if a == b and leaf_types(a) == leaf_types(b):
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in a.keys() | b.keys():
            out.extend(strict_plain_diff(a.get(key), b.get(key), f"{path}.{key}"))
        return out
    return [(path, a, b)]


def wide_state(leaves: int, changed: int) -> dict[str, Any]:
    groups = max(1, leaves // 100)
    state = {f"g{g}": {f"k{k}": g * 100 + k for k in range(100)} for g in range(groups)}
    if changed:
        state["g0"]["k0"] = -1
    return state


# -- the figures ----------------------------------------------------------------------------


def replay_figures(source: Run, replay_once: Callable[[], Run], repeat: int) -> list[dict]:
    """A cached replay of the ``loop`` app per step against bare Burr running it, and the SQL
    statements and commits of each cached step. Time per step is the whole replay (creating
    it, loading its source, finishing it) over its steps; statements are counted from the
    first step's to the last step's, the fixed rest reported beside them."""
    steps = source.nodes.count()
    app = get_pipeline(source.pipeline)
    if not isinstance(app, BurrApp):
        raise TypeError(f"the replay figures time a Burr app; {source.pipeline!r} is declared")
    replay_s, _ = best_time(replay_once, repeat)
    per_step = replay_s / steps
    with CaptureQueriesContext(connection) as queries:
        counted = replay_once()
    path = step_statements([q["sql"] for q in queries.captured_queries])
    written = counted.nodes.count()
    return [
        figure(
            "cached replay per step ÷ bare Burr step (SQLitePersister, WAL/NORMAL)",
            per_step,
            burr_step_seconds(app, tuned=True, repeat=repeat),
            3,
        ),
        figure(
            "cached replay per step ÷ bare Burr step (SQLitePersister, default pragmas)",
            per_step,
            burr_step_seconds(app, tuned=False, repeat=repeat),
            1,
        ),
        figure("SQL statements per cached step", path["statements"] / written, None, 3, unit=""),
        figure("commits per cached step", path["commits"] / written, None, 1, unit=""),
        {
            "figure": "SQL statements per replay outside its steps (fixed)",
            "value": path["fixed"],
            "pass": None,
            "note": f"{path['fixed']} for the whole replay of {written} steps: create, claim, "
            "load the source and its pins, count hits, finish",
        },
    ]


# -- a whole replay of the demo (issue 19) ------------------------------------------------------

WHOLE_REPLAY_GOALS = {False: 1.5, True: 5.0}  # ÷ bare Burr: its default pragmas, WAL/NORMAL
STATEMENTS_PER_STEP, FIXED_STATEMENTS, REPLAY_COMMITS = 3, 8, 3


def bare_burr_app_seconds(source: Run, *, tuned: bool, repeat: int) -> float:
    """Seconds bare Burr takes to run ``source``'s actions once with its ``SQLitePersister``
    (``bare_burr_app``), the best of ``repeat``."""
    with bare_burr_app(source, tuned=tuned) as once:
        seconds, _ = best_time(once, repeat)
    return seconds


@contextmanager
def bare_burr_app(source: Run, *, tuned: bool) -> Iterator[Callable[[], None]]:
    """One run of ``source``'s actions by bare Burr with its ``SQLitePersister``, the app
    rebuilt each time the way a program that runs it once does: connect to the database file
    (made beforehand, in a temporary folder that lives as long as the context), initialise the
    persister, build the graph and the app, step it to the end, close. Each action writes the
    value the source's step wrote, so the states Burr serialises and persists are the
    replay's. ``tuned``: the pragmas Rewind's SQLite uses (WAL, synchronous NORMAL); else
    Burr's defaults."""
    from burr.core import State, action, default
    from burr.core.graph import GraphBuilder

    from runs.engine.apps.state import restored_state

    steps = list(source.nodes.order_by("sequence_id").values_list("name", "output_blob__body"))

    def writer(name: str, value: Any) -> Any:
        @action(reads=[], writes=[name])
        def write(state: State) -> State:
            return state.update(**{name: value})

        return write

    outputs = [(name, json.loads(body) if body else None) for name, body in steps]
    names = [name for name, _ in outputs]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "burr.db"
        made = sqlite3.connect(path)
        if tuned:
            made.execute("PRAGMA journal_mode=WAL")  # kept by the file
        SQLLitePersister(db_path="", connection=made).initialize()
        made.close()
        runs = iter(range(10**9))

        def once() -> None:
            db = sqlite3.connect(path, check_same_thread=False)
            if tuned:
                db.execute("PRAGMA synchronous=NORMAL")
            persister = SQLLitePersister(db_path="", connection=db)
            persister.initialize()
            graph = (
                GraphBuilder()
                .with_actions(**{name: writer(name, value) for name, value in outputs})
                .with_transitions(
                    *[(a, b, default) for a, b in zip(names, names[1:], strict=False)]
                )
                .build()
            )
            app = (
                ApplicationBuilder()
                .with_graph(graph)
                .with_state(**restored_state(source.inputs or {}))
                .with_entrypoint(names[0])
                .with_state_persister(persister)
                .with_identifiers(app_id=f"bench-{next(runs)}")
                .build()
            )
            while app.has_next_action():
                app.step()
            db.close()

        yield once


class Statements:
    """Every statement a connection sends while it is installed (``with Statements() as s``),
    and the transaction it belongs to: ``data`` (statements that are not transaction
    control), ``transactions`` (explicit ones: BEGIN … COMMIT), ``commits`` (those, plus each
    write sent outside a transaction, which commits by itself)."""

    CONTROL = ("BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK", "COMMIT")
    WRITES = ("INSERT", "UPDATE", "DELETE")

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []  # (sql, the outermost atomic block or None)
        self.seconds = 0.0  # spent in the database driver's execute, all statements together

    def __call__(self, execute, sql, params, many, context):  # noqa: ANN001 — Django's
        conn = context["connection"]
        self.sent.append((sql, conn.atomic_blocks[0] if conn.in_atomic_block else None))
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started

    def __enter__(self) -> Statements:
        connection.execute_wrappers.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        connection.execute_wrappers.remove(self)

    @property
    def data(self) -> list[str]:
        return [sql for sql, _ in self.sent if not sql.lstrip().upper().startswith(self.CONTROL)]

    @property
    def transactions(self) -> int:
        blocks: list[Any] = []
        for _, block in self.sent:
            if block is not None and not any(block is seen for seen in blocks):
                blocks.append(block)
        return len(blocks)

    @property
    def commits(self) -> int:
        alone = [
            sql
            for sql, block in self.sent
            if block is None and sql.lstrip().upper().startswith(self.WRITES)
        ]
        return self.transactions + len(alone)

    @property
    def statements(self) -> int:
        """Data statements and the BEGIN and COMMIT of each transaction."""
        return len(self.data) + 2 * self.transactions


def whole_replay_figures(source: Run, repeat: int) -> list[dict]:
    """The demo's cached replay whole — created, executed, judged — against bare Burr running
    the same steps' actions (``bare_burr_app_seconds``), and the statements and commits it
    takes: what a person's "replay this run" costs beside what Burr alone would."""
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.replays import ReplayVerdict, create_replay, replay_verdict

    def whole() -> ReplayVerdict:
        return replay_verdict(source, execute_run(create_replay(source).pk))

    verdict = whole()
    if not verdict.identical:
        raise RuntimeError(f"the replay of run {source.pk} is {verdict.verdict}: {verdict}")
    seconds, _ = best_time(whole, repeat)
    with Statements() as sent:
        whole()
    split = _where_the_time_goes(whole, repeat)
    steps = verdict.nodes
    name = f"whole cached replay of the demo's {steps}-step run (create, execute, verdict)"
    figures = [
        figure(
            f"{name} ÷ bare Burr running its {steps} actions with SQLitePersister, app rebuilt "
            f"each time ({'WAL/NORMAL' if tuned else 'default pragmas'})",
            seconds,
            bare_burr_app_seconds(source, tuned=tuned, repeat=repeat),
            WHOLE_REPLAY_GOALS[tuned],
        )
        for tuned in (False, True)
    ]
    for row in figures:
        row["note"] = split
    budget = STATEMENTS_PER_STEP * steps + FIXED_STATEMENTS
    return [
        *figures,
        {
            **figure(
                f"SQL statements for that whole replay ({steps} steps)",
                sent.statements,
                None,
                budget,
                unit="",
            ),  # fmt: skip
            "note": f"{len(sent.data)} data, {2 * sent.transactions} BEGIN/COMMIT; goal "
            f"{STATEMENTS_PER_STEP} per step + {FIXED_STATEMENTS} fixed",
        },
        figure("commits for that whole replay", sent.commits, None, REPLAY_COMMITS, unit=""),
    ]


def _where_the_time_goes(whole: Callable[[], Any], repeat: int) -> str:
    """The quickest of a few whole replays split into the time its statements took in the
    database driver (the round trips: what PostgreSQL adds) and the rest (Python: Burr's step
    loop and Rewind's recording, the same on every database)."""
    tries = []
    for _ in range(max(3, repeat)):
        with Statements() as sent:
            started = time.perf_counter()
            whole()
            tries.append((time.perf_counter() - started, sent.seconds, len(sent.sent)))
    total, sql, count = min(tries)
    return (
        f"where the time goes ({connection.vendor}, the quickest of {len(tries)}): "
        f"{total * 1000:.1f} ms, of which {sql * 1000:.1f} ms in the driver for {count} "
        f"statements and {(total - sql) * 1000:.1f} ms in Python (Burr's step loop, Rewind's "
        f"recording and verdict)"
    )


def _opens(text: str) -> bool:
    return text.startswith(("BEGIN", "SAVEPOINT"))


def _closes(text: str) -> bool:
    # A step's transaction inside an outer one (the test suite's) is a savepoint.
    return text == "COMMIT" or text.startswith("RELEASE SAVEPOINT")


def step_statements(sql: list[str]) -> dict[str, int]:
    """Statements (transaction control aside) and commits from the first step's transaction
    to the last one's — each step writes a state row — and the statements outside that span."""
    writes = [i for i, text in enumerate(sql) if text.startswith('INSERT INTO "runs_burrstate"')]
    if not writes:
        return {"statements": 0, "commits": 0, "fixed": len(sql)}
    first = max((i for i in range(writes[0]) if _opens(sql[i])), default=writes[0])
    last = next((i for i in range(writes[-1], len(sql)) if _closes(sql[i])), len(sql) - 1)
    span = sql[first : last + 1]
    control = [t for t in span if _opens(t) or _closes(t) or t.startswith("ROLLBACK")]
    return {
        "statements": len(span) - len(control),
        "commits": sum(_closes(t) for t in span),
        "fixed": len(sql) - len(span),
    }


def bytes_figure(source: Run, replay_once: Callable[[], Run]) -> dict:
    """What an unchanged replay adds to the database against what its source holds: rows
    as stored, plus the blobs the replay had to add (measured across it)."""
    blobs_before = blob_bytes()
    replay = replay_once()
    added = row_bytes(replay) + blob_bytes() - blobs_before
    return figure(
        "bytes added by an unchanged replay ÷ bytes of its parent",
        added,
        row_bytes(source) + referenced_blob_bytes(source),
        0.1,
    )


def diff_figures(leaves: int, repeat: int) -> list[dict]:
    """Rewind's diff against the issue's anchor, a plain diff that skips ``==`` subtrees —
    which would miss 1 → 1.0 — and against that diff made strict, which Rewind's must be."""
    a, b = wide_state(leaves, 0), wide_state(leaves, 1)
    ours, _ = best_time(lambda: diff_values(a, b), repeat)
    anchor, _ = best_time(lambda: plain_diff(a, b), repeat)
    strict, _ = best_time(lambda: strict_plain_diff(a, b), repeat)
    name = f"diff of two {leaves}-leaf states, one leaf apart"
    return [
        figure(f"{name} ÷ plain diff skipping == subtrees", ours, anchor, 1.5),
        figure(f"{name} ÷ the same plain diff made strict", ours, strict, 1.5),
    ]


def _stored_size(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, (dict, list)):
        return len(canonical_json(value).encode())
    return len(str(value).encode())


def _rows_size(rows: Any) -> int:
    fields = [f.attname for f in rows.model._meta.concrete_fields]
    return sum(
        _stored_size(v) for row in rows.select_related(None).values_list(*fields) for v in row
    )


def row_bytes(run: Run) -> int:
    """The bytes of a run's own rows — steps, edges, state rows — column by column as stored
    (JSON as canonical text); the blobs they refer to are not counted here."""
    return (
        _rows_size(Node.objects.filter(run=run))
        + _rows_size(Edge.objects.filter(run=run))
        + _rows_size(BurrState.objects.filter(app_id=str(run.pk)))
    )


def _blobs_size(blobs: Any) -> int:
    """The blobs' hashes and bodies, a body as its text (as ``row_bytes`` counts a row's
    JSON): what a replay shares rather than copies, however compressed it is on disk."""
    return sum(64 + len(body.encode()) for body in blobs.values_list("body", flat=True))


def blob_bytes() -> int:
    """Every blob stored: its hash and its body."""
    return _blobs_size(Blob.objects.all())


def referenced_blob_bytes(run: Run) -> int:
    """The blobs a run's rows refer to, each counted once."""
    ids = set(BurrState.objects.filter(app_id=str(run.pk)).values_list("state_blob_id", flat=True))
    for values in Node.objects.filter(run=run).values_list(
        "inputs_blob_id", "output_blob_id", "prompt_blob_id"
    ):
        ids.update(v for v in values if v)
    return _blobs_size(Blob.objects.filter(pk__in=ids))


# -- the noise rule (issue 17) ---------------------------------------------------------------
