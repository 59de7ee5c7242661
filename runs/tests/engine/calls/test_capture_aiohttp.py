"""aiohttp is captured (``capture.aiohttp_adapter``): a Burr app whose async step calls an LLM
and a tool with ``aiohttp`` records both against a loopback server, and with the server
stopped an unchanged replay is identical at zero tokens, the caller reading the same bytes
whichever way it reads them. Credentials never reach the database. Outside a step, and for a
websocket, aiohttp behaves exactly as before.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from asgiref.sync import async_to_sync

from runs.engine.calls import cache
from runs.engine.calls.capture import aiohttp_adapter
from runs.engine.calls.capture.core import StepCalls, current
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.engine.providers.simulator import Simulator
from runs.lib.sealing import mark
from runs.models import LLMCacheEntry, Run, ToolCacheEntry
from runs.tests.conftest import LoopbackProvider, everything_stored
from runs.tests.helpers import aiohttp_apps
from runs.tests.helpers.transport_apps import CANARY, chat_body, headers

APPS = {name: f"runs.tests.helpers.aiohttp_apps.{name}" for name in aiohttp_apps.VARIANTS}


@pytest.fixture(autouse=True)
def installed() -> None:
    aiohttp_adapter.install()  # until capture.install() registers the adapter itself
    aiohttp_adapter.install()  # idempotent
    assert aiohttp.ClientSession._request.__wrapped__.__name__ == "_request"


@pytest.fixture
def served(served_apps):
    """The aiohttp apps registered; ``served.start()`` serves the simulator on loopback."""
    return served_apps(APPS)


def run(name: str) -> Run:
    return execute_run(create_run(name, {}).pk)


@pytest.mark.parametrize("name", sorted(aiohttp_apps.VARIANTS))
def test_an_aiohttp_step_is_captured_and_replays_identical_with_the_server_stopped(served, name):
    served.start()
    source = run(name)
    assert source.status == Run.Status.COMPLETED, source.error
    ask = source.nodes.get(name="ask")
    assert ask.kind == "llm"
    kinds = [(c["kind"], c["endpoint"]) for c in ask.calls]
    assert kinds == [("llm", "chat/completions"), ("tool", "/v1/models")], kinds
    assert {c["library"] for c in ask.calls} == {"aiohttp"}
    assert ask.total_tokens > 0 and ask.calls[0]["total_tokens"] == ask.total_tokens
    assert ask.output["answer"] and ask.output["models"], ask.output
    streamed = aiohttp_apps.VARIANTS[name][0]
    expected = "text/event-stream" if streamed else "application/json"
    assert ask.output["seen"] == {"status": 200, "type": expected}

    served.stop()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    replayed = replay.nodes.get(name="ask")
    assert replayed.output == ask.output  # the same bytes, read the same way
    assert replayed.total_tokens == 0 and replayed.cache_source == "cache"
    assert [c["cache_source"] for c in replayed.calls] == ["cache", "tool-cache"]
    assert {c["library"] for c in replayed.calls} == {"aiohttp"}

    stored = everything_stored()
    assert CANARY not in stored
    tool = ToolCacheEntry.objects.get()
    assert tool.args["query"] == [["api_key", mark(CANARY)]]


def test_outside_a_step_aiohttp_behaves_as_before_and_nothing_is_recorded(served):
    url = served.start()

    async def calls() -> tuple[Any, ...]:
        assert current() is None
        async with aiohttp.ClientSession() as session:
            async with session.post(
                f"{url}/chat/completions", json=chat_body(True), headers=headers()
            ) as resp:
                connected = resp.connection is not None  # a live, unread response
                lines = [line async for line in resp.content]
            async with session.get(f"{url}/models", params={"api_key": CANARY}) as models:
                data = await models.json()
        return connected, resp.status, lines, data

    connected, status, lines, data = async_to_sync(calls)()
    assert connected and status == 200
    assert [line for line in lines if line.strip()][-1].strip() == b"data: [DONE]"
    assert data["data"]
    assert LLMCacheEntry.objects.count() == 0 and ToolCacheEntry.objects.count() == 0


# -- the adapter against a StepCalls directly: every way of reading, bodies, redirects, ws ----


def _step(**kwargs: Any) -> StepCalls:
    return StepCalls(sequence_id=0, action="ask", **kwargs)


READS = {
    "read": lambda r: r.read(),
    "lines": aiohttp_apps._lines,
    "readline": aiohttp_apps._readline,
    "chunked": aiohttp_apps._chunked,
    "any": aiohttp_apps._any,
}


async def _every_read(url: str, calls: StepCalls, session_options: dict | None = None) -> dict:
    """The same streamed call once per way of reading it, and what the caller saw."""
    seen: dict[str, Any] = {}
    with calls:
        async with aiohttp.ClientSession(**(session_options or {})) as session:
            for name, read in READS.items():
                async with session.post(
                    f"{url}/chat/completions", json=chat_body(True), headers=headers()
                ) as resp:
                    resp.raise_for_status()
                    seen[name] = await read(resp)
                    seen[f"{name} then text"] = await resp.text()  # what is left of the body
                    seen["head"] = (resp.status, resp.ok, resp.reason, resp.headers["content-type"])
                    seen["url"] = str(resp.url)
                    seen["history"] = resp.history
                seen["closed"] = resp.closed
                with pytest.raises(aiohttp.ClientConnectionError):
                    await resp.read()  # released by ``async with``, as aiohttp does
            resp = await session.get(f"{url}/models", params={"api_key": CANARY})
            seen["json"] = await resp.json()
            seen["again"] = await resp.read()
            seen["connection"] = resp.connection
            resp.release()
    await _stored(calls)
    return seen


async def _stored(calls: StepCalls) -> None:
    """What the recorder does when a step ends: store the async calls' answers (in a thread
    the ORM may use)."""
    from asgiref.sync import sync_to_async

    await sync_to_async(calls.store_pending, thread_sensitive=True)()


def test_a_replayed_response_reads_exactly_like_the_live_one(rewind_settings, db):
    checked: list[Any] = []

    async def check(resp: aiohttp.ClientResponse) -> None:
        checked.append(resp.status)

    options = {"raise_for_status": check}
    with Simulator().serve() as url:
        live = async_to_sync(_every_read)(url, _step(), options)
    replay_calls = _step()
    replayed = async_to_sync(_every_read)(url, replay_calls, options)  # the server is gone

    assert [c.cache_source for c in replay_calls.calls] == ["cache"] * len(READS) + ["tool-cache"]
    assert {c.library for c in replay_calls.calls} == {"aiohttp"}
    assert checked == [200] * (2 * (len(READS) + 1))  # the session's raise_for_status ran
    assert replayed == live | {"connection": None}
    body = live["read"]
    assert {name: live[name] for name in READS} == dict.fromkeys(READS, body)
    assert live["read then text"] == body.decode()  # read() keeps the body
    assert live["lines then text"] == live["any then text"] == ""  # a stream drains it
    assert live["read"].rstrip().endswith(b"data: [DONE]")
    assert replayed["head"] == live["head"] == (200, True, "OK", "text/event-stream")
    assert replayed["url"] == live["url"] == f"{url}/chat/completions"
    assert replayed["json"] == live["json"] and replayed["again"] == live["again"]
    assert replayed["history"] == () and replayed["closed"] and replayed["connection"] is None


def test_form_bytes_and_params_bodies_are_sent_and_keyed_as_aiohttp_sends_them(rewind_settings, db):
    def echo(call: Any) -> tuple[int, Any]:
        ctype = call.headers.get("Content-Type", "")
        return 200, {"path": call.path, "body": call.raw.decode(), "type": ctype}

    provider = LoopbackProvider(echo)

    async def send(url: str, calls: StepCalls) -> list[Any]:
        answers = []
        with calls:
            async with aiohttp.ClientSession(base_url=url + "/") as session:
                for options in (
                    {"data": {"q": "cats", "n": "2"}},
                    {"data": b"\x00raw"},
                    {"data": "text"},
                    {"json": {"q": "cats"}},
                    {},
                ):
                    async with session.post("search?x=1", params={"token": CANARY}, **options) as r:
                        answers.append(await r.json())
        await _stored(calls)
        return answers

    with provider.serve() as url:
        live_calls = _step()
        live = async_to_sync(send)(url, live_calls)
    replay_calls = _step()
    replayed = async_to_sync(send)(url, replay_calls)

    # The answer echoed the credential the request carried: stored with its fingerprint in its
    # place, given back exactly to the replay, which sends the same credential.
    assert replayed == live
    assert [a["body"] for a in live] == ["q=cats&n=2", "\x00raw", "text", '{"q": "cats"}', ""]
    assert live[0]["type"] == "application/x-www-form-urlencoded"
    assert live[3]["type"] == "application/json"
    assert {a["path"] for a in live} == {f"/v1/search?x=1&token={CANARY}"}
    assert len({c.key for c in live_calls.calls}) == 5  # each body its own key
    assert [c.cache_source for c in replay_calls.calls] == ["tool-cache"] * 5
    assert CANARY not in everything_stored()


def test_an_llm_override_sends_the_rewritten_body(rewind_settings, db):
    provider = LoopbackProvider()

    async def ask(url: str) -> dict:
        with _step(llm_model="rewind-sim-2", live=True) as calls:
            async with aiohttp.ClientSession() as session:
                async with session.post(f"{url}/chat/completions", json=chat_body(False)) as r:
                    return {"answer": await r.json(), "calls": calls.calls}

    with provider.serve() as url:
        result = async_to_sync(ask)(url)
    assert provider.chat_calls()[0].json["model"] == "rewind-sim-2"
    assert provider.chat_calls()[0].headers["Content-Type"] == "application/json"
    assert result["calls"][0].model_requested == "rewind-sim-2"


async def _web_server(stack: Any) -> str:
    async def echo(request: web.Request) -> web.Response:
        return web.json_response({"path": request.path_qs, "body": await request.text()})

    async def old(request: web.Request) -> web.Response:
        raise web.HTTPFound("/echo?moved=1")

    async def missing(request: web.Request) -> web.Response:
        return web.json_response({"error": "no"}, status=404)

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(f"echo {message.data}")
        return ws

    app = web.Application()
    app.add_routes([web.get("/echo", echo), web.get("/old", old), web.get("/missing", missing),
                    web.get("/ws", socket)])  # fmt: skip
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    stack.push_async_callback(runner.cleanup)
    return f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"


def test_a_redirect_is_one_call_answered_where_it_ended_and_a_websocket_passes_through(
    rewind_settings, db
):
    from contextlib import AsyncExitStack

    async def scenario() -> dict:
        async with AsyncExitStack() as stack:
            url = await _web_server(stack)
            out: dict[str, Any] = {}
            async with aiohttp.ClientSession() as session:
                with _step() as calls:
                    async with session.get(f"{url}/old") as r:
                        out["live"] = (r.status, await r.json(), len(r.history))
                    async with session.ws_connect(f"{url}/ws") as ws:
                        await ws.send_str("hi")
                        out["ws"] = (await ws.receive()).data
                    with pytest.raises(aiohttp.ClientResponseError) as error:
                        await session.get(f"{url}/missing", raise_for_status=True)
                    out["error"] = error.value.status
                    async with aiohttp.request("GET", f"{url}/echo", params={"x": "2"}) as r:
                        out["module"] = await r.json()  # aiohttp.request: its own session
                    out["calls"] = list(calls.calls)
                await _stored(calls)
                await stack.aclose()  # the server is gone: the redirect answers from the cache
                with _step() as calls:
                    async with session.get(f"{url}/old") as r:
                        out["replayed"] = (r.status, await r.json(), len(r.history))
                    out["replay_calls"] = list(calls.calls)
            return out

    out = async_to_sync(scenario)()
    assert out["ws"] == "echo hi"
    assert out["live"] == (200, {"path": "/echo?moved=1", "body": ""}, 1)
    assert out["replayed"] == (200, {"path": "/echo?moved=1", "body": ""}, 0)
    assert out["error"] == 404
    assert [(c.endpoint, c.status, c.cache_source) for c in out["calls"]] == [
        ("/old", 200, "live"),  # the redirect and the websocket are no calls of their own
        ("/missing", 404, "live"),
        ("/echo", 200, "live"),
    ]
    assert out["module"] == {"path": "/echo?x=2", "body": ""}
    # A 404 is kept as what that attempt got (a replay gives it back), never as an answer.
    missing = ToolCacheEntry.objects.get(pk=out["calls"][1].entry.removeprefix("tool:"))
    assert missing.failed and missing.result["status"] == 404
    assert cache.get_tool(missing.key, 0) is None
    assert [c.cache_source for c in out["replay_calls"]] == ["tool-cache"]
    redirected = ToolCacheEntry.objects.get(args__endpoint="/old")
    assert json.loads(redirected.result["text"])["path"] == "/echo?moved=1"
