"""Empty the tables of a transactional test children first, before Django's flush does.

Django's ``flush`` deletes the tables in the order of a Python set, so it changes with the
hash seed. On SQLite, deleting a parent row makes SQLite look for the rows that reference it,
and the blob foreign keys of ``Node`` and ``BurrState`` have no index (on purpose: blobs are
never deleted in use). So a ``DELETE FROM runs_blob`` that comes before those tables are
empty scans them once per blob: a test that left 30,000 blobs and 18,000 steps spent over
15 minutes in that one teardown. Deleting children first makes every check find nothing
at once. PostgreSQL's flush is one ``TRUNCATE`` of every table and needs none of this.
"""

from __future__ import annotations

from django.apps import apps
from django.db import connection, models, transaction


def children_first() -> list[type[models.Model]]:
    """Every table's model, each after every model that references it."""
    ordered: list[type[models.Model]] = []
    seen: set[type[models.Model]] = set()

    def visit(model: type[models.Model]) -> None:
        if model in seen:
            return
        seen.add(model)
        for field in model._meta.get_fields(include_hidden=True):
            if (
                field.auto_created
                and not field.concrete
                and (field.one_to_many or field.one_to_one)
            ):
                visit(field.related_model)
        ordered.append(model)

    for model in apps.get_models(include_auto_created=True):
        if model._meta.managed and not model._meta.proxy:
            visit(model)
    return ordered


def delete_children_first() -> None:
    """Delete every row of every existing table, referencing tables before referenced."""
    existing = set(connection.introspection.table_names())
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        for model in children_first():
            if model._meta.db_table in existing:
                cursor.execute(f"DELETE FROM {quote(model._meta.db_table)}")
