"""Issue 16 item 1: what answered a call is part of its cache identity."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0011_run_network_and_warnings"),
    ]

    operations = []
