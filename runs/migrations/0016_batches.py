"""Issue 17 item 2: batch counterfactuals."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0015_outcomes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Batch",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("pipeline", models.CharField(max_length=100)),
                ("selection", models.JSONField(default=dict)),
                ("node", models.CharField(max_length=100)),
                ("field", models.CharField(max_length=200)),
                ("values", models.JSONField(default=list)),
                ("samples", models.PositiveIntegerField(default=0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"ordering": ["-created_at", "-id"]},
        ),
        migrations.CreateModel(
            name="BatchSource",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveIntegerField()),
                ("value_index", models.PositiveIntegerField(default=0)),
                ("samples", models.JSONField(blank=True, default=list)),
                ("error", models.TextField(blank=True)),
                (
                    "batch",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sources",
                        to="runs.batch",
                    ),
                ),
                (
                    "fork",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="batch_source",
                        to="runs.run",
                    ),
                ),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="runs.run",
                    ),
                ),
            ],
            options={
                "ordering": ["batch_id", "position"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("batch", "position"), name="batch_source_unique_position"
                    )
                ],
            },
        ),
    ]
