"""A loopback stand-in for the Tavily search API, reached the way tavily-python allows: through
an HTTPS proxy (``TAVILY_HTTPS_PROXY``), since the client has no base-URL variable.

:class:`TavilyStub` is an HTTP proxy on 127.0.0.1 that accepts ``CONNECT api.tavily.com:443``,
answers 200, then terminates TLS itself with a certificate for ``api.tavily.com`` issued by a
test CA (``trustme``) — the client trusts it through ``REQUESTS_CA_BUNDLE`` — reads the HTTP
request inside the tunnel and answers ``POST /search`` with a Tavily-shaped JSON response
derived from the query (:func:`search_response`: another query, other results). Every
request it reads is kept in :attr:`TavilyStub.requests`; a CONNECT to any other host is a 403
and is kept in :attr:`TavilyStub.refused`.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import trustme

TAVILY_HOST = "api.tavily.com"
TUNNEL = f"{TAVILY_HOST}:443"


@dataclass(frozen=True)
class SearchRequest:
    """One request the stub read inside a tunnel."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body (None when it was not JSON)

    @property
    def query(self) -> str | None:
        return self.body.get("query") if isinstance(self.body, dict) else None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48] or "empty"


def search_response(query: str, max_results: int = 5, include_raw_content: bool = False) -> dict:
    """A deterministic Tavily ``/search`` answer for ``query`` (the same query, the same bytes)."""
    digest = hashlib.sha256(query.encode("utf-8")).hexdigest()
    slug = _slug(query)
    results = []
    for i in range(max(1, min(int(max_results or 5), 20))):
        results.append(
            {
                "title": f"{query} (source {i + 1})",
                "url": f"https://{digest[:8]}.example.test/{slug}/{i + 1}",
                "content": f"A short extract about {query}; reference {digest[8 + i : 16 + i]}.",
                "raw_content": (
                    f"The full text of source {i + 1} about {query}. It discusses {query} "
                    f"at length (document {digest[:12]}-{i + 1})."
                    if include_raw_content
                    else None
                ),
                "score": round(0.9 - 0.1 * i, 3),
            }
        )
    return {
        "query": query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": results,
        "response_time": 0.01,
        "request_id": digest[:32],
    }


class TavilyStub:
    """``with TavilyStub(tmp_path).serve() as proxy_url:`` — see the module docstring."""

    def __init__(self, directory: Path) -> None:
        self.ca = trustme.CA()
        self.ca_path = Path(directory) / "tavily-test-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_path))
        self._tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert(TAVILY_HOST).configure_cert(self._tls)
        self.requests: list[SearchRequest] = []
        self.connects: list[str] = []
        self.refused: list[str] = []
        self.url = ""
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()

    @property
    def queries(self) -> list[str | None]:
        return [r.query for r in self.requests]

    def _track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            (self._open.add if add else self._open.discard)(sock)

    def _handlers(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Inside(BaseHTTPRequestHandler):
            """The HTTP exchange inside the TLS tunnel: one request, then close."""

            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length > 0 else b""
                try:
                    body = json.loads(raw.decode("utf-8") or "null")
                except (ValueError, UnicodeDecodeError):
                    body = None
                request = SearchRequest(self.command, self.path, dict(self.headers.items()), body)
                with stub._lock:
                    stub.requests.append(request)
                if self.path.split("?")[0] == "/search" and isinstance(request.query, str):
                    status, answer = (
                        200,
                        search_response(
                            request.query,
                            body.get("max_results") or 5,
                            bool(body.get("include_raw_content")),
                        ),
                    )
                else:
                    status, answer = 404, {"detail": {"error": f"no stub for {self.path}"}}
                self._send(status, answer)

            def do_GET(self) -> None:  # noqa: N802
                with stub._lock:
                    stub.requests.append(
                        SearchRequest(self.command, self.path, dict(self.headers.items()), None)
                    )
                self._send(404, {"detail": {"error": f"no stub for {self.path}"}})

            def _send(self, status: int, answer: dict) -> None:
                data = json.dumps(answer).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent."""

        class Proxy(BaseHTTPRequestHandler):
            """The proxy: ``CONNECT api.tavily.com:443`` only, then TLS as api.tavily.com."""

            protocol_version = "HTTP/1.1"

            def do_CONNECT(self) -> None:  # noqa: N802
                self.close_connection = True
                with stub._lock:
                    stub.connects.append(self.path)
                if self.path != TUNNEL:
                    with stub._lock:
                        stub.refused.append(self.path)
                    self.send_error(403, f"the stub tunnels to {TUNNEL} only")
                    return
                self.send_response(200, "Connection established")
                self.end_headers()
                self.wfile.flush()
                try:
                    tls = stub._tls.wrap_socket(self.connection, server_side=True)
                except (ssl.SSLError, OSError):
                    return  # the client did not trust the certificate, or went away
                stub._track(tls, True)
                try:
                    Inside(tls, self.client_address, self.server)
                except OSError:
                    pass
                finally:
                    stub._track(tls, False)
                    try:
                        tls.close()
                    except OSError:
                        pass

            def do_GET(self) -> None:  # noqa: N802
                self.close_connection = True
                self.send_error(405, "a proxy for CONNECT only")

            do_POST = do_GET  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent."""

        return Proxy

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve on 127.0.0.1 (a free port) in a daemon thread; yields the proxy's URL. On exit
        the server stops and every open tunnel is shut."""
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handlers())
        server.daemon_threads = True
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield self.url
        finally:
            server.shutdown()
            server.server_close()
            with self._lock:
                still_open = list(self._open)
            for sock in still_open:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            thread.join(timeout=5)
