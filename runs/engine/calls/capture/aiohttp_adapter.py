"""The aiohttp adapter: ``ClientSession._request`` handed to the capture core while a step runs.

Why ``_request``: it is the one coroutine every HTTP call of a session goes through —
``get``/``post``/…/``request`` and the module's ``aiohttp.request`` all wrap it in their context
manager — and, unlike a client middleware (which sees every hop of a redirect), it asks once
for what the caller asked and answers with where the redirects ended, as ``httpx``'s ``send``
does. ``ws_connect`` goes through it too: a websocket handshake (``Upgrade: websocket``) passes
through, never captured. The request is taken as aiohttp builds it (``ClientRequest``): the
session's base URL and default headers, ``params`` appended to the query, the body from
``json=`` or ``data=`` (bytes, str, a form dict, ``FormData``, a file or an async iterable) by
aiohttp's own payload registry; a body that can be read once is read here and sent as those
bytes.

A live answer is read to its end (``await resp.read()``) so that it can be stored; the caller
gets the response with a fresh ``content`` stream over the bytes read, so it reads, streams and
iterates it as if it came off the wire. A cached answer becomes the session's own response
class, not started on any connection, with the same kind of stream (vcrpy's approach).
"""

from __future__ import annotations

import asyncio
import inspect
from http import HTTPStatus
from types import SimpleNamespace
from typing import Any

from runs.engine.calls.capture.core import Answer, Outgoing, current

LIBRARY = "aiohttp"
_installed = False


def install() -> None:
    """Wrap ``ClientSession._request``, once per process (nothing to do without aiohttp).
    Outside a step (no active ``StepCalls``) sessions behave exactly as before."""
    global _installed
    if _installed:
        return
    try:
        import aiohttp
    except ImportError:
        return
    _wrap(aiohttp)
    _installed = True


class _NoConnection:
    """The protocol a ``StreamReader`` holding a whole body asks to pause and resume: none."""

    _reading_paused = False
    connected = False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self, resume_parser: bool = True) -> None:
        pass


class _Sink:
    """A stream writer that keeps what a payload writes (its bytes, once)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.output_size = 0

    async def write(self, chunk: Any) -> None:
        self.chunks.append(bytes(chunk))
        self.output_size += len(chunk)

    async def write_eof(self, chunk: bytes = b"") -> None:
        await self.write(chunk)

    async def drain(self) -> None:
        pass

    def enable_compression(self, *args: Any, **kwargs: Any) -> None:
        pass

    def enable_chunking(self) -> None:
        pass


def _upgrades(headers: Any) -> bool:
    """A websocket handshake (``ws_connect``): passed through, never captured."""
    return headers.get("upgrade", "").lower() == "websocket"


def _stream(body: bytes) -> Any:
    """A response's ``content`` stream holding the whole of ``body``, on no connection."""
    from aiohttp import streams

    # aiohttp refuses lines longer than twice the limit: size it from the body.
    limit = max(len(body), 2**16)
    reader = streams.StreamReader(_NoConnection(), limit, loop=asyncio.get_running_loop())
    reader.feed_data(body)
    reader.feed_eof()
    return reader


async def _body_of(session: Any, data: Any, json: Any) -> Any:
    """The payload aiohttp would send (``ClientRequest.update_body_from_data``)."""
    import aiohttp
    from aiohttp import payload

    if json is not None:
        dumps = getattr(session, "_json_serialize_bytes", None)
        if dumps is not None:
            return payload.JsonBytesPayload(json, dumps=dumps)
        return payload.JsonPayload(json, dumps=session._json_serialize)
    if data is None:
        return None
    value = data() if isinstance(data, aiohttp.FormData) else data
    try:
        body = payload.PAYLOAD_REGISTRY.get(value, disposition=None)
    except payload.LookupError:
        body = aiohttp.FormData(value)()
    if isinstance(body, payload.BytesPayload):
        return body
    sink = _Sink()  # a file, an async iterable, multipart: read once, sent as read
    await body.write(sink)
    return payload.BytesPayload(b"".join(sink.chunks), content_type=body.content_type)


