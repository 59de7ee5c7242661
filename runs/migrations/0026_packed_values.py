"""Stored values compressed when that pays (``runs.models.packed``): a blob's body, an LLM
cache entry's request and response, a tool cache entry's result. Each becomes a bytes column,
zlib'd when that makes a value at least an eighth smaller. The values are copied into a new
column in chunks (a cast in SQL would read JSON's backslashes as escapes, and jsonb cannot be
cast to bytea), then it takes the old one's name; backwards, the same the other way."""

from django.db import migrations, models

import runs.models.packed

CHUNK = 2000
# (model, field, its field before, its field after)
PACKED = [
    ("blob", "body", models.TextField, runs.models.packed.PackedText),
    ("llmcacheentry", "request", models.JSONField, runs.models.packed.PackedJSON),
    ("llmcacheentry", "response", models.JSONField, runs.models.packed.PackedJSON),
    ("toolcacheentry", "result", models.JSONField, runs.models.packed.PackedJSON),
]


def _copy(apps, model: str, source: str, target: str) -> None:
    Model = apps.get_model("runs", model)
    pk = Model._meta.pk.name
    last = None
    while True:
        rows = Model.objects.order_by(pk).only(pk, source)
        if last is not None:
            rows = rows.filter(**{f"{pk}__gt": last})
        chunk = list(rows[:CHUNK])
        if not chunk:
            return
        for row in chunk:
            setattr(row, target, getattr(row, source))
        Model.objects.bulk_update(chunk, [target])
        last = getattr(chunk[-1], pk)


def pack(apps, schema_editor) -> None:
    for model, name, _, _ in PACKED:
        _copy(apps, model, name, f"packed_{name}")


def unpack(apps, schema_editor) -> None:
    for model, name, _, _ in PACKED:
        _copy(apps, model, f"packed_{name}", name)


class Migration(migrations.Migration):
    dependencies = [("runs", "0024_blob_reference_indexes")]

    operations = [
        *(
            op
            for model, name, old, new in PACKED
            for op in (
                migrations.AddField(model_name=model, name=f"packed_{name}", field=new(null=True)),
                migrations.AlterField(model_name=model, name=name, field=old(null=True)),
            )
        ),
        migrations.RunPython(pack, unpack, elidable=True),
        *(
            op
            for model, name, _, new in PACKED
            for op in (
                migrations.RemoveField(model_name=model, name=name),
                migrations.RenameField(model_name=model, old_name=f"packed_{name}", new_name=name),
                migrations.AlterField(model_name=model, name=name, field=new()),
            )
        ),
    ]
