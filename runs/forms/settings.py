"""The settings page's form (``runs.views.settings``): the provider defaults (a preset or a
base URL, model, temperature) and the daily budget of each non-staff user.

A base URL is checked by the provider's own rules (``runs.engine.providers.config``); a
credential in it is refused and never shown back.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import URLValidator

from runs.engine.forking.overrides import MAX_TEMPERATURE
from runs.engine.providers.client import PRESETS, strip_credentials
from runs.engine.providers.config import ALLOWED_SCHEMES, base_url_warnings


class SettingsForm(forms.Form):
    """The one ``ProviderSettings`` row as a form: a blank provider field falls back to the
    environment, a blank budget is no limit."""

    preset = forms.ChoiceField(
        required=False,
        choices=[("", "from the environment"), ("simulator", "offline simulator")]
        + [(name, name) for name in sorted(PRESETS)]
        + [("custom", "custom base URL")],
    )
    base_url = forms.URLField(
        required=False,
        max_length=500,
        assume_scheme="https",
        validators=[URLValidator(schemes=list(ALLOWED_SCHEMES))],  # http(s) only, never ftp:
    )
    model = forms.CharField(required=False, max_length=200)
    temperature = forms.FloatField(required=False, min_value=0.0, max_value=MAX_TEMPERATURE)
    # The daily budget of each non-staff user (runs.budgets); blank is no limit.
    daily_tokens = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**31 - 1,
        label="Daily tokens per user",
        help_text="blank: no limit",
    )
    daily_usd = forms.DecimalField(
        required=False,
        min_value=0,
        max_digits=10,
        decimal_places=2,
        label="Daily dollars per user",
        help_text="blank: no limit",
    )

    BUDGET_FIELDS = ("daily_tokens", "daily_usd")

    def clean_base_url(self) -> str:
        url = self.cleaned_data["base_url"]
        if url and ("@" in url.split("//", 1)[-1].split("/", 1)[0]):
            raise forms.ValidationError(
                "put no credentials in the URL; the key comes from REWIND_API_KEY"
            )
        self.warnings = base_url_warnings(url) if url else []
        return url

    def full_clean(self) -> None:
        super().full_clean()
        if self.is_bound and "base_url" in self.errors:
            # A refused URL is shown again without its user:password: a secret the form
            # would not store must not travel back in the page either.
            self.data = self.data.copy()
            self.data["base_url"] = strip_credentials(str(self.data.get("base_url", "")))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("preset") == "custom" and not data.get("base_url"):
            self.add_error("base_url", "a custom preset needs a base URL")
        return data
