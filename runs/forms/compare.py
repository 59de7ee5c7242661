"""The compare page's forms (``runs.views.compare``) and the bisect it starts
(``runs.views.bisect``): two runs picked by id (typed in the picker or ticked in the runs
list), the picker's search as a person types, which leaves to show, and the outcome a bisect
looks for.

A picked run is only parsed here (an id in range); whether it exists is the view's 404.
"""

from __future__ import annotations

from typing import Any

from django import forms

from runs.models.search import RUN_ID


class CompareForm(forms.Form):
    """The compare page's ``?only=different``: show only the leaves that differ."""

    only = forms.ChoiceField(required=False, choices=[("", "all"), ("different", "different")])


MAX_BISECT_BUDGET = 10_000  # forks: the most the bisect page's budget field takes
_BUDGET_ERROR = f"the budget is a whole number of forks from 1 to {MAX_BISECT_BUDGET}"


class BisectForm(forms.Form):
    """The bisect page's query (``?outcome=&budget=&task=``) and the POST that starts it
    (``outcome``, and ``budget`` when the page's field asks to check every step, or every
    pair, a budget left untried)."""

    outcome = forms.CharField(required=False, max_length=60)
    # The most forks to spend (empty: the engine's default_budget).
    budget = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_BISECT_BUDGET,
        error_messages={key: _BUDGET_ERROR for key in ("invalid", "min_value", "max_value")},
    )
    # The queue's id of the bisect's task: a UUID in the database backend, other backends' own.
    task = forms.RegexField(r"\A[A-Za-z0-9_-]{1,64}\Z", required=False)


class RunIdsField(forms.Field):
    """Every value of a repeated query parameter (``?run=3&run=7``) as run ids."""

    widget = forms.MultipleHiddenInput
    MAX_IDS = 100

    def to_python(self, value: Any) -> list[int]:
        values = [item for item in value or [] if str(item).strip()]
        if len(values) > self.MAX_IDS:
            raise forms.ValidationError(f"at most {self.MAX_IDS} runs")
        ids = []
        for item in values:
            try:
                number = int(str(item).strip())
            except ValueError:
                raise forms.ValidationError(f"not a run id: {str(item)[:40]!r}") from None
            if not 1 <= number <= 2**31 - 1:
                raise forms.ValidationError(f"not a run id: {number}")
            ids.append(number)
        return ids


class PickedRunField(forms.Field):
    """A run named in the compare picker's search box by its id ("12", "run 12", "#12")."""

    def to_python(self, value: Any) -> int | None:
        text = str(value or "").strip()
        if not text:
            return None
        match = RUN_ID.match(text)
        number = int(match.group(1)) if match else 0
        if not 1 <= number <= 2**31 - 1:
            raise forms.ValidationError(
                f"not a run id: {text[:40]!r} (type to search, then choose a run)"
            )
        return number


class RunSearchForm(forms.Form):
    """The compare picker's search as a person types in either box (``?a=``, ``?b=``) or
    ``?q=``."""

    q = forms.CharField(required=False, max_length=200)
    a = forms.CharField(required=False, max_length=200)
    b = forms.CharField(required=False, max_length=200)

    def query(self) -> str:
        data = self.cleaned_data
        return (data["q"] or data["a"] or data["b"]).strip()


class ComparePickForm(forms.Form):
    """Two runs to compare: ``a`` and ``b`` (the compare page's picker), or exactly two
    ``run`` checkboxes of the runs list — the older run is A, the newer B."""

    # Typed or chosen in the picker's search box: "12", "run 12" or "#12".
    a = PickedRunField(required=False, label="Run A")
    b = PickedRunField(required=False, label="Run B")
    run = RunIdsField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        a, b, chosen = data.get("a"), data.get("b"), data.get("run") or []
        if a is not None or b is not None:
            if a is None or b is None:
                raise forms.ValidationError("choose both runs, A and B")
        elif len(chosen) == 2:
            a, b = sorted(chosen)
        else:
            raise forms.ValidationError(
                f"select exactly two runs to compare; {len(chosen) or 'none'} "
                f"{'was' if len(chosen) == 1 else 'were'} selected"
            )
        if a == b:
            # A run against itself differs nowhere: the page would say nothing at all.
            raise forms.ValidationError(
                f"run {a} against itself differs nowhere: choose another run for B "
                "(its parent, a fork or a replay of it)"
            )
        data["a"], data["b"] = a, b
        return data
