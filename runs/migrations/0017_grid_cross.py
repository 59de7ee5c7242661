"""Issue 17 item 6: a grid crossing two fields.

``Grid.cross_field`` / ``cross_values`` (blank: a grid over one field, as before) and
``GridRow.cross_position`` (null: the fork of a value alone; else the index of the cross value
of a crossed cell). The one unique (grid, position) becomes one per kind of row: NULLs are
distinct in a unique index, so a plain (grid, position, cross_position) would let two rows of
a value alone share a position."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0016_batches"),
    ]

    operations = [
        migrations.AddField(
            model_name="grid",
            name="cross_field",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.AddField(
            model_name="grid",
            name="cross_values",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="gridrow",
            name="cross_position",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AlterModelOptions(
            name="gridrow",
            options={
                "ordering": [
                    "grid_id",
                    "position",
                    models.OrderBy(models.F("cross_position"), nulls_first=True),
                ]
            },
        ),
        migrations.RemoveConstraint(
            model_name="gridrow",
            name="grid_row_unique_position",
        ),
        migrations.AddConstraint(
            model_name="gridrow",
            constraint=models.UniqueConstraint(
                condition=models.Q(("cross_position__isnull", True)),
                fields=("grid", "position"),
                name="grid_row_unique_position",
            ),
        ),
        migrations.AddConstraint(
            model_name="gridrow",
            constraint=models.UniqueConstraint(
                condition=models.Q(("cross_position__isnull", False)),
                fields=("grid", "position", "cross_position"),
                name="grid_row_unique_cell",
            ),
        ),
    ]
