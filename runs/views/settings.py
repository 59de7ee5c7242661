"""The settings page: the provider defaults and the daily budget (staff change them), what the
signed-in user has spent today, and how much history is kept (the last prunes)."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseForbidden,
)
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from runs.budgets import standing
from runs.engine.providers.config import (
    ProviderConfigError,
    api_key,
    base_url_warnings,
    current_config,
)
from runs.forms import SettingsForm
from runs.models import ProviderSettings, Prune
from runs.views.common import navigate

PRUNES_SHOWN = 5  # the last prunes, on the settings page


@require_http_methods(["GET", "POST"])
def provider_settings(request: HttpRequest) -> HttpResponse:
    saved = ProviderSettings.load()
    if request.method == "POST":
        if not request.user.is_staff:
            return HttpResponseForbidden("only staff may change settings")
        form = SettingsForm(request.POST)
        if form.is_valid():
            for name in ("preset", "base_url", "model", "temperature", *form.BUDGET_FIELDS):
                setattr(saved, name, form.cleaned_data[name])
            saved.updated_by = request.user.get_username()
            saved.save()
            return navigate(request, reverse("settings"))
        status = 400
    else:
        form = SettingsForm(
            initial={
                "preset": saved.preset,
                "base_url": saved.base_url,
                "model": saved.model,
                "temperature": saved.temperature,
                "daily_tokens": saved.daily_tokens,
                "daily_usd": saved.daily_usd,
            }
        )
        status = 200
    try:
        config, config_error = current_config(), None
    except ProviderConfigError as exc:
        config, config_error = None, str(exc)
    # Staff only: what looks wrong about the URL in force (a link-local address, a database's
    # port on loopback) — allowed, but said.
    url_warnings = base_url_warnings(config.base_url) if config and request.user.is_staff else []
    context = {
        "form": form,
        "url_warnings": url_warnings,
        "config": config,
        "config_error": config_error,
        "has_key": api_key() is not None,
        "saved": saved,
        "can_edit": request.user.is_staff,
        "standing": standing(request.user),
        "time_zone": django_settings.TIME_ZONE,
        "retention_days": django_settings.REWIND_RETENTION_DAYS,
        "prunes": Prune.objects.all()[:PRUNES_SHOWN],
    }
    return render(request, "runs/settings.html", context, status=status)
