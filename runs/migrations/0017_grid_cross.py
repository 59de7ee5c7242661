"""Issue 17 item 6: a grid crossing two fields."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0016_batches"),
    ]

    operations = []
