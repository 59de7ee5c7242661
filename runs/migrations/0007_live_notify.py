"""Live updates on PostgreSQL: the database notifies the ``rewind_live`` channel (runs/live/changes.py,
``CHANNEL``) with a run's id when one of its steps is written and when the run row changes —
except when only its heartbeat moved, which the page does not show. An event stream
``LISTEN``s and wakes at once instead of polling. The notification is sent at commit, so a
listener that reads the run then sees the new row; it adds no statement to an engine step.

The trigger names no column in its definition (the function reads ``NEW`` as JSON), so later
migrations may alter or drop columns of ``runs_run`` and ``runs_node`` freely. SQLite has no
notifications: there the stream reads a marker (runs/live/changes.py) and this migration does nothing.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE OR REPLACE FUNCTION rewind_live_notify() RETURNS trigger AS $$
    BEGIN
        IF TG_TABLE_NAME = 'runs_node' THEN
            PERFORM pg_notify('rewind_live', NEW.run_id::text);
        ELSIF (to_jsonb(NEW) - 'heartbeat_at') IS DISTINCT FROM (to_jsonb(OLD) - 'heartbeat_at') THEN
            PERFORM pg_notify('rewind_live', NEW.id::text);
        END IF;
        RETURN NULL;
    END;
    $$ LANGUAGE plpgsql
    """,
    "DROP TRIGGER IF EXISTS rewind_live_node ON runs_node",
    """
    CREATE TRIGGER rewind_live_node AFTER INSERT ON runs_node
    FOR EACH ROW EXECUTE FUNCTION rewind_live_notify()
    """,
    "DROP TRIGGER IF EXISTS rewind_live_run ON runs_run",
    """
    CREATE TRIGGER rewind_live_run AFTER UPDATE ON runs_run
    FOR EACH ROW EXECUTE FUNCTION rewind_live_notify()
    """,
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS rewind_live_node ON runs_node",
    "DROP TRIGGER IF EXISTS rewind_live_run ON runs_run",
    "DROP FUNCTION IF EXISTS rewind_live_notify()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return  # SQLite: the event stream polls a marker instead
        for statement in statements:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("runs", "0006_samples_and_grids")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD), elidable=False)]
