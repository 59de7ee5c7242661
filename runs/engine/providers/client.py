"""One OpenAI-compatible chat-completions client, written on plain httpx.

Why a hand-written client instead of a vendor SDK: every provider Rewind talks to (OpenAI,
Ollama, LM Studio, vLLM, the embedded simulator) speaks the same ``/chat/completions`` wire
format, but each one adds or omits fields. A plain POST with tolerant body parsing works
against all of them, and keeps the failure rules of DESIGN.md ("Failing loudly") in one
place we control:

* transport errors (refused, DNS, timeout) fail at once -- no retry loop;
* the one allowed retry is an HTTP 400 that names ``response_format``: it is retried once
  without it, and the response says so (``dropped_response_format``);
* every error message passes through :func:`redact` so an API key is never echoed back.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

logger = logging.getLogger("rewind.provider")

#: Answers worth retrying: rate limits and server-side failures.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Longest wait between retries, whatever a Retry-After header asks for.
MAX_RETRY_DELAY = 10.0


def _retry_delay(response: httpx.Response, default: float) -> float:
    try:
        asked = float(response.headers.get("retry-after", ""))
    except ValueError:
        asked = default
    return max(0.0, min(asked, MAX_RETRY_DELAY))


PRESETS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
    "vllm": "http://127.0.0.1:8000/v1",
}

#: Longest provider error text we carry around; a provider may answer an HTML error page.
_MAX_ERROR_CHARS = 500


def redact(text: str, secret: str | None) -> str:
    """Replace every occurrence of ``secret`` in ``text`` with ``[redacted]``.

    Providers sometimes echo the key they were sent ("Incorrect API key provided: sk-...").
    Error messages end up in the database, HTML and JSON, so they are all filtered here.
    Secrets shorter than 4 characters are ignored: redacting "a" would mangle the message
    while protecting nothing.
    """
    if not text or not secret or len(secret) < 4:
        return text
    return text.replace(secret, "[redacted]")


def strip_credentials(url: str) -> str:
    """A base URL may carry ``user:password@``; messages and snapshots get it without."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _one_line(text: str) -> str:
    """Collapse whitespace so an error always reads as one clear line."""
    return " ".join(str(text).split())


class ProviderError(Exception):
    """The provider answered, but not with a usable completion (non-2xx, non-JSON body).

    ``message`` is one line, already redacted; ``status_code`` is the HTTP status when
    there was one; ``raw`` holds the (redacted) raw body when it could not be parsed, so
    the engine can attach it to the failed node.
    """

    def __init__(
        self, message: str, status_code: int | None = None, *, raw: str | None = None
    ) -> None:
        self.message = _one_line(message)
        self.status_code = status_code
        self.raw = raw
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class TransportError(ProviderError):
    """The provider could not be reached (connection refused, DNS failure, timeout).

    A separate class because the engine treats it differently from a provider that
    answered: the node fails at once, and a fully cached run never gets here at all.
    """


