"""Issue 17 item 2: batch counterfactuals."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0015_outcomes"),
    ]

    operations = []
