"""The urllib3 adapter — and so ``requests`` (tavily-python, most REST clients), whose
``HTTPAdapter.send`` is ``HTTPConnectionPool.urlopen`` underneath: ``urlopen`` handed to the
capture core while a step runs.

``urlopen`` is the one point every request of a pool goes through, proxied or not (through an
HTTP proxy its ``url`` is absolute; otherwise a path on the pool's host). A live answer is read
to its end — decoded, so the stored body is what the caller reads — and given back as a fresh
``HTTPResponse`` over those bytes, without the content-encoding it no longer has; a replayed
one is the same construction from the cache. Retries and redirects urllib3 makes inside the
call stay inside it (the core's ``sending`` mark lets them through uncaptured).
"""

from __future__ import annotations

import io
from http import HTTPStatus
from typing import Any

from runs.engine.calls.capture.core import Answer, Outgoing, current

_installed = False
DROPPED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def install() -> None:
    """Wrap ``HTTPConnectionPool.urlopen`` once per process (if urllib3 is installed)."""
    global _installed
    if _installed:
        return
    try:
        from urllib3.connectionpool import HTTPConnectionPool
    except ImportError:
        return
    original = HTTPConnectionPool.urlopen

    def urlopen(pool: Any, method: str, url: str, body: Any = None, headers: Any = None, **kw: Any):
        calls = current()
        if calls is None:
            return original(pool, method, url, body, headers, **kw)
        content = _content(body)
        full = url if "://" in url else f"{pool.scheme}://{_authority(pool)}{url}"
        out = Outgoing(method, full, list((headers or {}).items()), content, "urllib3")

        def live(replaced: bytes | None) -> tuple[Answer, Any]:
            sent = content if replaced is None else replaced
            # The body is bytes now, of a known length; the answer is read here, whatever the
            # caller asked (a preloaded one would leave nothing for this read).
            sending = {**kw, "chunked": False, "preload_content": False}
            response = original(pool, method, url, sent, _length(headers, sent), **sending)
            data = response.read(decode_content=True)
            response.release_conn()
            kept = {k.lower(): v for k, v in response.headers.items() if k.lower() not in DROPPED}
            answer = Answer(response.status, kept, data)
            return answer, _response(answer, method, full, kw, reason=response.reason)

        answer, response = calls.exchange(out, live)
        return response if response is not None else _response(answer, method, full, kw)

    HTTPConnectionPool.urlopen = urlopen  # type: ignore[method-assign]
    _installed = True


def _authority(pool: Any) -> str:
    default = 443 if pool.scheme == "https" else 80
    host = f"[{pool.host}]" if ":" in pool.host else pool.host
    return host if pool.port in (None, default) else f"{host}:{pool.port}"


def _content(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    if hasattr(body, "read"):
        data = body.read()
        return data.encode("utf-8") if isinstance(data, str) else data
    return b"".join(p.encode("utf-8") if isinstance(p, str) else bytes(p) for p in body)


def _length(headers: Any, body: bytes) -> Any:
    """The headers for ``body`` (read into bytes: no chunked upload, an exact length)."""
    if headers is None:
        return None
    headers = {k: v for k, v in headers.items() if k.lower() != "transfer-encoding"}
    if body or any(k.lower() == "content-length" for k in headers):
        headers = {k: v for k, v in headers.items() if k.lower() != "content-length"}
        headers["Content-Length"] = str(len(body))
    return headers


def _response(answer: Answer, method: str, url: str, kw: dict, reason: str | None = None) -> Any:
    from urllib3 import HTTPResponse

    headers = {**answer.headers, "content-length": str(len(answer.body))}
    try:
        phrase = reason or HTTPStatus(answer.status).phrase
    except ValueError:
        phrase = ""
    return HTTPResponse(
        body=io.BytesIO(answer.body),
        headers=headers,
        status=answer.status,
        reason=phrase,
        preload_content=kw.get("preload_content", True),
        decode_content=kw.get("decode_content", True),
        request_method=method,
        request_url=url,
    )
