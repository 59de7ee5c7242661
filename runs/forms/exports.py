"""``?against=PARENT`` of "Export as test"."""

from __future__ import annotations

from django import forms

from runs.models import Run


class ExportForm(forms.Form):
    """``?against=PARENT``: also replay that run and assert the fields the diff changes."""

    against = forms.IntegerField(required=False, min_value=1)

    def clean_against(self) -> Run | None:
        pk = self.cleaned_data["against"]
        if pk is None:
            return None
        try:
            return Run.objects.get(pk=pk)
        except Run.DoesNotExist:
            raise forms.ValidationError(f"no run {pk}") from None
