"""The MCP adapter (DESIGN.md, "Beyond HTTP libraries"): every request an ``mcp`` client
session sends while a step runs — ``initialize``, ``tools/list``, ``tools/call``,
``resources/*``, ``prompts/*``, … — is a call of the step, keyed by its JSON-RPC method and
params; the transport under the session (a server process over stdio, Streamable HTTP, SSE)
is started only when the step may go live.

Where: mcp 2.x's ``ClientSession`` hands every request to its dispatcher's one raw send
point, ``send_raw_request(method, params, opts)``, which returns the JSON-RPC result as a dict
or raises ``MCPError`` with the error the server answered; notifications go through
``notify``. Each session's dispatcher is wrapped as the session is made
(``ClientSession.__init__``), whatever transport or in-process server is under it.

- A request is an ``Outgoing`` with the method ``MCP`` and the URL ``mcp:///<method>``
  (endpoint ``/tools/call``), its content the canonical JSON of the params without ``_meta``
  (protocol version, client info, progress token, trace context): never the session id or
  the request id, which are the transport's and the dispatcher's, not the question.
- A result is stored as status 200 and the result's JSON; a JSON-RPC error as a failed attempt
  (status 400 for the request's fault, 500 otherwise) with the error's JSON, so a replay raises
  the same ``MCPError``. A connection closed or a local timeout is a transport error, never
  stored.
- Notifications are not calls: on a guarded step they go nowhere.

The transports (``stdio_client``, ``streamable_http_client``, ``sse_client``) are
``@asynccontextmanager`` functions an app imports by name (in a process where ``mcp`` was
imported before the adapter could watch for it, before the patch), so replacing the module
attribute would not reach every name: the generator function their wrapper closes over is
replaced instead, which every name they were imported under shares. Outside a step a transport is what it was. On a guarded step (every
request is answered from the cache: an unchanged replay, a fork's step that re-executes as
its source did) it starts nothing — no server process, no connection — and yields streams that
lead nowhere: a request reaching them (a guarded step's miss) is refused. On any other step
the real transport is entered and left under ``core.sending()``, so the tasks it starts (the
pipe readers, the POST writer, the GET stream) inherit it: its process start and HTTP requests
belong to the MCP call, not to the subprocess or HTTP adapters, and nothing is recorded twice.
The session writes under ``sending()`` too (a notification's POST, its answer to a server's
request), while a server's request (sampling, elicitation) is handled in the session's own
context, not the transport task's it arrived in: the LLM call a sampling callback makes is a
call of the step.

When: the adapter patches ``mcp`` right after its first import, wherever that happens — when
the app's module imports it (the guard's early install, before the registered app is
imported, registers the hook: ``capture.install_guard``), or inside an action's body on the
first step that runs it — and at once if it is imported already. So a session or ``Client``
made at import is captured too, and an SDK first imported inside the action is captured on
that first run.

Not replayed as it happened: a ``subscriptions/listen`` stream is one call, whose replay gives
its final result at once, without the events between.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from runs.engine.calls.capture import guard, imports
from runs.engine.calls.capture.core import Answer, Outgoing, current, current_step, sending
from runs.lib.hashing import canonical_json

LIBRARY = "mcp"
METHOD = "MCP"
JSON = {"content-type": "application/json"}
# JSON-RPC errors that are the request's fault (parse error, invalid request, method not
# found, invalid params): stored as a 400; any other error as a 500.
REQUEST_ERRORS = frozenset({-32700, -32600, -32601, -32602})
# The transports the adapter starts only on a step that may go live: (module, function).
TRANSPORTS = (
    ("mcp.client.stdio", "stdio_client"),
    ("mcp.client.streamable_http", "streamable_http_client"),
    ("mcp.client.sse", "sse_client"),
)
_installed: bool | None = False  # None: an mcp this adapter does not know (1.x)


def install() -> None:
    """Wrap ``ClientSession``'s dispatcher and the transports as soon as ``mcp`` is imported:
    now if it is, else right after its first import (``imports.after_import``) — at the app's
    import or inside an action's body. Importing it here would cost every process half a
    second, whether its app uses MCP or not. Outside a step they behave exactly as before."""
    imports.after_import("mcp.client.session", "mcp sessions", _install_sessions)
    for module_name, name in TRANSPORTS:
        imports.after_import(
            module_name, f"mcp {name}", lambda module, name=name: _replace_generator(module, name)
        )


def _install_sessions(session: Any) -> None:
    global _installed
    if _installed is not False:
        return  # wrapped already, or an mcp this adapter does not know
    if "dispatcher" not in inspect.signature(session.ClientSession).parameters:
        _installed = None  # mcp 1.x: no dispatcher to wrap; its calls are not captured
        return
    _wrap_sessions(session.ClientSession)
    _installed = True


# -- requests -------------------------------------------------------------------------------


def _outgoing(method: str, params: Mapping[str, Any] | None) -> Outgoing:
    asked = {k: v for k, v in (params or {}).items() if k != "_meta"}
    return Outgoing(METHOD, f"mcp:///{method}", [], canonical_json(asked).encode(), LIBRARY)


def _error_answer(error: Any) -> Answer:
    status = 400 if error.code in REQUEST_ERRORS else 500
    body = error.error.model_dump(by_alias=True, mode="json", exclude_none=True)
    return Answer(status, dict(JSON), json.dumps(body).encode())


def _replayed(answer: Answer) -> dict[str, Any]:
    """A cached answer as the dispatcher gives it: the result, or the error raised."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import ErrorData

    if 200 <= answer.status < 300:
        return json.loads(answer.body)
    raise MCPError.from_error_data(ErrorData.model_validate_json(answer.body))


