"""The httpx adapter: ``httpx.Client.send`` / ``httpx.AsyncClient.send`` handed to the capture
core while a step runs — sync or async, which is what the ``openai`` SDK (< 3) uses.

Why a patch of ``send`` and not a library: the maintained candidates are test mocking tools
(respx, pytest-httpx) whose patching is started and stopped around a test and is
process-global, and vcrpy, whose cassettes are files keyed by URL and headers. Rewind needs
per-step, per-thread decisions (a contextvar) inside long-lived workers, keys without the host,
and pins — so it wraps the one public method every transport goes through, installed once,
idle outside a step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import httpx

from runs.engine.calls.capture.core import PreviewStop, current
from runs.engine.calls.inflight import call_lock

_installed = False
_original_send: Callable[..., Any] | None = None
_original_asend: Callable[..., Any] | None = None


def install() -> None:
    """Wrap ``httpx.Client.send`` and ``httpx.AsyncClient.send`` once per process. Outside a
    step (no active ``StepCalls``) they behave exactly as before."""
    global _installed, _original_send, _original_asend
    if _installed:
        return
    _original_send = httpx.Client.send
    _original_asend = httpx.AsyncClient.send

    def send(client: httpx.Client, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        calls = current()
        if calls is None:
            return _original_send(client, request, **kwargs)
        request, call, described = calls.prepare(request)
        entry = calls.lookup(call)
        if entry is not None:  # a hit takes no lock
            return calls.replayed(request, call, entry)
        locked = call.kind == "llm" and not calls.live  # identical llm calls go out once
        with call_lock(call.key) if locked else nullcontext():
            entry = calls.lookup(call) if locked else None  # stored while we waited?
            if entry is not None:
                return calls.replayed(request, call, entry)
            if calls.preview:
                raise PreviewStop(call.key)
            started = time.perf_counter()
            try:
                response = _original_send(client, request, **kwargs)
            except Exception:
                calls.failed(call, started)
                raise
            try:
                return calls.recorded(request, call, described, response)
            finally:
                call.latency_ms = round((time.perf_counter() - started) * 1000, 3)

    async def asend(
        client: httpx.AsyncClient, request: httpx.Request, **kwargs: Any
    ) -> httpx.Response:
        calls = current()
        if calls is None:
            return await _original_asend(client, request, **kwargs)
        request, call, described = calls.prepare(request)
        # Cache reads and writes are short synchronous ORM calls; the provider call is awaited.
        entry = await _in_thread(calls.lookup, call)
        if entry is not None:
            return calls.replayed(request, call, entry)
        if calls.preview:
            raise PreviewStop(call.key)
        started = time.perf_counter()
        try:
            response = await _original_asend(client, request, **kwargs)
            await response.aread()
        except Exception:
            calls.failed(call, started)
            raise
        try:
            return await _in_thread(calls.recorded, request, call, described, response)
        finally:
            call.latency_ms = round((time.perf_counter() - started) * 1000, 3)

    httpx.Client.send = send  # type: ignore[method-assign]
    httpx.AsyncClient.send = asend  # type: ignore[method-assign]
    _installed = True


async def _in_thread(function: Callable[..., Any], *args: Any) -> Any:
    from asgiref.sync import sync_to_async

    return await sync_to_async(function, thread_sensitive=True)(*args)
