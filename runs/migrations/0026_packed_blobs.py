"""Blob bodies compressed (``PackedText``): the text column becomes bytes, zlib'd when that
makes a body at least an eighth smaller. The bodies are copied into a new column in chunks
(a ``USING body::bytea`` cast would read JSON's backslashes as escapes), then it takes the
old one's name."""

from django.db import migrations, models

import runs.models.blobs

CHUNK = 2000


def _copy(apps, schema_editor, source: str, target: str, convert) -> None:
    Blob = apps.get_model("runs", "Blob")
    last = ""
    while True:
        chunk = list(
            Blob.objects.filter(sha256__gt=last).order_by("sha256").only("sha256", source)[:CHUNK]
        )
        if not chunk:
            return
        for blob in chunk:
            setattr(blob, target, convert(getattr(blob, source)))
        Blob.objects.bulk_update(chunk, [target])
        last = chunk[-1].sha256


def pack_bodies(apps, schema_editor) -> None:
    _copy(apps, schema_editor, "body", "packed", lambda text: text)


def unpack_bodies(apps, schema_editor) -> None:
    _copy(apps, schema_editor, "packed", "body", lambda text: text)


class Migration(migrations.Migration):
    dependencies = [("runs", "0024_blob_reference_indexes")]

    operations = [
        migrations.AddField(
            model_name="blob",
            name="packed",
            field=runs.models.blobs.PackedText(null=True),
        ),
        migrations.AlterField(model_name="blob", name="body", field=models.TextField(null=True)),
        migrations.RunPython(pack_bodies, unpack_bodies, elidable=True),
        migrations.RemoveField(model_name="blob", name="body"),
        migrations.RenameField(model_name="blob", old_name="packed", new_name="body"),
        migrations.AlterField(
            model_name="blob", name="body", field=runs.models.blobs.PackedText()
        ),
    ]
