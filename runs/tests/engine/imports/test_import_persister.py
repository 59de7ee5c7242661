"""rewind_import --persister (issue 18, item 4): the rows Burr's ``SQLitePersister`` wrote, and the
same rows in PostgreSQL when the suite runs there, read into runs — read-only, idempotent."""

from __future__ import annotations

import gc
import io
import json
import sqlite3

import pytest
from burr.core import ApplicationBuilder, State, action
from burr.core.persistence import SQLitePersister
from django.core.management import CommandError, call_command
from django.db import connection

from runs.engine.errors import InputError
from runs.engine.imports.service import import_persister
from runs.models import BurrState, Node, Run


@action(reads=["count"], writes=["count"])
def counter(state: State) -> State:
    return state.update(count=state["count"] + 1)


@action(reads=["count"], writes=["done"])
def finish(state: State) -> State:
    return state.update(done=f"counted to {state['count']}")


def _run_app(persister: SQLitePersister, app_id: str, upto: int) -> None:
    from burr.core import expr

    app = (
        ApplicationBuilder()
        .with_actions(counter=counter, finish=finish)
        .with_transitions(("counter", "counter", expr(f"count < {upto}")), ("counter", "finish"))
        .with_state(count=0)
        .with_entrypoint("counter")
        .with_state_persister(persister)
        .with_identifiers(app_id=app_id, partition_key="team")
        .build()
    )
    app.run(halt_after=["finish"])


@pytest.fixture
def burr_db(tmp_path):
    path = tmp_path / "burr.sqlite"
    persister = SQLitePersister(db_path=str(path), table_name="burr_state")
    persister.initialize()
    _run_app(persister, "three", 3)
    _run_app(persister, "five", 5)
    persister.cleanup()
    # The apps' copies of the persister hold connections Burr closes in __del__: collect them
    # here, in the thread that opened them (sqlite3 refuses a close from another thread).
    del persister
    gc.collect()
    return path


def test_a_sqlite_persister_database_imports_one_run_per_app(db, burr_db):
    out = io.StringIO()
    call_command("rewind_import", "--persister", f"sqlite:///{burr_db}", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert len(report["imported"]) == 2 and report["errors"] == []
    five = Run.objects.get(imported_from__app_id="five")
    assert five.imported_from == {
        "path": str(burr_db.resolve()),
        "project": "team",
        "app_id": "five",
    }
    steps = list(five.nodes.order_by("sequence_id"))
    assert [n.name for n in steps] == ["counter"] * 5 + ["finish"]
    # No graph: the first step's output is the state it left, each other step's what changed.
    assert [n.output for n in steps[:5]] == [{"count": i} for i in range(1, 6)]
    assert steps[-1].output == {"done": "counted to 5"}
    # Each state row is the persister's row.
    with sqlite3.connect(burr_db) as conn:
        rows = dict(conn.execute(
            "SELECT sequence_id, state FROM burr_state WHERE app_id='five'").fetchall())  # fmt: skip
    mine = {
        r.sequence_id: json.loads(r.state) for r in BurrState.objects.filter(app_id=str(five.pk))
    }
    assert mine == {seq: json.loads(state) for seq, state in rows.items()}
    assert five.status == Run.Status.COMPLETED and five.trajectory_sha256
    # Again: nothing new.
    out = io.StringIO()
    call_command("rewind_import", "--persister", f"sqlite:///{burr_db}", "--json", stdout=out)
    assert json.loads(out.getvalue())["imported"] == []
    assert Node.objects.count() == 4 + 6


def test_persister_errors_are_one_line_and_change_nothing(db, tmp_path, burr_db):
    with pytest.raises(InputError, match="no such SQLite file"):
        import_persister(f"sqlite:///{tmp_path / 'missing.db'}", "burr_state")
    with pytest.raises(InputError, match="not a table name"):
        import_persister(f"sqlite:///{burr_db}", "burr_state; DROP TABLE x")
    with pytest.raises(InputError, match="no such table"):
        import_persister(f"sqlite:///{burr_db}", "other")
    with pytest.raises(InputError, match="give sqlite"):
        import_persister("mysql://x/y", "burr_state")
    with pytest.raises(CommandError, match="--follow watches a tracker directory"):
        call_command("rewind_import", "--persister", f"sqlite:///{burr_db}", "--follow")
    assert Run.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_postgresql_persister_table_imports(burr_db):
    """The rows Burr's PostgreSQLPersister writes (its schema: ``state`` is JSONB), copied from
    the SQLite persister's, in a table of the test database — read through a URL."""
    if connection.vendor != "postgresql":
        pytest.skip("needs the suite on PostgreSQL (CI's second run)")
    from runs.tests.conftest import subprocess_database_url

    with sqlite3.connect(burr_db) as conn:
        rows = conn.execute(
            "SELECT partition_key, app_id, sequence_id, position, status, state FROM burr_state"
        ).fetchall()
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE pg_burr_state (partition_key TEXT DEFAULT '', app_id TEXT NOT NULL, "
            "sequence_id INTEGER NOT NULL, position TEXT NOT NULL, status TEXT NOT NULL, "
            "state JSONB NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
            "PRIMARY KEY (partition_key, app_id, sequence_id, position))"
        )
        cursor.executemany(
            "INSERT INTO pg_burr_state (partition_key, app_id, sequence_id, position, status, "
            "state) VALUES (%s, %s, %s, %s, %s, %s::jsonb)",
            rows,
        )
    try:
        report = import_persister(subprocess_database_url(), "pg_burr_state")
        assert report.errors == [] and len(report.imported) == 2
        three = Run.objects.get(imported_from__app_id="three")
        assert [n.name for n in three.nodes.order_by("sequence_id")] == ["counter"] * 3 + ["finish"]
        assert "@" not in three.imported_from["path"] or ":" not in three.imported_from[
            "path"].split("@")[0].removeprefix("postgresql://")  # fmt: skip
        assert import_persister(subprocess_database_url(), "pg_burr_state").imported == []
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE pg_burr_state")


def test_a_bad_url_is_refused_without_echoing_its_password(db):
    with pytest.raises(InputError) as refused:
        import_persister("mysql://admin:hunter2-SECRET@db.example/burr", "burr_state")
    assert "hunter2" not in str(refused.value) and "mysql://" in str(refused.value)
