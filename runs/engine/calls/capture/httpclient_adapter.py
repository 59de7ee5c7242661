"""The standard library's adapter: ``http.client.HTTPConnection``, and so ``HTTPSConnection``,
``urllib.request.urlopen`` (``AbstractHTTPHandler.do_open`` calls ``h.request(...)``, then
``h.getresponse()``) and subclasses that keep to its methods (urllib3's ``HTTPConnection``).

Wrapped on ``HTTPConnection`` itself: ``putrequest``, ``putheader``, ``endheaders`` and
``send`` — what ``request()`` (``_send_request``) and the low-level path both go through — and
``getresponse``. Whether a request is captured is decided at ``putrequest`` by ``current()``
and remembered on the connection, so a request passed through (outside a step, or sent by the
capture itself under a higher library such as the urllib3 adapter) has its response passed
through too. A captured request is remembered, not sent (nothing connects), and is exchanged
once complete: at ``endheaders`` when it carries its body, so a refused live connection is
raised from ``request()`` as ever (urllib makes it a ``URLError``); at ``getresponse`` when a
body follows through ``send`` or a subclass overrides ``getresponse`` (urllib3 keeps state from
its ``request()`` that a live answer's ``close()`` would reset). Live, the request is sent for
real on the connection, framed by a Content-Length, and the answer read to its end. Either way
the caller gets a fresh ``HTTPResponse`` parsed from bytes (status line, headers, body), which
reads, iterates and answers ``getheader``/``status``/``reason``/``msg`` as a live one does.
Unlike vcrpy, which swaps the connection classes for stand-ins, the classes stay what they are.
"""

from __future__ import annotations

import http
import http.client
import io
import zlib
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from runs.engine.calls.capture.core import Answer, Outgoing, StepCalls, current

LIBRARY = "http.client"
_FRAMING = frozenset({"content-length", "transfer-encoding"})
_REQUEST = "_rewind_request"  # on a connection: the captured request not yet answered
_RESPONSE = "_rewind_response"  # its answer, when it was answered at endheaders
_original: dict[str, Any] = {}


def install() -> None:
    """Wrap ``HTTPConnection``'s methods, once per process (a method already wrapped is left
    alone, whichever thread wrapped it); idle outside a step."""
    cls = http.client.HTTPConnection
    for wrapper in (_putrequest, _putheader, _endheaders, _send, _getresponse):
        name = wrapper.__name__[1:]
        if getattr(cls, name) is not wrapper:
            _original[name] = getattr(cls, name)
            setattr(cls, name, wrapper)


@dataclass
class _Request:
    calls: StepCalls
    method: str
    target: str  # as given to putrequest: a path, or an absolute URL through a proxy
    skips: dict[str, bool]
    headers: list[tuple[str, tuple]] = field(default_factory=list)  # as put, to send again
    parts: list[bytes] = field(default_factory=list)
    framed: bool = False  # the body arrived chunk-encoded (urllib3's own ``send``)

    def header(self, name: str) -> str:
        found = (v for k, v in self.headers if _text(k).lower() == name)
        return ", ".join(_text(v) for v in next(found, ()))

    def body(self) -> bytes:
        data = b"".join(self.parts)
        return _unchunked(data) if self.framed else data

    def outgoing(self, conn: Any) -> Outgoing:
        headers = [(_text(k), ", ".join(_text(v) for v in values)) for k, values in self.headers]
        return Outgoing(self.method, _url(conn, self.target), headers, self.body(), LIBRARY)


class _Unconnected:
    """``sock`` of a connection whose captured request waits for ``getresponse`` (urllib3
    sets its timeout first); taken away before a live send, so that one connects."""

    settimeout = gettimeout = shutdown = close = staticmethod(lambda *args: None)


def _release(conn: Any) -> None:
    if isinstance(conn.sock, _Unconnected):
        conn.sock = None


def _putrequest(conn, method, url, skip_host=False, skip_accept_encoding=False):
    calls = current()
    conn.__dict__.pop(_RESPONSE, None)
    if calls is None:
        conn.__dict__[_REQUEST] = None
        _release(conn)
        return _original["putrequest"](conn, method, url, skip_host, skip_accept_encoding)
    conn._validate_method(method)
    conn._validate_path(url or "/")
    skips = {"skip_host": skip_host, "skip_accept_encoding": skip_accept_encoding}
    conn.__dict__[_REQUEST] = _Request(calls, method, url or "/", skips)
    if conn.sock is None:
        conn.sock = _Unconnected()


def _putheader(conn, header, *values):
    request = conn.__dict__.get(_REQUEST)
    if request is None:
        return _original["putheader"](conn, header, *values)
    request.headers.append((header, values))


