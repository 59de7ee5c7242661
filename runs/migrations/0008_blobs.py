"""Content-addressed storage, step 1 of 3: the ``Blob`` table and the foreign keys that will
replace the inline JSON of Burr state rows and of steps' inputs, outputs and prompts.

Three migrations, because PostgreSQL refuses to alter a table in the transaction that has
just updated rows of it with deferred constraint checks pending: add (0008), fill (0009),
drop (0010). The keys are not indexed: nothing looks a row up by its blob, and blobs are
never deleted, so an index would only cost every step's INSERT."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("runs", "0007_live_notify")]

    operations = [
        migrations.CreateModel(
            name="Blob",
            fields=[
                ("sha256", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("body", models.TextField()),
            ],
        ),
        migrations.AddField(
            model_name="burrstate",
            name="state_blob",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="runs.blob",
            ),
        ),
        *[
            migrations.AddField(
                model_name="node",
                name=f"{name}_blob",
                field=models.ForeignKey(
                    blank=True,
                    db_index=False,
                    null=True,
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="+",
                    to="runs.blob",
                ),
            )
            for name in ("inputs", "output", "prompt")
        ],
    ]
