"""What-if grids: ``Grid`` (one fork of a run per value of a field) and its ``GridRow``s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

from runs.models.runs import Run

if TYPE_CHECKING:
    from runs.models.nodes import Node


class GridQuerySet(models.QuerySet):
    def record(
        self,
        source: Run,
        step: Node,
        field: str,
        values: list[str],
        forks: list[Run],
        created_by: object = None,
        *,
        cross_field: str = "",
        cross_values: list[str] | None = None,
        crossed: list[list[Run]] | None = None,
    ) -> Grid:
        """Store a grid over forks already made (one per value, in order); call it in the
        transaction that made them, so a grid never lacks a row.

        A crossed grid (``cross_field``) also has, for each value ``i``, the forks of
        ``forks[i]`` made once per cross value: ``crossed[i][j]`` for ``cross_values[j]``."""
        grid = self.create(
            source=source,
            node=step.name,
            sequence_id=step.sequence_id,
            field=field,
            values=list(values),
            cross_field=cross_field,
            cross_values=list(cross_values or []),
            created_by=created_by,
        )
        rows = [GridRow(grid=grid, position=i, run=fork) for i, fork in enumerate(forks)]
        for i, cells in enumerate(crossed or []):
            rows += [
                GridRow(grid=grid, position=i, cross_position=j, run=cell)
                for j, cell in enumerate(cells)
            ]
        GridRow.objects.bulk_create(rows)
        return grid


class Grid(models.Model):
    """A what-if grid: one fork of ``source`` at one step per value of one field, so a person
    reads side by side which steps each value changes. Its forks are its ``rows``."""

    source = models.ForeignKey(Run, on_delete=models.PROTECT, related_name="grids")
    node = models.CharField(max_length=100)  # the step's name
    sequence_id = models.IntegerField()  # the step of ``source`` every fork re-executes from
    field = models.CharField(max_length=200)
    values = models.JSONField(default=list)  # as typed, one per row, in row order
    # A crossed grid (issue 17, item 6) varies a second field of the same step: each cell
    # (value, cross value) is a fork of the value's fork (a fork changes one field). Blank: a
    # grid over one field.
    cross_field = models.CharField(max_length=200, blank=True, default="")
    cross_values = models.JSONField(default=list, blank=True)  # as typed, in order
    created_at = models.DateTimeField(auto_now_add=True)
    # Null for a grid made on the command line (rewind_grid).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    MAX_VALUES = 50  # forks one grid may make (a crossed grid: values × (1 + cross values))

    objects = GridQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        over = f"{self.field} × {self.cross_field}" if self.cross_field else self.field
        return f"grid {self.pk} over {over} at {self.node} of run {self.source_id}"

    @property
    def crossed(self) -> bool:
        return bool(self.cross_field)

    @staticmethod
    def fork_count(values: int, cross_values: int = 0) -> int:
        """The forks a grid makes: one per value, and per value one per cross value."""
        return values * (1 + cross_values)


class GridRow(models.Model):
    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveIntegerField()  # index into ``grid.values``
    # Index into ``grid.cross_values`` for a crossed cell (a fork of the row at ``position``
    # without one); null for the fork of the value alone.
    cross_position = models.PositiveIntegerField(null=True, blank=True)
    run = models.OneToOneField(Run, on_delete=models.PROTECT, related_name="grid_row")

    class Meta:
        ordering = ["grid_id", "position", models.F("cross_position").asc(nulls_first=True)]
        constraints = [
            # NULLs are distinct in a unique index: one constraint per kind of row.
            models.UniqueConstraint(
                fields=["grid", "position"],
                condition=models.Q(cross_position__isnull=True),
                name="grid_row_unique_position",
            ),
            models.UniqueConstraint(
                fields=["grid", "position", "cross_position"],
                condition=models.Q(cross_position__isnull=False),
                name="grid_row_unique_cell",
            ),
        ]

    def __str__(self) -> str:
        cell = "" if self.cross_position is None else f" × {self.cross_position}"
        return f"row {self.position}{cell} of grid {self.grid_id}: run {self.run_id}"
