"""Issue 17 item 1: outcomes a user adds on the dashboard."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0014_budgets"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Outcome",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("pipeline", models.CharField(max_length=100)),
                ("name", models.CharField(max_length=60)),
                ("path", models.CharField(max_length=500)),
                (
                    "check_kind",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("", "no check"),
                            ("equals", "equals"),
                            ("one_of", "one of"),
                            ("contains", "contains"),
                            ("regex", "matches regex"),
                            ("between", "between (numbers)"),
                            ("json_schema", "JSON schema"),
                        ],
                        max_length=12,
                    ),
                ),
                ("check_argument", models.JSONField(blank=True, null=True)),
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
            options={
                "ordering": ["pipeline", "name"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("pipeline", "name"), name="outcome_unique_name"
                    )
                ],
            },
        ),
    ]
