"""Issue 19: indexes for the orderings every list reads a page of, and the runs search through
an index (SQLite FTS5 with the trigram tokenizer, PostgreSQL pg_trgm): runs.models.search."""

from django.conf import settings
from django.db import migrations, models


def install_search(apps, schema_editor):
    from runs.models import search

    search.install(schema_editor.connection)


def uninstall_search(apps, schema_editor):
    from runs.models import search

    search.uninstall(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0018_imported_runs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="run",
            index=models.Index(fields=["-created_at", "-id"], name="run_recent"),
        ),
        migrations.AddIndex(
            model_name="run",
            index=models.Index(
                condition=models.Q(("parent__isnull", True)),
                fields=["-created_at", "-id"],
                name="run_roots_recent",
            ),
        ),
        migrations.AddIndex(
            model_name="run",
            index=models.Index(fields=["parent", "-created_at", "-id"], name="run_forks_recent"),
        ),
        migrations.AddIndex(
            model_name="run",
            index=models.Index(fields=["root", "-created_at", "-id"], name="run_lineage_recent"),
        ),
        migrations.RunPython(install_search, uninstall_search),
    ]
