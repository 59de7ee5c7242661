"""The outcomes a person adds on the dashboard (issue 17, item 1): ``Outcome``."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Outcome(models.Model):
    """An outcome a person added on the dashboard: a named leaf of a step's output or of the
    final state, with an optional check (runs.engine.analysis.outcomes, which parses and
    evaluates it; declarations in code and in REWIND_OUTCOMES win over a row of the same name).
    Outcomes are computed when a run is shown, never stored per run: the values are there."""

    class CheckKind(models.TextChoices):
        NONE = "", "no check"
        EQUALS = "equals", "equals"
        ONE_OF = "one_of", "one of"
        CONTAINS = "contains", "contains"
        REGEX = "regex", "matches regex"
        BETWEEN = "between", "between (numbers)"
        JSON_SCHEMA = "json_schema", "JSON schema"

    pipeline = models.CharField(max_length=100)
    name = models.CharField(max_length=60)
    path = models.CharField(max_length=500)
    check_kind = models.CharField(max_length=12, choices=CheckKind.choices, blank=True)
    check_argument = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pipeline", "name"]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "name"], name="outcome_unique_name"),
        ]

    def __str__(self) -> str:
        return f"outcome {self.name} of {self.pipeline} ({self.path})"
