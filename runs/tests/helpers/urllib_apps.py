"""Burr apps that make their calls through the standard library, written as a user writes
them: ``urllib.request.urlopen(Request(...))``, a raw ``http.client.HTTPConnection`` (the
high-level ``request()`` for the LLM call, the low-level ``putrequest``/``putheader``/
``endheaders`` for the tool call, both on one connection), urllib3's own ``HTTPConnection``
(a subclass of http.client's, used without a pool) and a urllib3 ``PoolManager``. Each makes an LLM call
to ``{OPENAI_BASE_URL}/chat/completions`` (plain or streamed, the SSE read line by line) and a
tool call (``GET /models?api_key=<canary>`` with the canary as a bearer token).
``test_capture_urllib.py`` registers one app per (library, plain | streamed).
"""

from __future__ import annotations

import http.client
import json
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from burr.core import Application, State
from burr.core.action import action

from runs.tests.helpers.transport_apps import (
    CANARY,
    answer_text,
    ask_then_count,
    base_url,
    chat_body,
    headers,
)


def _sse(lines: Any) -> bytes:
    """The stream as the caller reads it: line by line, up to ``data: [DONE]``."""
    read = []
    for line in lines:
        read.append(line)
        if line.strip() == b"data: [DONE]":
            break
    return b"".join(read)


def urllib_call(stream: bool) -> tuple[str, list[str]]:
    request = urllib.request.Request(
        f"{base_url()}/chat/completions",
        data=json.dumps(chat_body(stream)).encode(),
        headers={**headers(), "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200 and response.reason == "OK", response.status
        assert response.headers.get_content_type() == (
            "text/event-stream" if stream else "application/json"
        )
        raw = _sse(response) if stream else response.read()
    models = urllib.request.Request(f"{base_url()}/models?api_key={CANARY}", headers=headers())
    with urllib.request.urlopen(models, timeout=5) as response:
        listed = json.load(response)
    return answer_text(raw, stream), sorted(m["id"] for m in listed["data"])


def connection_call(connection_class: type, stream: bool) -> tuple[str, list[str]]:
    url = urlsplit(base_url())
    conn = connection_class(url.hostname, url.port, timeout=5)
    stdlib = connection_class is http.client.HTTPConnection
    unread = {} if stdlib else {"preload_content": False}  # urllib3's, to read it as it comes
    try:
        conn.request(
            "POST", f"{url.path}/chat/completions", body=json.dumps(chat_body(stream)),
            headers={**headers(), "Content-Type": "application/json"}, **unread,
        )  # fmt: skip
        response = conn.getresponse()
        assert response.status == 200 and response.reason == "OK", response.status
        if stream:
            assert response.getheader("Content-Type") == "text/event-stream"
            raw = _sse(iter(response.readline, b""))
        else:
            assert response.getheader("Content-Type") == "application/json"
            raw = response.read()
        models = f"{url.path}/models?api_key={CANARY}"
        if stdlib:
            conn.putrequest("GET", models)
            conn.putheader("Authorization", f"Bearer {CANARY}")
            conn.endheaders()
        else:  # urllib3's getresponse answers only its own request()
            conn.request("GET", models, headers={"Authorization": f"Bearer {CANARY}"}, **unread)
        listed = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    return answer_text(raw, stream), sorted(m["id"] for m in listed["data"])


def _urllib3_connection(stream: bool) -> tuple[str, list[str]]:
    import urllib3.connection

    return connection_call(urllib3.connection.HTTPConnection, stream)


def pool_call(stream: bool) -> tuple[str, list[str]]:
    import urllib3

    with urllib3.PoolManager(timeout=5, retries=False) as pool:
        response = pool.request(
            "POST", f"{base_url()}/chat/completions", body=json.dumps(chat_body(stream)),
            headers={**headers(), "Content-Type": "application/json"}, preload_content=False,
        )  # fmt: skip
        raw = b"".join(response.stream(64))
        listed = pool.request(
            "GET", f"{base_url()}/models?api_key={CANARY}", headers=headers(), preload_content=False
        ).json()
    return answer_text(raw, stream), sorted(m["id"] for m in listed["data"])


LIBRARIES: dict[str, Callable[[bool], tuple[str, list[str]]]] = {
    "urllib": urllib_call,
    "httpclient": lambda stream: connection_call(http.client.HTTPConnection, stream),
    "urllib3conn": _urllib3_connection,
    "urllib3pool": pool_call,
}


def application(library: str, stream: bool) -> Application:
    call = LIBRARIES[library]

    @action(reads=["question"], writes=["answer", "models"])
    def ask(state: State) -> State:
        text, models = call(stream)
        return state.update(answer=text, models=models)

    return ask_then_count(ask)


# Registry entries, by name: "<library>_<plain|stream>" → a factory.
VARIANTS = {
    f"{library}_{'stream' if stream else 'plain'}": (library, stream)
    for library in LIBRARIES
    for stream in (False, True)
}


def _factory(library: str, stream: bool) -> Callable[[], Application]:
    def build() -> Application:
        return application(library, stream)

    return build


globals().update({name: _factory(*variant) for name, variant in VARIANTS.items()})
