"""Content-addressed storage, step 2 of 3: every stored state and every step's inputs, output
and prompt move into ``Blob``, once per distinct value. Output hashes, and so trajectory
hashes, are not touched: a blob's key is the sha256 of the same canonical JSON the output hash
is taken over, so a step's ``output_blob`` is its ``output_sha256``. Reversible."""

import hashlib
import json

from django.db import migrations

BATCH = 500
NODE_VALUES = ("inputs", "output", "prompt")


def canonical_json(value):
    # As runs.engine.hashing.canonical_json (a migration keeps its own copy of what it relies on).
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def blob_of(Blob, text):
    return Blob(sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), body=text)


def _batches(queryset):
    batch = []
    for row in queryset.iterator(chunk_size=BATCH):
        batch.append(row)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def fill(apps, schema_editor, *, leftovers=False):
    """Give every state row and step its blobs; ``leftovers``: only those that have none yet
    (rows written by a worker still on the previous version while this ran)."""
    Blob = apps.get_model("runs", "Blob")
    Node = apps.get_model("runs", "Node")
    BurrState = apps.get_model("runs", "BurrState")
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    states = BurrState.objects.order_by("pk").only("pk", "state")
    steps = Node.objects.order_by("pk").only("pk", *NODE_VALUES)
    if leftovers:
        states = states.filter(state_blob__isnull=True)
        steps = steps.filter(
            inputs_blob__isnull=True, output_blob__isnull=True, prompt_blob__isnull=True
        )
    # Plain UPDATEs by primary key: bulk_update's CASE expressions cost ~0.5 ms a row.
    set_state = "UPDATE {} SET {} = %s WHERE {} = %s".format(
        quote(BurrState._meta.db_table), quote("state_blob_id"), quote("id")
    )
    set_values = "UPDATE {} SET {} WHERE {} = %s".format(
        quote(Node._meta.db_table),
        ", ".join(f"{quote(f'{name}_blob_id')} = %s" for name in NODE_VALUES),
        quote("id"),
    )
    for rows in _batches(states):
        blobs, updates = {}, []
        for row in rows:
            blob = blob_of(Blob, row.state)  # stored as canonical JSON already: kept as is
            blobs[blob.sha256] = blob
            updates.append((blob.sha256, row.pk))
        Blob.objects.bulk_create(blobs.values(), ignore_conflicts=True)
        with connection.cursor() as cursor:
            cursor.executemany(set_state, updates)
    for rows in _batches(steps):
        blobs, updates = {}, []
        for row in rows:
            keys = []
            for name in NODE_VALUES:
                value = getattr(row, name)
                if value is None:
                    keys.append(None)
                    continue
                blob = blob_of(Blob, canonical_json(value))
                blobs[blob.sha256] = blob
                keys.append(blob.sha256)
            updates.append((*keys, row.pk))
        Blob.objects.bulk_create(blobs.values(), ignore_conflicts=True)
        with connection.cursor() as cursor:
            cursor.executemany(set_values, updates)


def forward(apps, schema_editor):
    fill(apps, schema_editor)


def backward(apps, schema_editor):
    Blob = apps.get_model("runs", "Blob")
    Node = apps.get_model("runs", "Node")
    BurrState = apps.get_model("runs", "BurrState")

    def bodies(ids):
        return dict(Blob.objects.filter(pk__in=set(ids) - {None}).values_list("pk", "body"))

    for rows in _batches(BurrState.objects.order_by("pk")):
        found = bodies(row.state_blob_id for row in rows)
        for row in rows:
            row.state = found[row.state_blob_id]
        BurrState.objects.bulk_update(rows, ["state"])
    for rows in _batches(Node.objects.order_by("pk")):
        found = bodies(getattr(row, f"{name}_blob_id") for row in rows for name in NODE_VALUES)
        for row in rows:
            for name in NODE_VALUES:
                blob_id = getattr(row, f"{name}_blob_id")
                if blob_id is not None:
                    setattr(row, name, json.loads(found[blob_id]))
                elif name == "inputs":
                    row.inputs = {}
        Node.objects.bulk_update(rows, list(NODE_VALUES))


class Migration(migrations.Migration):
    dependencies = [("runs", "0008_blobs")]

    operations = [migrations.RunPython(forward, backward)]
