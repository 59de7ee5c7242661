"""The batch page's forms: the change a batch counterfactual applies (one field of a step, one
value) and to which recorded runs; a regression replay's selection."""

from __future__ import annotations

from typing import Any

from django import forms

from runs.engine.errors import RewindError
from runs.engine.run_sets.requests import parse_where
from runs.models import Batch

MAX_DASHBOARD_SAMPLES = 10


class BatchForm(forms.Form):
    """The change (one field the step consumes, one value) and which runs of the pipeline."""

    field = forms.ChoiceField()
    value = forms.CharField(strip=False, help_text="typed like the field, as in the fork editor")
    where = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="optional, one per line: input.NAME=VALUE (runs whose input NAME is VALUE)",
    )
    samples = forms.IntegerField(
        min_value=0,
        max_value=MAX_DASHBOARD_SAMPLES,
        initial=0,
        help_text="live stability samples per run (they cost tokens): each flip is then "
        "judged beyond or within the run's own noise",
    )

    def __init__(self, fields: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["field"].choices = [(name, name) for name in fields]

    def clean_where(self) -> tuple[tuple[str, str], ...]:
        lines = [line.strip() for line in self.cleaned_data["where"].splitlines() if line.strip()]
        try:
            return tuple(parse_where(line) for line in lines)
        except RewindError as exc:
            raise forms.ValidationError(str(exc).replace("--where", "each line")) from None


class RegressionForm(forms.Form):
    """A regression replay from the dashboard: which recorded runs of the pipeline, how many
    (the newest), and samples per run."""

    where = BatchForm.base_fields["where"]
    limit = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=Batch.MAX_SOURCES,
        help_text="optional: only the newest N matching runs",
    )
    samples = forms.IntegerField(
        min_value=0,
        max_value=MAX_DASHBOARD_SAMPLES,
        initial=0,
        help_text="live re-runs per run with the new code (they cost tokens): a flip the new "
        "code does not repeat is then judged within noise",
    )
    clean_where = BatchForm.clean_where
