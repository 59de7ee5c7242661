"""The outcome form of the run page's Outcomes section (``runs.views.outcomes``, rendered by
``runs.pages.outcomes``): an outcome a person adds on the dashboard, parsed by the engine.
"""

from __future__ import annotations

from typing import Any

from django import forms

from runs.engine.analysis.outcomes import Outcome, check_from_text
from runs.engine.analysis.outcomes.declared import DASHBOARD
from runs.engine.errors import OutcomeError
from runs.models import Outcome as OutcomeRow


class OutcomeForm(forms.Form):
    """An outcome added on the dashboard: parsed by the engine (``Outcome``,
    ``check_from_text``), whose message goes next to the field it is about."""

    name = forms.CharField(max_length=60, help_text="e.g. best_group")
    path = forms.CharField(
        max_length=500,
        help_text="step.leaf (the step's last visit; step#2.leaf its 2nd) or state.key",
    )
    check = forms.ChoiceField(choices=OutcomeRow.CheckKind.choices, required=False)
    argument = forms.CharField(
        max_length=4000,
        required=False,
        help_text="equals/contains: a value; one of: A, B, C; regex: a pattern; between: "
        "0..10 (either side blank); JSON schema: the schema",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            check = check_from_text(data.get("check") or "", data.get("argument") or "")
        except OutcomeError as exc:
            self.add_error("argument", str(exc))
            return data
        try:
            data["outcome"] = Outcome(data["name"].strip(), data["path"], check, DASHBOARD)
        except OutcomeError as exc:
            field = "name" if str(exc).startswith("outcome name") else "path"
            self.add_error(field, str(exc))
        return data
