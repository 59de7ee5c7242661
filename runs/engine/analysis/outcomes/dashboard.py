"""Outcomes a person adds and removes on the dashboard (``runs.models.Outcome`` rows).

An outcome is parsed by the same code as a declared one; a name the pipeline already has —
declared in code or in ``REWIND_OUTCOMES``, or added before — is refused, and a step the
pipeline does not have is refused naming the steps it has.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from runs.engine.analysis.outcomes.declared import DASHBOARD, SETTINGS, Outcome
from runs.engine.analysis.outcomes.values import outcomes_for, pipeline_spec
from runs.engine.errors import OutcomeError, PipelineError
from runs.models import Outcome as OutcomeRow

_WHERE = {
    DASHBOARD: "was added on the dashboard",
    SETTINGS: "is set in REWIND_OUTCOMES",
}


def add_outcome(pipeline: str, outcome: Outcome, user: Any = None) -> OutcomeRow:
    """Keep ``outcome`` (parsed: its path and check are valid) for ``pipeline``."""
    spec = pipeline_spec(pipeline)
    if spec is None:
        raise OutcomeError(f"pipeline {pipeline!r} is not registered here")
    if outcome.parsed.step is not None:
        try:
            spec.node(outcome.parsed.step)
        except PipelineError as exc:
            raise OutcomeError(f"outcome path {outcome.path!r}: {exc}") from None
    for existing in outcomes_for(pipeline):
        if existing.name == outcome.name:
            where = _WHERE.get(existing.source, "is declared by the pipeline's code")
            raise OutcomeError(
                f"{pipeline} already has an outcome {outcome.name!r} (it {where}); pick "
                "another name"
            )
    check = outcome.check
    try:
        with transaction.atomic():
            return OutcomeRow.objects.create(
                pipeline=pipeline,
                name=outcome.name,
                path=outcome.path,
                check_kind=check.kind if check else "",
                check_argument=check.argument if check else None,
                created_by=user if getattr(user, "is_authenticated", False) else None,
            )
    except IntegrityError:  # added at the same moment by someone else
        raise OutcomeError(f"{pipeline} already has an outcome {outcome.name!r}") from None


def remove_outcome(pipeline: str, row_id: int) -> bool:
    """Remove the dashboard's outcome ``row_id`` of ``pipeline``; False if there is none
    (declared outcomes are not rows: they cannot be removed here)."""
    deleted, _ = OutcomeRow.objects.filter(pipeline=pipeline, pk=row_id).delete()
    return bool(deleted)
