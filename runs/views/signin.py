"""Sign-in: the page a locked-out sign-in gets (django-axes' ``AXES_LOCKOUT_CALLABLE``).

django-axes counts failed sign-ins per username and address (settings: ``AXES_*``). Once a
pair reaches the limit, its attempts — the right password too — are answered with the sign-in
page saying that this username is locked from this address and until when: the lock ends
``AXES_COOLOFF_TIME`` after the pair's last failure.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

LOCKED_STATUS = 429  # Too Many Requests: a retry after the lock ends succeeds


def locked_out(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """The sign-in page, with the lock explained instead of the form's error. The arguments
    are axes' (it passes the credentials in either position depending on the code path): the
    username is read from the form, as axes itself does."""
    username = request.POST.get("username", "")
    until = locked_until(username, getattr(request, "axes_ip_address", None))
    left = max(until - timezone.now(), timedelta(0))
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "next": request.POST.get("next", ""),
        "locked": {
            "username": username,
            "until": until,
            "minutes": max(1, math.ceil(left.total_seconds() / 60)),
            "failures": settings.AXES_FAILURE_LIMIT,
        },
    }
    return render(request, "registration/login.html", context, status=LOCKED_STATUS)


def locked_until(username: str, address: str | None) -> datetime:
    """When the lock of ``username`` from ``address`` ends: the cool-off after its last
    failure (now plus the cool-off if axes has no record of it)."""
    last = AccessAttempt.objects.filter(username=username, ip_address=address).aggregate(
        last=Max("attempt_time")
    )["last"]
    return (last or timezone.now()) + get_cool_off()
