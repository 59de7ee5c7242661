"""Crossed forks: two fields of one step changed together (a crossed grid's cell, issue 17
item 6).

A fork changes exactly one field (DESIGN.md, Forking), so a change of two fields F=a and G=b
at step N is a fork of a fork: first the fork of the source at N with F=a (``Crossed.first``,
an ordinary ``Fork``), then the fork of *that* run at N with G=b (``Crossed.second``). A fork
of a fork inherits its ancestors' overrides at the steps it re-executes
(``overrides.effective_overrides``), so the second run re-executes from N with both changes;
it is exactly what ``rewind_fork`` of the first fork with ``--set G=b`` makes.

Both values are checked here, against the source's step, before anything is written: G's
value is typed like the value the step had, which the first fork does not change (it
re-executes N from the same inherited state). The second fork is written right after the
first, in the same transaction, while the first is still queued: executing it reads only
what the first fork copied from the source (the steps before N), never the first fork's own
steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runs.engine.errors import ForkError
from runs.engine.forking import preview
from runs.engine.forking.forks import Fork, make_fork, refuse_other_provider
from runs.engine.forking.overrides import Override, parse_override
from runs.models import Run


@dataclass(frozen=True)
class Crossed:
    """A crossed cell resolved against its source: the first fork (F=a), then G=b at the
    same step of the run that fork makes."""

    first: Fork
    second: Override

    @property
    def source(self) -> Run:
        return self.first.source


def _replaces_output(field: str) -> bool:
    """A field that stands in for what the step produces: the step does not execute."""
    return field == "output" or field.startswith("writes.")


def cross(first: Fork, field: str, value: Any, *, from_text: bool = True) -> Crossed:
    """The cell (``first``'s change, ``field``=``value``): every error before any write.

    Refused: crossing a field with itself (the nearest fork's value would win, so the cell
    would be the second fork alone), and crossing what replaces the step's output with what
    the step reads (the step does not execute, so the other change would be a silent no-op);
    two ``writes.*`` keys of one Burr step cross fine."""
    if first.override is None:
        raise ForkError("a crossed fork starts from a fork with a change")
    if field == first.override.field:
        raise ForkError(f"cross {field} with another field, not with itself")
    if _replaces_output(field) != _replaces_output(first.override.field):
        one, other = sorted((field, first.override.field), key=_replaces_output)
        raise ForkError(
            f"{other} replaces what {first.target.name} produces, so it does not execute and "
            f"a change of {one} would change nothing; cross two inputs of the step instead"
        )
    spec = first.pipeline.node(first.target.name)
    second = parse_override(spec, first.target, field, value, from_text=from_text)
    refuse_other_provider(first, then=second)
    return Crossed(first, second)


def make_crossed(cell: Crossed, parent: Run) -> Run:
    """Write the cell's queued run: a fork of ``parent`` (the run ``make_fork(cell.first)``
    wrote, finished or not) at the same step with the second change."""
    made = Override.from_json(parent.override)
    if parent.parent_id != cell.source.pk or not cell.first.override.same_change(made):
        raise ForkError(f"run {parent.pk} is not the first fork of this crossed cell")
    first = cell.first
    # The provider: the parent's snapshot already carries a switch the first fork asked for.
    return make_fork(
        Fork(
            parent, first.target, cell.second, first.live, first.allow_network, None, first.pipeline
        )
    )


def preview_crossed(cell: Crossed) -> dict[str, Any]:
    """The dirty set of the cell's run, before either fork is made: the source's step with
    both changes (what the second fork will re-execute)."""
    first = cell.first
    return preview.preview(
        first.source,
        first.target,
        first.override,
        first.pipeline,
        live=first.live,
        then=cell.second,
    )