def _endheaders(conn, message_body=None, *, encode_chunked=False):
    request = conn.__dict__.get(_REQUEST)
    if request is None:
        return _original["endheaders"](conn, message_body, encode_chunked=encode_chunked)
    chunked = "chunked" in request.header("transfer-encoding").lower()
    if message_body is not None:
        request.parts.append(_read(message_body))
        request.framed = chunked and not encode_chunked
    elif chunked or request.header("content-length").strip() not in ("", "0"):
        request.framed = chunked
        return  # the body follows through send(); answered at getresponse
    if type(conn).getresponse is _getresponse:  # not a subclass's own (see above)
        conn.__dict__[_RESPONSE] = _answer(conn)


def _send(conn, data):
    request = conn.__dict__.get(_REQUEST)
    if request is None:
        return _original["send"](conn, data)
    request.parts.append(_read(data))


def _getresponse(conn):
    response = conn.__dict__.pop(_RESPONSE, None)
    if response is None and conn.__dict__.get(_REQUEST) is not None:
        response = _answer(conn)
    _release(conn)
    return _original["getresponse"](conn) if response is None else response


def _answer(conn: Any) -> Any:
    """The captured request of ``conn``, answered by the core: a fresh HTTPResponse."""
    request = conn.__dict__.pop(_REQUEST)
    try:
        answer, native = request.calls.exchange(
            request.outgoing(conn), lambda content: _live(conn, request, content)
        )
    except BaseException:
        _release(conn)
        raise
    if conn.sock is None:
        conn.sock = _Unconnected()  # until getresponse, as if the request had gone out
    if native is not None:
        return native
    return _response(conn, request.method, answer.status, _reason(answer.status),
                     list(answer.headers.items()), answer.body)  # fmt: skip


def _live(conn: Any, request: _Request, content: bytes | None) -> tuple[Answer, Any]:
    """Send ``request`` for real on ``conn`` (``content`` in place of its body, if given),
    framed by a Content-Length; read the answer to its end."""
    body = request.body() if content is None else content
    _release(conn)
    _original["putrequest"](conn, request.method, request.target, **request.skips)
    for header, values in request.headers:
        if _text(header).lower() not in _FRAMING:
            _original["putheader"](conn, header, *values)
    if body or any(_text(k).lower() in _FRAMING for k, _ in request.headers):
        _original["putheader"](conn, "Content-Length", str(len(body)))
    _original["endheaders"](conn, body or None)
    raw = _original["getresponse"](conn)
    data = raw.read()
    headers: dict[str, str] = {}
    for name, value in raw.msg.items():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    decoded = _decoded(data, headers.get("content-encoding", ""))
    native = _response(conn, request.method, raw.status, raw.reason, raw.msg.items(), data)
    return Answer(raw.status, headers, decoded), native


def _response(conn: Any, method: str, status: int, reason: str, headers: Any, body: bytes) -> Any:
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{k}: {v}" for k, v in headers if k.lower() not in _FRAMING]
    lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    wire = SimpleNamespace(makefile=lambda *args: io.BytesIO(head + body))  # a socket, read
    response = conn.response_class(wire, method=method)
    response.begin()
    return response


def _url(conn: Any, target: str) -> str:
    """The absolute URL of a request: the target itself through a proxy, else the
    connection's scheme, host and port (the tunnel's, through a CONNECT proxy) and path."""
    if target.lower().startswith(("http://", "https://")):
        return target
    https = isinstance(conn, http.client.HTTPSConnection) or conn.default_port == 443
    tunnel = conn._tunnel_host
    host, port = (tunnel, conn._tunnel_port) if tunnel else (conn.host, conn.port)
    host = f"[{host}]" if ":" in host else host
    netloc = host if port in (None, 443 if https else 80) else f"{host}:{port}"
    path = target if target.startswith("/") else f"/{target}"
    return f"{'https' if https else 'http'}://{netloc}{path}"


def _read(data: Any) -> bytes:
    """A body as http.client would send it (str as latin-1), files and iterables read."""
    if data is None:
        return b""
    if isinstance(data, str):
        return data.encode("latin-1")
    if hasattr(data, "read"):
        return _read(data.read())
    try:
        return bytes(memoryview(data))
    except TypeError:
        return b"".join(_read(chunk) for chunk in data)


def _unchunked(data: bytes) -> bytes:
    out, rest = [], data
    try:
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            out.append(rest[:size])
            rest = rest[size + 2 :]
    except ValueError:
        return data
    return b"".join(out)


def _decoded(data: bytes, encoding: str) -> bytes:
    """The body the core stores: gzip or deflate undone (http.client leaves them)."""
    if encoding.strip().lower() in ("gzip", "x-gzip", "deflate"):
        try:
            return zlib.decompress(data, 47)  # 32 + 15: a gzip or a zlib header
        except zlib.error:
            pass
    return data


def _reason(status: int) -> str:
    return next((known.phrase for known in http.HTTPStatus if known == status), "")


def _text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes | bytearray) else str(value)
