"""A step whose error message holds a lone surrogate and a NUL fails as a run, its message kept
with those characters as visible escapes — the run's finish never crashes on them (SQLite
refuses to encode a surrogate, PostgreSQL a NUL)."""

from __future__ import annotations

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Run
from runs.tests.helpers.unstorable_error_apps import APPS


def test_a_step_error_no_database_takes_as_it_is_is_kept_escaped(served_apps):
    served_apps(APPS)
    run = execute_run(create_run("unstorable_error", {}).pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "could not parse \\udcff at byte 3 (\\x00 before it)" in run.error
    node = run.nodes.get(name="parse")
    assert "\\udcff" in node.error and "\x00" not in node.error