@dataclass(frozen=True)
class ChatRequest:
    """Everything that goes into one chat-completions call.

    Frozen so a request can be hashed/cached by the engine without fear of mutation
    between the cache-key computation and the call.
    """

    model: str
    messages: tuple[dict, ...] | list[dict]
    temperature: float
    response_format: dict | None = None
    seed: int | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] | None = None
    top_p: float | None = None
    tools: tuple | None = None
    tool_choice: Any = None

    def payload(self) -> dict:
        """The JSON body: ``None`` fields are omitted (some servers reject explicit nulls)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in self.messages],
            "temperature": self.temperature,
        }
        optional: dict[str, Any] = {
            "response_format": self.response_format,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "stop": list(self.stop) if self.stop is not None else None,
            "top_p": self.top_p,
            "tools": list(self.tools) if self.tools is not None else None,
            "tool_choice": self.tool_choice,
        }
        body.update({k: v for k, v in optional.items() if v is not None})
        return body


@dataclass(frozen=True)
class ChatResponse:
    """What the engine needs from a completion; ``model`` is what the provider *answered*
    with, so a silent substitution can be recorded and flagged."""

    content: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    dropped_response_format: bool = False


def _as_int(value: Any) -> int:
    """Usage counts are sometimes missing, null or floats; anything unusable counts as 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value == value:  # not NaN
        return max(int(value), 0)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _content_text(content: Any) -> str:
    """``message.content`` as text: None -> "", a list of parts -> their text joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return str(content)


def _error_detail(response: httpx.Response) -> str:
    """The provider's own error message, extracted tolerantly.

    Handles ``{"error": {"message": ...}}`` (OpenAI, vLLM), ``{"error": "..."}`` (Ollama)
    and ``{"message": ...}``/``{"detail": ...}``; anything else falls back to the text.
    """
    text = response.text or ""
    detail: Any = None
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            detail = error.get("message") or error.get("detail") or error
        elif error:
            detail = error
        else:
            detail = body.get("message") or body.get("detail")
    if detail is None or detail == "":
        detail = text or response.reason_phrase or "no error message"
    if not isinstance(detail, str):
        detail = json.dumps(detail, ensure_ascii=False)
    detail = _one_line(detail)
    if len(detail) > _MAX_ERROR_CHARS:
        detail = detail[: _MAX_ERROR_CHARS - 3] + "..."
    return detail


def _transport_reason(exc: httpx.TransportError, timeout: float) -> str:
    """A short, human reason for a transport failure (the raw httpx text can be long)."""
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connect timed out after {timeout:g}s"
    if isinstance(exc, httpx.ReadTimeout):
        return f"read timed out after {timeout:g}s"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out after {timeout:g}s"
    text = _one_line(str(exc)) or type(exc).__name__
    low = text.lower()
    if "refused" in low:
        return "connection refused"
    if any(
        s in low
        for s in ("name or service", "nodename", "getaddrinfo", "name resolution", "no address")
    ):
        return "host name could not be resolved"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"connection closed by the provider ({text[:150]})"
    if isinstance(exc, httpx.UnsupportedProtocol):
        return "unsupported URL scheme"
    return text[:200]


class ChatClient:
    """A client for one base URL (e.g. ``PRESETS["ollama"]`` or any OpenAI-compatible URL).

    ``transport`` lets tests and the in-process simulator plug in an
    ``httpx.MockTransport``. A ``simulator://`` base URL with no transport gets the
    embedded simulator's transport, so the engine can treat the simulator like any
    other provider.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
        retries: int = 2,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        # What messages name: the URL without any user:password it may carry.
        self.display_url = strip_credentials(self.base_url)
        self._api_key = api_key or None
        self.retries, self.backoff, self._sleep = max(0, retries), max(0.0, backoff), sleep
        self._url_password = urlsplit(self.base_url).password
        self.timeout = timeout
        if transport is None and self.base_url.startswith("simulator://"):
            from .simulator import Simulator  # lazy: the client must not need the simulator

            transport = Simulator().transport()
        self._transport = transport

    def __repr__(self) -> str:  # never show the key, only whether there is one
        return f"ChatClient({self.display_url!r}, api_key={'set' if self._api_key else 'unset'})"

    @property
    def url(self) -> str:
        # The real URL: httpx turns a user:password in it into basic auth. Messages use
        # display_url instead.
        return f"{self.base_url}/chat/completions"

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Send one completion; apply the single allowed ``response_format`` retry."""
        status, response = self._post_retrying(request.payload())
        if (
            status == 400
            and request.response_format is not None
            and "response_format" in response.text.lower()
        ):
            retry = replace(request, response_format=None)
            _, response = self._post_retrying(retry.payload())
            return self._parse(response, request.model, dropped=True)
        return self._parse(response, request.model, dropped=False)

    def _post_retrying(self, payload: dict) -> tuple[int, httpx.Response]:
        """Overload and server errors (429, 5xx) are retried a bounded number of times with
        exponential backoff (or the provider's Retry-After, capped), each retry logged. Any
        other answer, and transport errors, return or raise at once."""
        attempt = 0
        while True:
            status, response = self._post(payload)
            if status not in RETRY_STATUSES or attempt >= self.retries:
                return status, response
            delay = _retry_delay(response, self.backoff * (2**attempt))
            attempt += 1
            logger.warning(
                "provider %s answered HTTP %s; retry %s of %s in %.1f s",
                self.display_url,
                status,
                attempt,
                self.retries,
                delay,
            )
            self._sleep(delay)

    # -- internals -----------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        return redact(redact(text, self._api_key), self._url_password)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _post(self, payload: dict) -> tuple[int, httpx.Response]:
        """One POST; transport failures become :class:`TransportError` at once."""
        try:
            with httpx.Client(
                timeout=httpx.Timeout(self.timeout), transport=self._transport
            ) as client:
                response = client.post(self.url, json=payload, headers=self._headers())
        except httpx.TransportError as exc:
            reason = _transport_reason(exc, self.timeout)
            raise TransportError(
                self._scrub(f"cannot reach {self.display_url}: {reason}")
            ) from None
        except httpx.InvalidURL as exc:
            raise TransportError(
                self._scrub(f"cannot reach {self.display_url}: invalid URL ({exc})")
            ) from None
        return response.status_code, response

    def _parse(
        self, response: httpx.Response, requested_model: str, *, dropped: bool
    ) -> ChatResponse:
        """Turn a response into a :class:`ChatResponse`, or raise :class:`ProviderError`.

        Tolerant on purpose: unknown fields are ignored, missing usage counts as 0,
        a missing model means the requested one. Content is returned as-is (even empty
        or garbled): deciding that output is unusable is the engine's job, not ours.
        """
        key = self._api_key
        if not response.is_success:
            detail = _error_detail(response)
            raise ProviderError(
                redact(f"HTTP {response.status_code} from {self.display_url}: {detail}", key),
                response.status_code,
            )
        text = response.text
        try:
            body = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            raise ProviderError(
                redact(
                    f"provider answered with a body that is not JSON "
                    f"(HTTP {response.status_code} from {self.display_url})",
                    key,
                ),
                response.status_code,
                raw=redact(text, key),
            ) from None
        if not isinstance(body, dict):
            raise ProviderError(
                redact(f"provider answered with a JSON {type(body).__name__}, not an object", key),
                response.status_code,
                raw=redact(text, key),
            )

        content = ""
        choices = body.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            first = choices[0]
            message = first.get("message")
            if isinstance(message, dict):
                content = _content_text(message.get("content"))
            elif "text" in first:  # legacy completions shape
                content = _content_text(first.get("text"))

        usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
        prompt_tokens = _as_int(usage.get("prompt_tokens"))
        completion_tokens = _as_int(usage.get("completion_tokens"))
        total_tokens = _as_int(usage.get("total_tokens")) or prompt_tokens + completion_tokens

        model = body.get("model")
        if not isinstance(model, str) or not model:
            model = requested_model

        return ChatResponse(
            content=content,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=total_tokens,
            dropped_response_format=dropped,
        )
