"""A child interpreter set up exactly as its parent: the queue workers a batch starts
(``workers.start_worker``), the interpreter a regression batch runs in (``run_sets.fresh``) and
the benchmarks' children read a ``WorkerConfig`` — the settings module, the databases as the
parent uses them now (in a test, the test database), every ``REWIND_*`` setting and the task
backends, and where the parent finds pipelines — and ``set_up`` Django with it before anything
opens a connection. ``child_env`` is the environment such a child needs to import ``runs``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORKER_INTERVAL = "0.05"  # how often an idle batch worker looks for a task


@dataclass(frozen=True)
class WorkerConfig:
    """What a worker needs to act exactly as this process would: the settings module, the
    databases as this process uses them now (in a test, the test database), and every
    ``REWIND_*`` setting and the task backends as they are now."""

    settings_module: str
    databases: dict[str, dict[str, Any]]
    overrides: dict[str, Any]
    quiet: bool  # the command holds logs back: the worker stays silent too
    sys_path: list[str] = field(default_factory=list)  # where this process finds pipelines
    pipelines: list[str] = field(default_factory=list)  # the batch's: loaded before "ready"
    interval: str = WORKER_INTERVAL  # how often the idle worker looks for a task


def worker_config(
    quiet: bool = False, pipelines: list[str] | None = None, interval: str = WORKER_INTERVAL
) -> WorkerConfig:
    from django.conf import settings
    from django.db import connections

    overrides = {
        name: getattr(settings, name)
        for name in dir(settings)
        if name.startswith("REWIND_") or name in ("DEBUG", "TIME_ZONE", "USE_TZ", "TASKS")
    }
    # A worker keeps its connections from task to task, checked before each reuse (as
    # settings.py gives ``manage.py db_worker``): closed and opened again around every task,
    # they cost a third of a cached replay's time there.
    databases = {
        alias: {
            **connections[alias].settings_dict,
            "CONN_MAX_AGE": None,
            "CONN_HEALTH_CHECKS": True,
        }
        for alias in settings.DATABASES
    }
    return WorkerConfig(
        settings_module=os.environ.get("DJANGO_SETTINGS_MODULE") or settings.SETTINGS_MODULE,
        databases=databases,
        overrides=overrides,
        quiet=quiet,
        sys_path=[p for p in sys.path if isinstance(p, str)],
        pipelines=list(pipelines or []),
        interval=interval,
    )


def set_up(config: WorkerConfig) -> None:
    """Django, configured as the parent was, before anything opens a connection."""
    import logging

    os.environ["DJANGO_SETTINGS_MODULE"] = config.settings_module
    from django.conf import settings

    settings.DATABASES = config.databases
    for name, value in config.overrides.items():
        setattr(settings, name, value)
    import django

    django.setup()
    if config.quiet:  # what the parent's QuietLogs does for its own process
        logging.getLogger("burr").setLevel(logging.CRITICAL + 1)
        for name in ("rewind", "django_tasks_db", "django.tasks"):
            held = logging.getLogger(name)
            held.handlers, held.propagate = [logging.NullHandler()], False


def child_env() -> dict[str, str]:
    """This process's environment for a child interpreter that imports ``runs``."""
    root = str(Path(__file__).resolve().parents[3])  # where ``runs`` is importable from
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env
