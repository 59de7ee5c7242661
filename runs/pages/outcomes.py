"""What the run page's Outcomes section and the runs list show of outcomes.

Values are computed when shown (``runs.engine.analysis.outcomes``): on a run page once the run
has finished (an update while it goes on costs no query for them), on the runs list for the
page's runs in a bounded number of queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runs.engine.analysis.outcomes.declared import Outcome
from runs.engine.analysis.outcomes.values import (
    OutcomeValue,
    evaluate,
    evaluate_runs,
    outcomes_for,
)
from runs.forms import OutcomeForm
from runs.models import Run

SOURCES = {
    "pipeline": "declared by the pipeline",
    "settings": "set in REWIND_OUTCOMES",
    "dashboard": "added on the dashboard",
}


@dataclass
class OutcomePanel:
    run: Run
    outcomes: tuple[Outcome, ...]
    values: list[OutcomeValue]  # empty until the run has finished
    form: OutcomeForm = field(default_factory=OutcomeForm)

    @property
    def rows(self) -> list[tuple[Outcome, OutcomeValue | None, str]]:
        """Each outcome with its value (None: the run has not finished) and where it is
        declared."""
        by_name = {v.name: v for v in self.values}
        return [(o, by_name.get(o.name), SOURCES.get(o.source, o.source)) for o in self.outcomes]


def outcome_panel(run: Run, form: OutcomeForm | None = None) -> OutcomePanel:
    """The panel of ``run``: one query for the dashboard's outcomes and, once the run has
    finished, at most three for their values."""
    outcomes = outcomes_for(run.pipeline)
    values = evaluate(run, outcomes=outcomes) if run.is_finished and outcomes else []
    return OutcomePanel(run, outcomes, values, form or OutcomeForm())


def list_outcomes(runs: list[Run]) -> dict[int, list[OutcomeValue]]:
    """The outcomes of the runs of a page of the list that have finished."""
    return evaluate_runs([run for run in runs if run.is_finished])
