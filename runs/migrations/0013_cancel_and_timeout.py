"""Issue 16 item 2: cancelled runs and step timeouts.

A run may now be ``cancelled`` (queued or running → cancelled, ``RunQuerySet.cancel``). The
step timeout needs no column: it is a setting (``REWIND_STEP_TIMEOUT``) or the pipeline's own.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0012_provider_identity"),
    ]

    operations = [
        migrations.AlterField(
            model_name="run",
            name="status",
            field=models.CharField(
                choices=[
                    ("queued", "Queued"),
                    ("running", "Running"),
                    ("completed", "Completed"),
                    ("failed", "Failed"),
                    ("interrupted", "Interrupted"),
                    ("cancelled", "Cancelled"),
                ],
                default="queued",
                max_length=12,
            ),
        ),
    ]
