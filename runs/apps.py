from __future__ import annotations

from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "runs"
    verbose_name = "Rewind runs"
    default_auto_field = "django.db.models.BigAutoField"