class _CapturedDispatcher:
    """A client session's dispatcher whose requests are calls of the running step; all else
    (its receive loop, its attributes) is the dispatcher's own."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send_raw_request(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        opts: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        calls = current()
        if calls is None:
            return await self._inner.send_raw_request(method, params, opts, **kwargs)
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        async def live(_content: bytes | None) -> tuple[Answer, Any]:
            try:
                result = await self._inner.send_raw_request(method, params, opts, **kwargs)
            except MCPError as error:
                if error.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                    raise  # the transport's failure, not the server's answer: never stored
                return _error_answer(error), error
            return Answer(200, dict(JSON), json.dumps(result).encode()), result

        answer, native = await calls.aexchange(_outgoing(method, params), live)
        if isinstance(native, MCPError):
            raise native
        return native if native is not None else _replayed(answer)

    async def notify(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None, **kwargs: Any
    ) -> None:
        calls = current()
        if calls is None:
            await self._inner.notify(method, params, opts, **kwargs)
        elif not calls.guarded:  # a guarded step's notifications go nowhere
            with sending():  # the transport's own write (an HTTP POST) is not a call
                await self._inner.notify(method, params, opts, **kwargs)


def _wrap_sessions(session_class: type) -> None:
    original_init = session_class.__init__

    def __init__(session: Any, *args: Any, **kwargs: Any) -> None:
        original_init(session, *args, **kwargs)
        if not isinstance(session._dispatcher, _CapturedDispatcher):
            session._dispatcher = _CapturedDispatcher(session._dispatcher)

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    session_class.__init__ = __init__  # type: ignore[method-assign]


# -- transports -----------------------------------------------------------------------------


def _replace_generator(module: Any, name: str) -> None:
    """Put ``_transport`` around ``module.name`` — a function ``@asynccontextmanager`` made —
    under every name it was imported by: that wrapper reads the generator function from its
    closure at each call, so the closure cell is what changes. (Were it ever another kind of
    function, only the module attribute could change.)"""
    helper = getattr(module, name, None)
    if helper is None:
        return
    cells = dict(zip(helper.__code__.co_freevars, helper.__closure__ or (), strict=True))
    cell = cells.get("func")
    if cell is None:
        setattr(module, name, asynccontextmanager(_transport(helper)))
    elif not hasattr(cell.cell_contents, "__rewind_original__"):
        cell.cell_contents = _transport(asynccontextmanager(cell.cell_contents))


def _transport(opened: Callable[..., Any]) -> Callable[..., AsyncIterator[Any]]:
    """The generator of a transport ``opened(*args)`` enters: the real one outside a step,
    streams that lead nowhere on a guarded step, the real one under ``sending()`` otherwise."""

    async def transport(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        calls = current()  # when the transport is entered, not when it was made
        if calls is None:
            async with opened(*args, **kwargs) as streams:
                yield streams
        elif calls.guarded:
            async with _nowhere() as streams:
                yield streams
        else:
            async with _live(opened(*args, **kwargs)) as streams:
                yield streams

    transport.__rewind_original__ = opened  # type: ignore[attr-defined]
    return transport


@asynccontextmanager
async def _live(manager: AbstractAsyncContextManager[Any]) -> AsyncIterator[Any]:
    """The real transport, entered and left under ``sending()``: what it starts is the MCP
    call's, not a call (or an uncaptured process or connection) of its own."""
    with sending():
        read, write = await manager.__aenter__()
    try:
        yield _Received(read), _SentByCapture(write)
    except BaseException:
        with sending():
            if not await manager.__aexit__(*sys.exc_info()):
                raise
    else:
        with sending():
            await manager.__aexit__(None, None, None)


@asynccontextmanager
async def _nowhere() -> AsyncIterator[tuple[Any, Any]]:
    """The streams of a transport not started: nothing ever arrives on the one; on the other a
    notification is dropped and a request refused."""
    import anyio

    never_sent, received = anyio.create_memory_object_stream[Any](0)
    try:
        yield received, _Unsent()
    finally:
        never_sent.close()
        received.close()


class _Unsent:
    """Where a guarded step's session writes: nowhere. A request can only get here when the
    cache could not answer it on a step that was not to go live (a fork's step that
    re-executes as its source did, and asks something else): refused, naming it."""

    async def send(self, item: Any) -> None:
        from mcp_types import JSONRPCRequest

        message = getattr(item, "message", item)
        if isinstance(message, JSONRPCRequest):
            raise _refusal(message.method)

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass

    async def __aenter__(self) -> _Unsent:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        pass


def _refusal(method: str) -> guard.NotCaptured:
    message = (
        f"sent {METHOD} /{method} to an MCP server a replay does not start (from "
        f"{guard.opened_by()}): the recorded step never made this call; run with "
        "--allow-network (or REWIND_ALLOW_NETWORK=true) to let it"
    )
    calls = current_step()  # the capture is sending it: current() is None here
    if calls is not None:
        calls.refused = calls.refused or message
    return guard.NotCaptured(message)


class _Received:
    """A live transport's read stream, without the sender's context the dispatcher would run
    each inbound message's handler in (``last_context``): that is the transport's task, which
    the capture is sending from; a server's request (sampling, elicitation) is handled in the
    session's own context, so the calls its callback makes are the step's."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def receive(self) -> Any:
        return await self._inner.receive()

    def __aiter__(self) -> _Received:
        return self

    async def __anext__(self) -> Any:
        return await self._inner.__anext__()

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Received:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.aclose()


class _SentByCapture:
    """A live transport's write stream, written under ``sending()``: what the transport does
    with a message (an HTTP POST, in the writer's context) is the MCP call's, not a call of
    its own — a request's (already sent by the capture), a notification's, and an answer the
    session gives to the server's request."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any) -> None:
        with sending():
            await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _SentByCapture:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.aclose()
