from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate

SEARCH_MIGRATION = ("runs", "0019_page_indexes_and_search")


def _repair_search(sender: AppConfig, using: str, **kwargs: Any) -> None:
    """SQLite drops a table's triggers when a migration rebuilds the table: put the runs
    search's back (runs.models.search) once the migration that made them has been applied."""
    from django.db import connections
    from django.db.migrations.recorder import MigrationRecorder

    from runs.models import search

    connection = connections[using]
    if SEARCH_MIGRATION in MigrationRecorder(connection).applied_migrations():
        search.repair(connection)


class RunsConfig(AppConfig):
    name = "runs"
    verbose_name = "Rewind runs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from runs import system_checks  # noqa: F401 — registers the system checks
        from runs.engine.calls import capture

        post_migrate.connect(_repair_search, sender=self)
        # Hermetic from process start: the guard is in place before any registered app's
        # module is imported (a command, a worker, the server, rewind_hooks), so a connection
        # the app opens at import is known, and an SDK imported in an action is patched.
        capture.install_guard()
