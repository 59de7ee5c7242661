"""Issue 17 item 1: outcomes a user adds on the dashboard."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0014_budgets"),
    ]

    operations = []
