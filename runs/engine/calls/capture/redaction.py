"""Credentials never stored: what is redacted from a captured call before anything is written,
and from any message that quotes a URL (DESIGN.md, "Credentials are never stored").

Headers are never kept at all (only a response's content type is). Query parameters and JSON
body fields whose name says "credential" have their value replaced by ``REDACTED`` — in the
stored request, the stored tool arguments and the cache key alike, so a key that changes
changes nothing. A few names are credentials only sometimes (``key``, ``token``, ``sig``: a
key-value store's ``{"key": "user:42"}`` is data, and leaving it out of the cache key would
give two different calls one answer), so their value is redacted when it looks like a secret
(long, one word, letters and digits). A credential's value that also appears elsewhere in the
request or in its answer (a key sent in a header and again in the path; an error message that
quotes it) and the well-known shapes of API keys (``sk-…``, ``AIza…``, a Telegram bot token …)
are redacted wherever they occur.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"

# Names (lowercased, '-' read as '_') whose value is a credential, in a query or a JSON body.
CREDENTIAL_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "x_api_key",
        "api_token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "bearer",
        "secret",
        "client_secret",
        "password",
        "passwd",
        "private_key",
        "authorization",
        "x_goog_api_key",
        "subscription_key",
    }
)
# Names that are credentials when their value looks like one (see the module docstring).
SOMETIMES_CREDENTIAL_NAMES = frozenset({"key", "token", "signature", "sig"})
_SECRET_LOOKING = re.compile(r"^(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9_\-.~+/=:]{16,}$")
# Header names whose value is a credential (headers are not stored; their values are looked
# for elsewhere in the request).
CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "x-auth-token",
        "x-access-token",
        "ocp-apim-subscription-key",
    }
)
# The shapes of common API keys, wherever they appear (a path, an error message).
KEY_SHAPES = re.compile(
    r"(?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"  # OpenAI, Anthropic
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|tvly-[A-Za-z0-9_\-]{16,}"  # Tavily
    r"|bot\d{6,}:[A-Za-z0-9_\-]{30,})"  # Telegram
)
MIN_SECRET = 8  # a shorter header value is not searched for elsewhere (it would match words)


def is_credential(name: str, value: Any) -> bool:
    """Whether a query parameter or body field ``name`` = ``value`` holds a credential."""
    if value in (None, ""):
        return False
    name = name.strip().lower().replace("-", "_")
    if name in CREDENTIAL_NAMES:
        return True
    return (
        name in SOMETIMES_CREDENTIAL_NAMES
        and isinstance(value, str)
        and _SECRET_LOOKING.match(value) is not None
    )


def secrets_in(pairs: Iterable[tuple[str, Any]]) -> set[str]:
    """The credential values among (name, value) pairs: a query, a body's fields."""
    return {str(v) for k, v in pairs if is_credential(str(k), v) and len(str(v)) >= MIN_SECRET}


def secrets_in_body(value: Any) -> set[str]:
    found: set[str] = set()

    def walk(item: Any) -> None:
        if isinstance(item, Mapping):
            found.update(secrets_in((k, v) for k, v in item.items() if isinstance(v, str)))
            for v in item.values():
                walk(v)
        elif isinstance(item, list):
            for v in item:
                walk(v)

    walk(value)
    return found


def secrets_in_headers(headers: Iterable[tuple[str, str]]) -> set[str]:
    """The credential values a request carries in its headers (``Bearer x`` gives ``x``)."""
    found: set[str] = set()
    for name, value in headers:
        if name.lower() not in CREDENTIAL_HEADERS or not value:
            continue
        token = value.split(None, 1)[-1] if " " in value else value
        for candidate in (value, token):
            if len(candidate) >= MIN_SECRET:
                found.add(candidate)
    return found


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret, every key-shaped token and every credential query
    parameter of a URL in it replaced (an error message quoting a URL, a path)."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
        quoted = quote(secret, safe="")
        if quoted != secret:
            text = text.replace(quoted, REDACTED)
    text = KEY_SHAPES.sub(REDACTED, text)
    return _CREDENTIAL_PARAM.sub(lambda m: m.group(1) + REDACTED, text)


# name=value in a query string, where name is a credential name.
_CREDENTIAL_PARAM = re.compile(
    r"([?&;](?:"
    + "|".join(sorted((n.replace("_", "[_-]") for n in CREDENTIAL_NAMES), key=len, reverse=True))
    + r")=)[^&#\s'\"]*",
    re.IGNORECASE,
)


def redact_query(
    pairs: Iterable[tuple[str, str]], secrets: Iterable[str] = ()
) -> list[tuple[str, str]]:
    secrets = tuple(secrets)
    return [
        (name, REDACTED if is_credential(name, value) else redact_text(value, secrets))
        for name, value in pairs
    ]


def redact_body(value: Any, secrets: Iterable[str] = ()) -> Any:
    """A JSON value with every credential-named field's value replaced and every known
    secret removed from its strings."""
    secrets = tuple(secrets)

    def walk(item: Any) -> Any:
        if isinstance(item, Mapping):
            return {
                k: (REDACTED if is_credential(str(k), v) and _scalar(v) else walk(v))
                for k, v in item.items()
            }
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, str):
            return redact_text(item, secrets)
        return item

    return walk(value)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def redact_url(url: str, secrets: Iterable[str] = ()) -> str:
    """A URL with credential query parameters, known secrets and key shapes replaced; no
    user:password in its authority."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = urlencode(redact_query(parse_qsl(parts.query, keep_blank_values=True), secrets))
    path = redact_text(parts.path, secrets)
    return urlunsplit((parts.scheme, netloc, path, query, parts.fragment))


# -- the HTTP libraries' own logs -------------------------------------------------------------

# Loggers of the HTTP libraries that write a request's URL (httpx logs each one at INFO).
URL_LOGGERS = ("httpx", "httpx2", "urllib3.connectionpool", "aiohttp.client", "requests")


class RedactingFilter(logging.Filter):
    """Rewrites a record's message with credentials in URLs and key shapes redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 — a record that cannot format is left as it is
            return True
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


_FILTER = RedactingFilter()


def redact_library_logs() -> None:
    """Put the filter on the HTTP libraries' loggers (once; idempotent)."""
    for name in URL_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
