"""Issue 16 item 18: who started a run, and daily budgets."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0013_cancel_and_timeout"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="providersettings",
            name="daily_tokens",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="providersettings",
            name="daily_usd",
            field=models.DecimalField(blank=True, decimal_places=2, max_digits=10, null=True),
        ),
        migrations.AddField(
            model_name="run",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="run",
            name="projected_cost_usd",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=12, null=True),
        ),
        migrations.AddField(
            model_name="run",
            name="projected_tokens",
            field=models.IntegerField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="run",
            index=models.Index(fields=["created_by", "created_at"], name="run_user_day"),
        ),
    ]
