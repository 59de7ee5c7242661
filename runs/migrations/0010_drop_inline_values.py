"""Content-addressed storage, step 3 of 3: the inline copies go; every state row has its
snapshot."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("runs", "0009_fill_blobs")]

    operations = [
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
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="runs.blob"
            ),
        ),
    ]
