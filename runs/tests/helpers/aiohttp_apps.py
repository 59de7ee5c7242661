"""Burr apps that make their calls with aiohttp, written as a user writes them (an async
``@action``, a ``ClientSession`` used directly, the endpoint from ``OPENAI_BASE_URL``): an LLM
call to ``/chat/completions`` (plain, or streamed and read as SSE lines) and a tool call (a GET
with a credential in its query and its headers). Each variant reads its answer another way, and
writes what it read (the text, the bytes' digest, the status and content type) to the state,
so that an identical replay means the caller read the same bytes the same way.
``test_capture_aiohttp.py`` registers one app per variant.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

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

Read = Callable[[Any], Awaitable[bytes]]


async def _read_all(resp: Any) -> bytes:
    raw = await resp.read()
    assert (await resp.text()).encode() == raw and await resp.json() == json.loads(raw)
    return raw


async def _lines(resp: Any) -> bytes:
    return b"".join([line async for line in resp.content])


async def _readline(resp: Any) -> bytes:
    lines = []
    while line := await resp.content.readline():
        lines.append(line)
    return b"".join(lines)


async def _chunked(resp: Any) -> bytes:
    return b"".join([chunk async for chunk in resp.content.iter_chunked(37)])


async def _any(resp: Any) -> bytes:
    return b"".join([chunk async for chunk in resp.content.iter_any()])


# name → (streamed?, how the answer is read, how the body is sent)
VARIANTS: dict[str, tuple[bool, Read, str]] = {
    "aiohttp_plain": (False, _read_all, "json"),
    "aiohttp_plain_iter_any": (False, _any, "data-bytes"),
    "aiohttp_stream": (True, _lines, "json"),
    "aiohttp_stream_readline": (True, _readline, "data-str"),
    "aiohttp_stream_chunked": (True, _chunked, "json"),
}


async def ask_with_aiohttp(stream: bool, read: Read, sent_as: str) -> dict[str, Any]:
    import aiohttp

    body = chat_body(stream)
    send: dict[str, Any] = {"json": body}
    if sent_as == "data-bytes":
        send = {
            "data": json.dumps(body).encode(),
            "headers": {**headers(), "Content-Type": "application/json"},
        }
    elif sent_as == "data-str":
        send = {
            "data": json.dumps(body),
            "headers": {**headers(), "Content-Type": "application/json"},
        }
    send.setdefault("headers", headers())
    # A base-URL session and a relative path (the full URL is what is captured).
    async with aiohttp.ClientSession(
        base_url=base_url() + "/", timeout=aiohttp.ClientTimeout(5)
    ) as session:
        async with session.post("chat/completions", **send) as resp:
            resp.raise_for_status()
            raw = await read(resp)
            seen = {
                "status": resp.status,
                "type": resp.headers.get("Content-Type", "").split(";")[0],
            }
        models = await session.get(
            f"{base_url()}/models", params={"api_key": CANARY}, headers=headers()
        )
        models.raise_for_status()
        ids = sorted(m["id"] for m in (await models.json())["data"])
        models.release()
    return {
        "answer": answer_text(raw, stream),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "seen": seen,
        "models": ids,
    }


def application(name: str) -> Application:
    stream, read, sent_as = VARIANTS[name]

    @action(reads=["question"], writes=["answer", "sha256", "seen", "models"])
    async def ask(state: State) -> State:
        return state.update(**await ask_with_aiohttp(stream, read, sent_as))

    return ask_then_count(ask)


def _factory(name: str) -> Callable[[], Application]:
    def build() -> Application:
        return application(name)

    return build


globals().update({name: _factory(name) for name in VARIANTS})
