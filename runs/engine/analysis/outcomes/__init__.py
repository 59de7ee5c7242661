"""Outcomes: the named results of a run (``analyse.best_group``, ``state.answer``) and their
checks — what a run concluded, shown on every run and compared across runs (batches, bisect).

- ``checks``    ``Check`` (equals, one_of, contains, regex, between, json_schema): parsed once,
                judged on a value; ``check_from_text`` for what a person types
- ``declared``  ``Outcome`` and its path (``step.leaf``, ``step#k.leaf``, ``state.leaf``);
                where outcomes are declared (a ``Pipeline``, ``REWIND_OUTCOMES``) and which wins
- ``values``    ``OutcomeValue``; ``evaluate`` (one run), ``evaluate_runs`` (a page of runs in
                bounded queries), ``outcomes_for`` (declared + the dashboard's rows)

``checks`` and ``declared`` import nothing of the database, so a pipeline module can declare
its outcomes (``runs.pipelines.research``); ``values`` reads ``runs.models`` and the registry.
"""

from runs.engine.analysis.outcomes.checks import (
    Check,
    between,
    check_from_text,
    contains,
    equals,
    json_schema,
    matches,
    one_of,
)
from runs.engine.analysis.outcomes.declared import Outcome, parse_outcome_path

__all__ = [
    "Check",
    "Outcome",
    "between",
    "check_from_text",
    "contains",
    "equals",
    "json_schema",
    "matches",
    "one_of",
    "parse_outcome_path",
]
