"""Burr apps that make their calls through one HTTP library each, written as a user writes
them (plain ``@action`` functions, the library used directly, the endpoint from
``OPENAI_BASE_URL``): an LLM call (chat completions, plain or streamed) and a tool call (a GET
with a credential in its query and its headers). ``test_capture_transports.py`` registers one
app per (library, plain | streamed, sync | async).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

CANARY = "sk-canary-7f3a9c1e5b2d4f6a8c0e"  # a credential no stored byte may ever hold
QUESTION = "Which region converts best, and why?"


def base_url() -> str:
    return os.environ["OPENAI_BASE_URL"].rstrip("/")


def chat_body(stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "rewind-sim-1",
        "temperature": 0,
        "messages": [{"role": "user", "content": QUESTION}],
    }
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {CANARY}", "x-api-key": CANARY}


def answer_text(raw: bytes, stream: bool) -> str:
    if not stream:
        return json.loads(raw)["choices"][0]["message"]["content"]
    pieces = []
    for line in raw.decode().splitlines():
        if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
            chunk = json.loads(line[5:])
            for choice in chunk.get("choices") or []:
                pieces.append((choice.get("delta") or {}).get("content") or "")
    return "".join(pieces)


# -- one (sync, async) pair of calls per library ----------------------------------------------


def _httpx_like(module_name: str) -> tuple[Callable, Callable]:
    module = __import__(module_name)

    def sync_call(stream: bool) -> tuple[str, list[str]]:
        with module.Client(timeout=5) as client:
            if stream:
                with client.stream(
                    "POST",
                    f"{base_url()}/chat/completions",
                    json=chat_body(True),
                    headers=headers(),
                ) as response:
                    response.raise_for_status()
                    raw = b"".join(response.iter_bytes())
            else:
                response = client.post(
                    f"{base_url()}/chat/completions", json=chat_body(False), headers=headers()
                )
                response.raise_for_status()
                raw = response.content
            models = client.get(
                f"{base_url()}/models", params={"api_key": CANARY}, headers=headers()
            )
            models.raise_for_status()
        return answer_text(raw, stream), sorted(m["id"] for m in models.json()["data"])

    async def async_call(stream: bool) -> tuple[str, list[str]]:
        async with module.AsyncClient(timeout=5) as client:
            if stream:
                async with client.stream(
                    "POST",
                    f"{base_url()}/chat/completions",
                    json=chat_body(True),
                    headers=headers(),
                ) as response:
                    response.raise_for_status()
                    raw = b"".join([chunk async for chunk in response.aiter_bytes()])
            else:
                response = await client.post(
                    f"{base_url()}/chat/completions", json=chat_body(False), headers=headers()
                )
                response.raise_for_status()
                raw = response.content
            models = await client.get(
                f"{base_url()}/models", params={"api_key": CANARY}, headers=headers()
            )
            models.raise_for_status()
        return answer_text(raw, stream), sorted(m["id"] for m in models.json()["data"])

    return sync_call, async_call


def _openai_sdk() -> tuple[Callable, Callable]:
    import openai

    def sync_call(stream: bool) -> tuple[str, list[str]]:
        client = openai.OpenAI(base_url=base_url(), api_key=CANARY, max_retries=0)
        if stream:
            chunks = client.chat.completions.create(
                model="rewind-sim-1", temperature=0, stream=True, stream_options={"include_usage": True},
                messages=[{"role": "user", "content": QUESTION}],
            )  # fmt: skip
            text = "".join((c.choices[0].delta.content or "") for c in chunks if c.choices)
        else:
            reply = client.chat.completions.create(
                model="rewind-sim-1", temperature=0,
                messages=[{"role": "user", "content": QUESTION}],
            )  # fmt: skip
            text = reply.choices[0].message.content or ""
        return text, sorted(m.id for m in client.models.list())

    async def async_call(stream: bool) -> tuple[str, list[str]]:
        client = openai.AsyncOpenAI(base_url=base_url(), api_key=CANARY, max_retries=0)
        if stream:
            chunks = await client.chat.completions.create(
                model="rewind-sim-1", temperature=0, stream=True, stream_options={"include_usage": True},
                messages=[{"role": "user", "content": QUESTION}],
            )  # fmt: skip
            text = "".join([(c.choices[0].delta.content or "") async for c in chunks if c.choices])
        else:
            reply = await client.chat.completions.create(
                model="rewind-sim-1", temperature=0,
                messages=[{"role": "user", "content": QUESTION}],
            )  # fmt: skip
            text = reply.choices[0].message.content or ""
        models = [m.id async for m in client.models.list()]
        return text, sorted(models)

    return sync_call, async_call


def _requests() -> tuple[Callable, None]:
    import requests

    def sync_call(stream: bool) -> tuple[str, list[str]]:
        with requests.Session() as session:
            response = session.post(
                f"{base_url()}/chat/completions", json=chat_body(stream), headers=headers(),
                stream=stream, timeout=5,
            )  # fmt: skip
            response.raise_for_status()
            if stream:
                raw = b"\n".join(response.iter_lines()) + b"\n"
            else:
                raw = response.content
            models = session.get(
                f"{base_url()}/models", params={"api_key": CANARY}, headers=headers(), timeout=5
            )
            models.raise_for_status()
        return answer_text(raw, stream), sorted(m["id"] for m in models.json()["data"])

    return sync_call, None


LIBRARIES: dict[str, Callable[[], tuple[Callable, Callable | None]]] = {
    "httpx": lambda: _httpx_like("httpx"),
    "httpx2": lambda: _httpx_like("httpx2"),
    "openai": _openai_sdk,
    "requests": _requests,
}
ASYNC_LIBRARIES = ("httpx", "httpx2", "openai")  # requests has no async API


def application(library: str, stream: bool, is_async: bool) -> Application:
    sync_call, async_call = LIBRARIES[library]()

    if is_async:

        @action(reads=["question"], writes=["answer", "models"])
        async def ask(state: State) -> State:
            text, models = await async_call(stream)
            return state.update(answer=text, models=models)

    else:

        @action(reads=["question"], writes=["answer", "models"])
        def ask(state: State) -> State:
            text, models = sync_call(stream)
            return state.update(answer=text, models=models)

    return ask_then_count(ask)


@action(reads=["answer"], writes=["words"])
def count(state: State) -> State:
    return state.update(words=len(state["answer"].split()))


def ask_then_count(ask: Any) -> Application:
    """The app every transport test runs: ``ask`` (the calls), then a step of plain code."""
    return (
        ApplicationBuilder()
        .with_actions(ask=ask, count=count)
        .with_transitions(("ask", "count"))
        .with_state(question=QUESTION)
        .with_entrypoint("ask")
        .build()
    )


# Registry entries, by name: "<library>_<sync|async>_<plain|stream>" → a factory.
VARIANTS = {
    f"{library}_{'async' if is_async else 'sync'}_{'stream' if stream else 'plain'}": (
        library,
        stream,
        is_async,
    )
    for library in LIBRARIES
    for is_async in ((False, True) if library in ASYNC_LIBRARIES else (False,))
    for stream in (False, True)
}


def _factory(library: str, stream: bool, is_async: bool) -> Callable[[], Application]:
    def build() -> Application:
        return application(library, stream, is_async)

    return build


globals().update({name: _factory(*variant) for name, variant in VARIANTS.items()})

# The registry entries of every variant, by name: what a test adds to ``REWIND_PIPELINES``
# (``engine/calls/test_capture_transports.py`` and the tests that borrow its apps).
APPS = {name: f"runs.tests.helpers.transport_apps.{name}" for name in VARIANTS}
