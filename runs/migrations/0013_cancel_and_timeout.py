"""Issue 16 item 2: cancelled runs and step timeouts."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0012_provider_identity"),
    ]

    operations = []
