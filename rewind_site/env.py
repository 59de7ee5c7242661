"""Small typed readers for the environment.

Each raises ``ImproperlyConfigured`` with the variable's name on a bad value, so a typo in a
deployment fails at start-up with one clear line instead of somewhere deep in a run.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_float(name: str, default: float, *, minimum: float, maximum: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if not minimum <= value <= maximum:
        raise ImproperlyConfigured(f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def env_int(name: str, default: int, *, minimum: int, maximum: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None
    if not minimum <= value <= maximum:
        raise ImproperlyConfigured(f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {raw!r}")


def env_pairs(name: str) -> dict[str, str]:
    """``NAME=a=x.y,b=z.w`` → ``{"a": "x.y", "b": "z.w"}``."""
    raw = os.environ.get(name, "").strip()
    pairs: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ImproperlyConfigured(
                f"{name} entries must look like name=dotted.path, got {item!r}"
            )
        pairs[key.strip()] = value.strip()
    return pairs


def env_seconds(name: str, *, minimum: float, maximum: float) -> dict[str, float]:
    """``NAME=a=30,b=1.5`` → ``{"a": 30.0, "b": 1.5}``: seconds per name, each in range."""
    raw = os.environ.get(name, "").strip()
    seconds: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        key, sep, value = item.partition("=")
        try:
            number = float(value) if sep and key.strip() else None
        except ValueError:
            number = None
        if number is None or not minimum <= number <= maximum:
            raise ImproperlyConfigured(
                f"{name} entries must look like name=seconds with seconds between {minimum} "
                f"and {maximum}, got {item!r}"
            )
        seconds[key.strip()] = number
    return seconds


def env_secret(name: str, *, min_length: int = 50, min_unique: int = 5) -> str:
    """A secret (``SECRET_KEY``) from the environment, or "" when unset. A set one must pass
    Django's own deployment check (``security.W009``): long, varied and not Django's
    ``django-insecure-`` placeholder. The message never repeats the value."""
    value = os.environ.get(name, "").strip()
    if not value:
        return ""
    problem = ""
    if len(value) < min_length:
        problem = f"must be at least {min_length} characters long (it has {len(value)})"
    elif len(set(value)) < min_unique:
        problem = f"must have at least {min_unique} different characters"
    elif value.startswith("django-insecure-"):
        problem = "must not start with django-insecure- (a development placeholder)"
    if problem:
        raise ImproperlyConfigured(
            f"{name} {problem}; make one with: "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    return value


def env_json_object(name: str) -> dict:
    """A JSON object from the environment, written inline (``NAME={"a": …}``) or in a file
    (``NAME=/path/to/file.json``); unset is ``{}``."""
    import json
    from pathlib import Path

    raw = os.environ.get(name, "").strip()
    if not raw:
        return {}
    text, where = raw, "its value"
    if not raw.startswith("{"):
        path = Path(raw).expanduser()
        try:
            text, where = path.read_text(encoding="utf-8"), str(path)
        except OSError as exc:
            raise ImproperlyConfigured(
                f"{name} must be a JSON object or the path of a JSON file; cannot read "
                f"{raw!r}: {exc.strerror or exc}"
            ) from None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {where} is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name}: {where} must hold a JSON object")
    return value


def env_collector_url(name: str) -> str:
    """An OpenTelemetry collector's base URL (``http://host:4318``), or "" when unset: http or
    https with a host, no query or fragment, no user:password (a collector's credentials go in
    ``OTEL_EXPORTER_OTLP_HEADERS``, which the exporter reads). The trailing ``/`` is dropped."""
    from urllib.parse import urlsplit

    raw = os.environ.get(name, "").strip()
    if not raw:
        return ""
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 — raises on a port that is not a number
    except ValueError:
        raise ImproperlyConfigured(
            f"{name} must be an http(s) URL like http://127.0.0.1:4318"
        ) from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ImproperlyConfigured(
            f"{name} must be an http or https URL with a host, like http://127.0.0.1:4318 "
            f"(got scheme {parts.scheme or 'none'!r})"
        )
    if "@" in parts.netloc:
        raise ImproperlyConfigured(
            f"{name} must not carry a user or password; put a collector's credentials in "
            "OTEL_EXPORTER_OTLP_HEADERS"
        )
    if parts.query or parts.fragment:
        raise ImproperlyConfigured(f"{name} must not have a query or a fragment")
    return raw.rstrip("/")
