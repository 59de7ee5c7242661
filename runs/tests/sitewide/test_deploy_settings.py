"""Production settings (issue 7, finding 9): with DEBUG off and the documented production
variables set (README, "Production"), ``manage.py check --deploy`` is clean; without them it
is not, which shows the check can fail. Each runs in a subprocess: settings are read once
per process, from its environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
LONG_KEY = "k7#Qp2-vX9!rT4@mZ8$wL1%nB6^yH3&cF5*dJ0(sG7)eA2_uR9+oK4=iV8[tN1]"

# What README's "Production" section tells an operator to set.
PRODUCTION = {
    "SECRET_KEY": LONG_KEY,
    "ALLOWED_HOSTS": "rewind.example.com",
    "REWIND_HTTPS": "1",
}


def environment(tmp_path: Path, **extra: str | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not (
            k.startswith(("REWIND_", "SECURE_")) or k in {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}
        )
    }
    env.update(
        DJANGO_SETTINGS_MODULE="rewind_site.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def manage(tmp_path: Path, *args: str, **env: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=environment(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_deploy(tmp_path: Path, **env: str | None) -> subprocess.CompletedProcess:
    return manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **env)


def setting(tmp_path: Path, expression: str, **env: str | None) -> str:
    code = f"from django.conf import settings; print(repr({expression}))"
    result = manage(tmp_path, "shell", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]  # after the shell's own notice of imports


def test_check_deploy_is_clean_with_the_production_variables(tmp_path):
    result = check_deploy(tmp_path, **PRODUCTION)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNINGS" not in result.stdout + result.stderr


def test_check_deploy_is_not_clean_without_them(tmp_path):
    """The control: the same check fails on the defaults, naming what is missing."""
    result = check_deploy(tmp_path, **{**PRODUCTION, "REWIND_HTTPS": None})

    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr, warning


def test_check_deploy_names_debug_left_on(tmp_path):
    result = check_deploy(tmp_path, **PRODUCTION, DEBUG="1")

    assert result.returncode != 0
    assert "security.W018" in result.stderr


@pytest.mark.parametrize(
    "key, says",
    [
        ("short-key", "at least 50 characters"),
        ("a" * 60, "at least 5 different characters"),
        ("django-insecure-" + LONG_KEY, "django-insecure-"),
    ],
)
def test_a_weak_secret_key_from_the_environment_is_refused_at_start_up(tmp_path, key, says):
    result = manage(tmp_path, "check", **{**PRODUCTION, "SECRET_KEY": key})

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr and says in result.stderr
    assert key not in result.stderr  # the key itself is never printed


def test_https_turns_on_redirect_secure_cookies_and_hsts(tmp_path):
    names = (
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_HSTS_PRELOAD",
        "SECURE_PROXY_SSL_HEADER",
    )
    expression = "[" + ", ".join(f"settings.{n}" for n in names) + "]"

    assert setting(tmp_path, expression, **PRODUCTION) == repr(
        [True, True, True, 31_536_000, True, True, None]
    )
    assert setting(tmp_path, expression, **{**PRODUCTION, "REWIND_HTTPS": None}) == repr(
        [False, False, False, 0, False, False, None]
    )


def test_the_proxy_header_is_trusted_only_when_asked(tmp_path):
    trusted = setting(
        tmp_path,
        "settings.SECURE_PROXY_SSL_HEADER",
        **PRODUCTION,
        REWIND_TRUST_X_FORWARDED_PROTO="1",
    )

    assert trusted == repr(("HTTP_X_FORWARDED_PROTO", "https"))


def test_hsts_seconds_can_be_lowered_for_a_first_roll_out(tmp_path):
    assert (
        setting(tmp_path, "settings.SECURE_HSTS_SECONDS", **PRODUCTION, REWIND_HSTS_SECONDS="3600")
        == "3600"
    )


@pytest.mark.django_db
def test_health_is_reachable_over_plain_http_for_load_balancers(client, settings):
    """SECURE_SSL_REDIRECT sends everything to https except ``/api/health``, which a load
    balancer probes over plain HTTP from inside."""
    from rewind_site import settings as configured

    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = configured.SECURE_REDIRECT_EXEMPT

    assert client.get("/api/health").status_code == 200
    redirect = client.get("/runs/")
    assert redirect.status_code == 301
    assert redirect["Location"].startswith("https://")
