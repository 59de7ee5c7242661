"""The settings page's one row: ``ProviderSettings`` (provider defaults, the daily budget)."""

from __future__ import annotations

from django.db import models


class ProviderSettings(models.Model):
    """Provider defaults and the daily budget saved from the settings page; blank provider
    fields fall back to the environment. One row. The API key is never here: it only ever comes from the environment."""

    preset = models.CharField(max_length=20, blank=True)
    base_url = models.CharField(max_length=500, blank=True)
    model = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=150, blank=True)
    # What each non-staff user may spend a day (runs.budgets), in tokens and/or dollars of
    # live LLM calls; null is no limit.
    daily_tokens = models.PositiveIntegerField(null=True, blank=True)
    daily_usd = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)

    class Meta:
        verbose_name = "provider settings"
        verbose_name_plural = "provider settings"

    def __str__(self) -> str:
        return "provider settings"

    @classmethod
    def load(cls) -> ProviderSettings:
        return cls.objects.filter(pk=1).first() or cls(pk=1)
