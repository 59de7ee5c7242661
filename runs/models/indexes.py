"""The indexes of the runs table (imported by runs.models.runs): what each list reads a page of."""

from __future__ import annotations

from django.db import models

RUN_INDEXES = [
    models.Index(fields=["status"]),
    models.Index(fields=["pipeline", "-created_at"]),
    models.Index(fields=["created_by", "created_at"], name="run_user_day"),
    # The orderings every list reads a page of (issue 19): newest runs, newest roots (the runs
    # list's tree), a lineage's newest runs (its latest few, its own page).
    models.Index(fields=["-created_at", "-id"], name="run_recent"),
    # PostgreSQL reads the newest roots from the partial index (``IS NULL`` is no equality to
    # its planner, so the next index would need a sort); SQLite from the next, which also
    # serves a run's newest forks.
    models.Index(
        fields=["-created_at", "-id"],
        condition=models.Q(parent__isnull=True),
        name="run_roots_recent",
    ),
    models.Index(fields=["parent", "-created_at", "-id"], name="run_forks_recent"),
    models.Index(fields=["root", "-created_at", "-id"], name="run_lineage_recent"),
]
