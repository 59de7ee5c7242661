"""The what-if grid's forms: the values (and crossed values) of a step's fields, the leaves a grid
shows, the stored grids' page."""

from __future__ import annotations

from typing import Any

from django import forms

from runs.models import Grid


class GridForm(forms.Form):
    """The field to vary (one the step consumes) and its values, one per line; optionally a
    second field of the step and its values, to cross them (a fork per pair)."""

    field = forms.ChoiceField()
    values = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        strip=False,
        help_text=f"one value per line, at most {Grid.MAX_VALUES}; typed like the field "
        "(the same as in the fork editor)",
    )
    cross_field = forms.ChoiceField(required=False, label="Cross with")
    cross_values = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        strip=False,
        required=False,
        help_text="one value per line; every value above is tried with each of these "
        f"(at most {Grid.MAX_VALUES} forks in all: values × (1 + these))",
    )

    def __init__(self, fields: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["field"].choices = [(name, name) for name in fields]
        self.fields["cross_field"].choices = [("", "(nothing: one field)")] + [
            (name, name) for name in fields
        ]

    def clean_values(self) -> list[str]:
        values = _lines(self.cleaned_data["values"])
        if not values:
            raise forms.ValidationError("give at least one value")
        if len(values) > Grid.MAX_VALUES:
            raise forms.ValidationError(f"at most {Grid.MAX_VALUES} values, got {len(values)}")
        return values

    def clean_cross_values(self) -> list[str]:
        return _lines(self.cleaned_data["cross_values"])

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        name, crossed = data.get("cross_field"), data.get("cross_values")
        if name and not crossed and "cross_values" not in self.errors:
            self.add_error("cross_values", f"give the values of {name} to cross with")
        elif crossed and not name:
            self.add_error("cross_field", "choose the field these values are for")
        elif name and name == data.get("field"):
            self.add_error("cross_field", f"cross {name} with another field, not with itself")
        elif name and data.get("values"):
            count = Grid.fork_count(len(data["values"]), len(crossed))
            if count > Grid.MAX_VALUES:
                self.add_error(
                    None,
                    f"{len(data['values'])} × (1 + {len(crossed)}) = {count} forks; a grid "
                    f"makes at most {Grid.MAX_VALUES}",
                )
        return data


class GridViewForm(forms.Form):
    """The grid page's query: the leaves of the final output to show side by side."""

    leaf = forms.MultipleChoiceField(required=False)

    def __init__(self, leaves: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["leaf"].choices = [(path, path) for path in leaves]


class GridListForm(forms.Form):
    page = forms.IntegerField(required=False, min_value=1, max_value=1_000_000)


def _lines(text: str) -> list[str]:
    """One value per non-blank line, as typed; each value once."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    values = [line for line in lines if line.strip()]
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise forms.ValidationError(f"each value once: {', '.join(map(repr, repeated))}")
    return values
