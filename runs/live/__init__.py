"""The run page's live updates, below the view that streams them: ``changes`` (a run's "last
change" marker and how to wait until it may have changed: LISTEN/NOTIFY on PostgreSQL, a poll
on SQLite) and ``slots`` (how many streams may be open, per user and in all).

May import: ``runs.models`` and Django; never a view, a page or the engine."""
