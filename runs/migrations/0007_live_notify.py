"""Reserved for the run page's live updates (PostgreSQL LISTEN/NOTIFY triggers); nothing yet."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("runs", "0006_samples_and_grids")]

    operations = []
