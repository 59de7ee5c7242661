"""The httpx adapter, for ``httpx`` and for ``httpx2`` (its successor, with the same API: what
openai ≥ 3 and anthropic are built on): ``Client.send`` / ``AsyncClient.send`` of each handed
to the capture core while a step runs.

Why a patch of ``send`` and not a library: the maintained candidates are test mocking tools
(respx, pytest-httpx) whose patching is started and stopped around a test and is
process-global, and vcrpy, whose cassettes are files keyed by URL and headers. Rewind needs
per-step, per-thread decisions (a contextvar) inside long-lived workers, keys without the host,
and pins — so it wraps the one public method every request of a client goes through,
installed once per library, idle outside a step.

A live answer is read to its end before the caller sees it (``stream=True`` too), so that it
can be stored; the caller then iterates the bytes already read.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from runs.engine.calls.capture.core import Answer, Outgoing, current

LIBRARIES = ("httpx", "httpx2")
_installed: set[str] = set()


def install() -> None:
    """Wrap ``send`` of each of the libraries that is installed, once per process. Outside a
    step (no active ``StepCalls``) they behave exactly as before."""
    for name in LIBRARIES:
        if name in _installed:
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        _wrap(module, name)
        _installed.add(name)


def _outgoing(request: Any, library: str) -> Outgoing:
    try:
        content = request.content
    except Exception:  # noqa: BLE001 — a streaming request body: read it (it is sent as read)
        content = request.read()
    return Outgoing(
        request.method, str(request.url), list(request.headers.items()), content, library
    )


def _answer(response: Any) -> Answer:
    return Answer(response.status_code, dict(response.headers), response.content)


def _wrap(httpx: ModuleType, library: str) -> None:
    original_send = httpx.Client.send
    original_asend = httpx.AsyncClient.send

    def rebuilt(request: Any, content: bytes | None) -> Any:
        if content is None:
            return request
        headers = httpx.Headers(request.headers)
        headers["content-length"] = str(len(content))
        return httpx.Request(
            request.method, request.url, headers=headers, content=content,
            extensions=request.extensions,
        )  # fmt: skip

    def replayed(answer: Answer, request: Any) -> Any:
        return httpx.Response(
            answer.status, headers=answer.headers, content=answer.body, request=request
        )

    def send(client: Any, request: Any, **kwargs: Any) -> Any:
        calls = current()
        if calls is None:
            return original_send(client, request, **kwargs)

        def live(content: bytes | None) -> tuple[Answer, Any]:
            response = original_send(client, rebuilt(request, content), **kwargs)
            response.read()  # a streamed answer (send(stream=True)) is read here, to be stored
            return _answer(response), response

        answer, response = calls.exchange(_outgoing(request, library), live)
        return response if response is not None else replayed(answer, request)

    async def asend(client: Any, request: Any, **kwargs: Any) -> Any:
        calls = current()
        if calls is None:
            return await original_asend(client, request, **kwargs)

        async def live(content: bytes | None) -> tuple[Answer, Any]:
            response = await original_asend(client, rebuilt(request, content), **kwargs)
            await response.aread()
            return _answer(response), response

        answer, response = await calls.aexchange(_outgoing(request, library), live)
        return response if response is not None else replayed(answer, request)

    httpx.Client.send = send  # type: ignore[method-assign]
    httpx.AsyncClient.send = asend  # type: ignore[method-assign]
