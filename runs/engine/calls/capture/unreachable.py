"""A call that could not connect: which endpoint the step tried, and where that URL came from.

A step whose SDK says only "Connection error." (the dashboard's worker had no
``OPENAI_BASE_URL``; the command line did) leaves a user guessing. The capture saw the URL, so
the step's error names it and says whether this process's environment set it (a variable the
SDKs read) or the app's own code did — and, for a provider's default host, that the variable
that would have moved it is not set here.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

# Variables the SDKs read their base URL from, by the host they default to without one.
BASE_URL_VARIABLES = {
    "OPENAI_BASE_URL": "api.openai.com",
    "ANTHROPIC_BASE_URL": "api.anthropic.com",
    "OLLAMA_HOST": "localhost:11434",
    "GOOGLE_GEMINI_BASE_URL": "generativelanguage.googleapis.com",
}


def is_unreachable(error: BaseException) -> bool:
    """A failure to connect (refused, DNS, connect timeout), whichever library raised it:
    OSError's family (aiohttp's, http.client's), or a library's own ``Connect…`` class
    (httpx, httpx2, urllib3's ``NewConnectionError`` inside ``MaxRetryError``)."""
    names = {cls.__name__ for cls in type(error).__mro__}
    if any("Connect" in name for name in names) or "MaxRetryError" in names:
        return True
    return isinstance(error, OSError) and not isinstance(error, FileNotFoundError)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}"


def describe(url: str, error: BaseException) -> str:
    """One sentence for the step's error: the endpoint (no query, no credentials), the
    failure, and where the URL came from."""
    parts = urlsplit(url)
    endpoint = f"{_origin(url)}{parts.path}"
    reason = f"{type(error).__name__}: {error}".splitlines()[0][:300]
    return f"the step's call to {endpoint} could not connect ({reason}); {_source(url)}"


def _source(url: str) -> str:
    origin = _origin(url)
    for name in BASE_URL_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value and "://" not in value:  # OLLAMA_HOST may be host:port
            value = f"http://{value}"
        if value and _origin(value) == origin:
            return f"that URL comes from {name} in this process's environment"
    host = urlsplit(url).netloc.rpartition("@")[2]
    unset = [name for name, default in BASE_URL_VARIABLES.items()
             if default == host and not os.environ.get(name)]  # fmt: skip
    if unset:
        return (
            f"that is the SDK's default: {unset[0]} is not set in this process's environment "
            "(a dashboard worker does not see a variable set only in your shell)"
        )
    return "that URL is the app's own (its client's base URL, from its code or its configuration)"
