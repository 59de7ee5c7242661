"""What-if grids: one fork of a step per value of one field, or, crossed with a second field
of the same step, also one fork of each of those forks per value of the second
(``crossing``). ``rewind_grid`` and the dashboard's "try several values" both resolve a
``GridPlan`` (every value of both fields checked, nothing written) and then ``make_grid``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import ForkError, RewindError
from runs.engine.forking.crossing import Crossed, cross, make_crossed
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.models import Grid, Run


class GridError(ForkError):
    """Values a grid cannot take, each named: ``problems`` is ``[(form field, value,
    reason)]``, the form field ``values`` or ``cross_values``."""

    def __init__(self, problems: list[tuple[str, str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{value!r}: {reason}" for _, value, reason in problems))


@dataclass(frozen=True)
class GridPlan:
    """A grid resolved against its source, nothing written yet."""

    field: str
    values: tuple[str, ...]
    firsts: tuple[Fork, ...]  # one per value
    cross_field: str = ""
    cross_values: tuple[str, ...] = ()
    cells: tuple[tuple[Crossed, ...], ...] = ()  # per value, one per cross value

    @property
    def requests(self) -> list[Fork | Crossed]:
        """Every fork the grid makes, in the order ``make_grid`` returns their runs: each
        value's fork, then its crossed cells."""
        out: list[Fork | Crossed] = []
        for i, first in enumerate(self.firsts):
            out += [first, *(self.cells[i] if self.cells else ())]
        return out


def resolve_grid(
    source: Run,
    node: str,
    field: str,
    values: Sequence[str],
    cross_field: str = "",
    cross_values: Sequence[str] = (),
) -> GridPlan:
    """Check every value of both fields (``GridError`` names each bad one) and the grid's
    size; nothing is written."""
    if bool(cross_field) != bool(cross_values):
        raise ForkError("a crossed grid needs both a second field and its values")
    count = Grid.fork_count(len(values), len(cross_values))
    if count > Grid.MAX_VALUES:
        raise ForkError(
            f"a grid makes at most {Grid.MAX_VALUES} forks; this one would make {count}"
        )
    problems: list[tuple[str, str, str]] = []
    firsts = []
    app = get_pipeline(source.pipeline)  # once for every value's fork
    for value in values:
        try:
            firsts.append(resolve_fork(source, node, field, value, pipeline=app))
        except RewindError as exc:
            problems.append(("values", value, str(exc)))
    cells: list[tuple[Crossed, ...]] = []
    if cross_field and firsts:
        # The second field's values are checked once against the first fork of the grid
        # (the same step of the same source); then each cell is resolved.
        for value in cross_values:
            try:
                cross(firsts[0], cross_field, value)
            except RewindError as exc:
                problems.append(("cross_values", value, str(exc)))
        if not problems:
            cells = [tuple(cross(first, cross_field, v) for v in cross_values) for first in firsts]
    if problems:
        raise GridError(problems)
    return GridPlan(
        field, tuple(values), tuple(firsts), cross_field, tuple(cross_values), tuple(cells)
    )


def make_grid(plan: GridPlan, created_by: Any = None) -> tuple[Grid, list[Run]]:
    """Write every fork (queued) and the grid in one transaction; returns the grid and its
    runs in ``plan.requests`` order. A crossed cell's run is a fork of its value's run."""
    source, target = plan.firsts[0].source, plan.firsts[0].target
    with transaction.atomic():
        made: list[Run] = []
        forks: list[Run] = []
        crossed: list[list[Run]] = []
        for i, first in enumerate(plan.firsts):
            fork = make_fork(first)
            cells = [make_crossed(cell, fork) for cell in (plan.cells[i] if plan.cells else ())]
            forks.append(fork)
            crossed.append(cells)
            made += [fork, *cells]
        grid = Grid.objects.record(
            source,
            target,
            plan.field,
            list(plan.values),
            forks,
            created_by,
            cross_field=plan.cross_field,
            cross_values=list(plan.cross_values),
            crossed=crossed if plan.cross_field else None,
        )
    return grid, made
