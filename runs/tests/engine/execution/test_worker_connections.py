"""A queue worker keeps its database connection from task to task. With Django's default
(``CONN_MAX_AGE`` 0) ``db_worker`` closes it around every task and opens it again — on
SQLite its pragmas and functions, on PostgreSQL a new session — which cost a third of a
cached replay's time in a worker. The workers Rewind starts (``worker_config``) and a
``manage.py db_worker`` started by hand (settings) both keep it, checked before each reuse."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection

from rewind_site.settings import _database
from runs.engine.execution.workers import worker_config
from runs.engine.forking.replays import create_replay
from runs.models import Run
from runs.tasks import enqueue_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_worker_started_by_hand_keeps_its_connection_and_the_dashboard_does_not():
    worker = _database("sqlite:////tmp/x.sqlite3", worker=True)
    dashboard = _database("sqlite:////tmp/x.sqlite3")

    assert (worker["CONN_MAX_AGE"], worker["CONN_HEALTH_CHECKS"]) == (None, True)
    assert (dashboard["CONN_MAX_AGE"], dashboard["CONN_HEALTH_CHECKS"]) == (0, False)


def test_the_workers_rewind_starts_run_every_task_on_one_connection(run_pipeline, monkeypatch):
    source = run_pipeline("research")
    replays = [create_replay(source) for _ in range(3)]
    for replay in replays:
        enqueue_run(replay)
    kept = worker_config().databases["default"]
    for name in ("CONN_MAX_AGE", "CONN_HEALTH_CHECKS"):
        monkeypatch.setitem(connection.settings_dict, name, kept[name])
    connection.close()  # opened again with the worker's settings, as a worker process opens it
    connection.ensure_connection()
    opened = connection.connection

    call_command("db_worker", "--batch", "--interval", "0", "--no-startup-delay", "--no-reload",
                 verbosity=0)  # fmt: skip

    statuses = Run.objects.filter(pk__in=[r.pk for r in replays]).values_list("status", flat=True)
    assert list(statuses) == [Run.Status.COMPLETED] * 3
    assert connection.connection is opened  # never closed and opened again
