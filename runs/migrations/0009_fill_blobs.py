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


def forward(apps, schema_editor):
    Blob = apps.get_model("runs", "Blob")
    Node = apps.get_model("runs", "Node")
    BurrState = apps.get_model("runs", "BurrState")
    for rows in _batches(BurrState.objects.order_by("pk")):
        blobs = {}
        for row in rows:
            blob = blob_of(Blob, row.state)  # stored as canonical JSON already: kept as is
            blobs[blob.sha256] = blob
            row.state_blob_id = blob.sha256
        Blob.objects.bulk_create(blobs.values(), ignore_conflicts=True)
        BurrState.objects.bulk_update(rows, ["state_blob"])
    for rows in _batches(Node.objects.order_by("pk")):
        blobs = {}
        for row in rows:
            for name in NODE_VALUES:
                value = getattr(row, name)
                if value is None:
                    continue
                blob = blob_of(Blob, canonical_json(value))
                blobs[blob.sha256] = blob
                setattr(row, f"{name}_blob_id", blob.sha256)
        Blob.objects.bulk_create(blobs.values(), ignore_conflicts=True)
        Node.objects.bulk_update(rows, [f"{name}_blob" for name in NODE_VALUES])


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
