"""The stability page's form: how many live samples of a run, from which step."""

from __future__ import annotations

from typing import Any

from django import forms

from runs.engine.analysis.noise import (
    MAX_SAMPLES,
)
from runs.models import Node

DEFAULT_SAMPLES = 5


class SampleForm(forms.Form):
    k = forms.IntegerField(
        min_value=1,
        max_value=MAX_SAMPLES,
        initial=DEFAULT_SAMPLES,
        label="samples",
        help_text=f"1–{MAX_SAMPLES} live replays; each one that reaches an LLM pays its tokens",
    )
    node = forms.ChoiceField(label="from step")

    def __init__(self, nodes: list[Node], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["node"].choices = [
            (str(n.sequence_id), f"{n.name} (step {n.sequence_id})") for n in nodes
        ]