def _outgoing(session: Any, method: str, url: Any, kwargs: dict, body: Any) -> Outgoing:
    """The request as the capture core sees it: the session's headers and auth applied, the
    body's bytes and headers, the URL without credentials."""
    import aiohttp

    headers = session._prepare_headers(kwargs.get("headers"))
    auth = kwargs.get("auth") or (aiohttp.BasicAuth.from_url(url) if url.user else None)
    auth = auth or session._default_auth
    if auth is not None and "authorization" not in headers:
        headers["Authorization"] = auth.encode()
    content = b""
    if body is not None:
        content = bytes(body._value)
        for key, value in body.headers.items():
            headers.setdefault(key, value)
    url = url.with_user(None)
    return Outgoing(method, str(url), list(headers.items()), content, LIBRARY)


async def _prepared(
    session: Any, method: str, str_or_url: Any, kwargs: dict
) -> tuple[Any, Any, Outgoing]:
    """The URL, the body and the ``Outgoing`` of a call, as aiohttp would build them; raises
    what aiohttp would refuse."""
    url = session._build_url(str_or_url)
    if kwargs.get("params"):
        url = url.extend_query(kwargs["params"])
    if kwargs.get("data") is not None and kwargs.get("json") is not None:
        raise ValueError("data and json parameters can not be used at the same time")
    body = await _body_of(session, kwargs.get("data"), kwargs.get("json"))
    return url, body, _outgoing(session, method, url, kwargs, body)


def _replayed(
    session: Any, method: str, url: Any, out: Outgoing, answer: Answer, takes_writer: bool
) -> Any:
    """A cached answer as the session's own response class, not started on any connection."""
    from aiohttp.client_reqrep import RequestInfo
    from aiohttp.http import HttpVersion11
    from multidict import CIMultiDict, CIMultiDictProxy

    info = RequestInfo(url, method, CIMultiDictProxy(CIMultiDict(out.headers)), url)
    extra = {"stream_writer": SimpleNamespace(output_size=0)} if takes_writer else {}
    response = session._response_class(
        method, url, writer=None, continue100=None, timer=None, request_info=info,
        traces=[], loop=asyncio.get_running_loop(), session=session, **extra,
    )  # fmt: skip
    headers = CIMultiDict(answer.headers)
    headers.setdefault("content-length", str(len(answer.body)))
    response.version = HttpVersion11
    response.status = answer.status
    try:
        response.reason = HTTPStatus(answer.status).phrase
    except ValueError:
        response.reason = ""
    response._headers = CIMultiDictProxy(headers)
    response._raw_headers = tuple((k.encode(), v.encode()) for k, v in headers.items())
    response.content = _stream(answer.body)
    return response  # read to its end, on no connection: closed, not released


async def _check_status(session: Any, raise_for_status: Any, response: Any) -> None:
    """What ``_request`` does with ``raise_for_status`` (held back until after capture)."""
    if raise_for_status is None:
        raise_for_status = session._raise_for_status
    try:
        if callable(raise_for_status):
            await raise_for_status(response)
        elif raise_for_status:
            response.raise_for_status()
    except BaseException:
        response.close()
        raise


def _wrap(aiohttp: Any) -> None:
    from aiohttp import payload
    from multidict import CIMultiDict

    session_class = aiohttp.ClientSession
    original = session_class._request
    takes_writer = "stream_writer" in inspect.signature(aiohttp.ClientResponse.__init__).parameters

    async def _request(session: Any, method: str, str_or_url: Any, **kwargs: Any) -> Any:
        calls = current()
        if calls is None or _upgrades(CIMultiDict(kwargs.get("headers") or {})):
            return await original(session, method, str_or_url, **kwargs)
        try:
            method = method.upper()
            url, body, out = await _prepared(session, method, str_or_url, kwargs)
        except Exception:  # noqa: BLE001 — a request aiohttp refuses: let it say why
            return await original(session, method, str_or_url, **kwargs)
        raise_for_status = kwargs.pop("raise_for_status", None)
        kwargs.pop("json", None)

        async def live(content: bytes | None) -> tuple[Answer, Any]:
            data = body
            if content is not None:
                kind = body.content_type if body is not None else "application/json"
                data = payload.BytesPayload(content, content_type=kind)
            response = await original(
                session, method, str_or_url, **{**kwargs, "data": data}, raise_for_status=False
            )
            raw = await response.read()  # read here, to be stored; streamed again below
            response.content = _stream(raw)
            response._body = None
            headers = {k.lower(): v for k, v in response.headers.items()}
            return Answer(response.status, headers, raw), response

        answer, response = await calls.aexchange(out, live)
        if response is None:
            response = _replayed(session, method, url, out, answer, takes_writer)
        await _check_status(session, raise_for_status, response)
        return response

    _request.__wrapped__ = original  # type: ignore[attr-defined]
    session_class._request = _request
