"""Content-addressed storage, step 3 of 3: the inline copies go; every state row has its
snapshot.

First, in the same transaction as the drop, rows a worker still on the previous version wrote
after 0009 get their blobs too, with writers held off until the drop commits — so no value
is lost to the race."""

import importlib

import django.db.models.deletion
from django.db import migrations, models

fill = importlib.import_module("runs.migrations.0009_fill_blobs").fill


def fill_leftovers(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # Check foreign keys now, not at commit: PostgreSQL refuses to alter a table with
            # deferred checks pending. And hold writers off until the columns are gone.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("LOCK TABLE runs_node, runs_burrstate IN SHARE ROW EXCLUSIVE MODE")
    # SQLite: the migration's transaction (BEGIN IMMEDIATE) already holds the write lock.
    fill(apps, schema_editor, leftovers=True)


class Migration(migrations.Migration):
    dependencies = [("runs", "0009_fill_blobs")]

    operations = [
        migrations.RunPython(fill_leftovers, migrations.RunPython.noop),
        # A default first, so that going back can re-add the column to rows that have one.
        migrations.AlterField(
            model_name="burrstate", name="state", field=models.TextField(default="")
        ),
        migrations.RemoveField(model_name="burrstate", name="state"),
        migrations.RemoveField(model_name="node", name="inputs"),
        migrations.RemoveField(model_name="node", name="output"),
        migrations.RemoveField(model_name="node", name="prompt"),
        migrations.AlterField(
            model_name="burrstate",
            name="state_blob",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="runs.blob",
            ),
        ),
    ]
