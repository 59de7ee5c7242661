"""The gRPC adapter, for ``grpc`` (sync) and ``grpc.aio``: a call a step makes through a
channel is handed to the capture core (DESIGN.md, "Beyond HTTP libraries").

grpcio opens its sockets in C, where the guard never sees them, so a call is captured where
its protocol is known: the multicallable a stub holds. Their classes are patched (sync
``__call__``/``with_call``/``future`` of each shape, ``grpc.aio``'s ``__call__``), so a stub
built at import, before ``install()``, is captured too. A call is an ``Outgoing``
``GRPC grpc:///pkg.Service/Method`` — never the target — whose body is the request as the
multicallable's serializer makes it (a protobuf message deterministically: a map's order
changes from one process to the next, the key must not); a client stream's messages framed as
on the wire (a flag byte, a 4-byte big-endian length, the message). The call's metadata are its
headers: the core finds credentials in them and stores none.

The answer is the response message (a server stream framed the same way), status 200. Any
other status is an answer too, with a non-2xx status (UNAVAILABLE 503, RESOURCE_EXHAUSTED 429 …)
and as body its code, details, the messages before it and its ``grpc-status-details-bin``:
the core keeps it as a failed attempt, so a retry loop replays the same path. A status the
client gave itself (UNAVAILABLE when it could not connect, DEADLINE_EXCEEDED) is one too: a
status is all gRPC says of it, and a replay takes the path the recording took. Live or
replayed, the caller gets what grpcio gives once a call has ended, built from the answer
(``_EndedCall``: response, ``grpc.Call``, ``grpc.Future``, iterator, and ``RpcError`` when it
failed; for ``grpc.aio`` an awaitable, iterable call that raises ``AioRpcError``): a replay
never reaches the C core, so it opens no connection.

Limits: a call runs to its end before its caller sees it. A response stream is read whole (one
that never ends never returns while recording); a request stream is read whole before it is
sent, so a bidirectional stream whose next request waits for a response cannot be captured;
``future()`` returns with its answer in. What metadata the server sends is not kept (it may
carry credentials), but for the status details. ``grpc.aio`` interceptors run around a live
call, not on a replay.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import functools
import json
from typing import Any

from runs.engine.calls.capture.core import Answer, Outgoing, current

# google.rpc.Code's own HTTP mapping; any other code (UNKNOWN, INTERNAL, DATA_LOSS) is a 500.
HTTP_STATUS = {
    "OK": 200, "INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "NOT_FOUND": 404, "ABORTED": 409,
    "ALREADY_EXISTS": 409, "RESOURCE_EXHAUSTED": 429, "CANCELLED": 499, "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503, "DEADLINE_EXCEEDED": 504,
}  # fmt: skip
STATUS_DETAILS = "grpc-status-details-bin"  # a google.rpc.Status: the error's rich details
SHAPES = {  # multicallable → (request streamed, response streamed)
    "UnaryUnary": (False, False), "UnaryStream": (False, True),
    "StreamUnary": (True, False), "StreamStream": (True, True),
}  # fmt: skip
ARGUMENTS = ("timeout", "metadata", "credentials", "wait_for_ready", "compression")
_grpc: Any = None  # the grpc module, once installed
_Ended: Any = None  # _EndedCall as a grpc.RpcError, grpc.Call and grpc.Future


def install() -> None:
    """Patch the multicallables of ``grpc`` and ``grpc.aio``, once per process (nothing to do
    without grpcio). Outside a step (no active ``StepCalls``) they behave exactly as before."""
    global _grpc, _Ended
    if _grpc is not None:
        return
    try:
        import grpc
        from grpc import _channel
        from grpc.aio import _channel as aio
    except ImportError:
        return
    _grpc = grpc
    _Ended = type("_Ended", (_EndedCall, grpc.RpcError, grpc.Call, grpc.Future), {})
    for name, (streams_in, streams_out) in SHAPES.items():
        _patch(getattr(_channel, f"_{name}MultiCallable"), streams_in, streams_out)
        _patch_aio(getattr(aio, f"{name}MultiCallable"), streams_in, streams_out)
    _patch(_channel._SingleThreadedUnaryStreamMultiCallable, False, True)


def _returns(value: Any) -> Any:
    return lambda self, *args, **kwargs: value


class _EndedCall:
    """A call that has ended, as grpcio's own objects are then: the future of its response,
    the iterator of its stream, its ``grpc.Call`` and — when it failed — its ``RpcError``."""

    is_active = running = cancel = cancelled = add_callback = _returns(False)
    done = _returns(True)
    time_remaining = _returns(None)
    initial_metadata = _returns(())

    def __init__(self, code: Any, details: str, messages: list, trailing: tuple) -> None:
        self._code, self._details, self._trailing = code, details, trailing
        self._messages, self._next = messages, iter(messages)

    def ok(self) -> bool:
        return self._code is _grpc.StatusCode.OK

    def code(self) -> Any:
        return self._code

    def details(self) -> str:
        return self._details

    debug_error_string = details

    def trailing_metadata(self) -> tuple:
        return self._trailing

    def add_done_callback(self, fn: Any) -> None:
        fn(self)

    def result(self, timeout: float | None = None) -> Any:
        if not self.ok():
            raise self  # type: ignore[misc]
        return self._messages[-1] if self._messages else None

    def exception(self, timeout: float | None = None) -> Any:
        return None if self.ok() else self

    def traceback(self, timeout: float | None = None) -> Any:
        return None if self.ok() else self.__traceback__  # type: ignore[attr-defined]

    def __iter__(self) -> _EndedCall:
        return self

    def __next__(self) -> Any:
        for message in self._next:
            return message
        if not self.ok():
            raise self  # type: ignore[misc]
        raise StopIteration

    next = __next__

    def __str__(self) -> str:
        return f"<{type(self).__name__} of RPC that ended with {self._code}: {self._details!r}>"

    __repr__ = __str__


def _outgoing(callable_: Any, messages: list, streamed: bool, kwargs: dict, library: str):
    serializer = callable_._request_serializer
    data = [_serialized(serializer, message) for message in messages]
    metadata = kwargs.get("metadata") or ()
    headers = [
        (str(k), v.decode("latin-1") if isinstance(v, bytes) else str(v)) for k, v in metadata
    ]
    path = callable_._method.decode() if isinstance(callable_._method, bytes) else callable_._method
    body = _frame(data) if streamed else data[0]
    return Outgoing("GRPC", "grpc://" + path, headers, body, library)


def _serialized(serializer: Any, message: Any) -> bytes:
    if serializer is None:
        return message
    if getattr(serializer, "__name__", "") == "SerializeToString" and hasattr(
        message, "DESCRIPTOR"
    ):
        return message.SerializeToString(deterministic=True)
    return serializer(message)


def _frame(messages: list[bytes]) -> bytes:
    return b"".join(b"\0" + len(m).to_bytes(4, "big") + m for m in messages)


def _unframe(body: bytes) -> list[bytes]:
    messages, at = [], 0
    while at + 5 <= len(body):
        size = int.from_bytes(body[at + 1 : at + 5], "big")
        messages.append(body[at + 5 : at + 5 + size])
        at += 5 + size
    return messages


def _keeping(callable_: Any) -> tuple[Any, list[bytes]]:
    """A copy of the multicallable that keeps each response message's bytes as they arrive."""
    raw, got = copy.copy(callable_), []
    deserializer = callable_._response_deserializer

    def keep(data: bytes) -> Any:
        got.append(data)
        return data if deserializer is None else deserializer(data)

    raw._response_deserializer = keep
    return raw, got


def _answer(got: list[bytes], streamed: bool, error: Any = None) -> Answer:
    if error is None:
        body = _frame(got) if streamed else (got[-1] if got else b"")
        return Answer(200, {"content-type": "application/grpc"}, body)
    name = getattr(_asked(error, "code"), "name", "UNKNOWN")
    failure: dict[str, Any] = {"code": name, "details": _asked(error, "details") or ""}
    if got:
        failure["messages"] = [base64.b64encode(m).decode("ascii") for m in got]
    for key, value in _asked(error, "trailing_metadata") or ():
        if key == STATUS_DETAILS:
            failure["status_details"] = base64.b64encode(value).decode("ascii")
    body = json.dumps(failure).encode()
    return Answer(HTTP_STATUS.get(name, 500), {"content-type": "application/json"}, body)


def _asked(error: Any, attribute: str) -> Any:
    method = getattr(error, attribute, None)
    return method() if callable(method) else None


def _ended(callable_: Any, answer: Answer, streamed: bool) -> Any:
    trailing: tuple = ()
    if 200 <= answer.status < 300:
        code, details = _grpc.StatusCode.OK, ""
        data = _unframe(answer.body) if streamed else [answer.body]
    else:
        failure = json.loads(answer.body)
        code, details = _grpc.StatusCode[failure["code"]], failure["details"]
        data = [base64.b64decode(m) for m in failure.get("messages", ())]
        if "status_details" in failure:
            trailing = ((STATUS_DETAILS, base64.b64decode(failure["status_details"])),)
    deserializer = callable_._response_deserializer
    messages = [m if deserializer is None else deserializer(m) for m in data]
    return _Ended(code, details, messages, trailing)


def _entry(original: Any, ended: Any, finish: Any) -> Any:
    """``original`` (a multicallable's method) answered by ``ended`` while a step runs."""

    @functools.wraps(original)
    def entry(self: Any, request: Any = None, *args: Any, **kwargs: Any) -> Any:
        if current() is None:
            return original(self, request, *args, **kwargs)
        kwargs = {**dict(zip(ARGUMENTS, args, strict=False)), **kwargs}  # all by name
        if request is None:
            request = kwargs.pop("request_iterator", None)
        return finish(ended(self, request, kwargs))

    return entry


def _patch(cls: Any, streams_in: bool, streams_out: bool) -> None:
    original = cls.__call__

    def ended(self: Any, request: Any, kwargs: dict) -> Any:
        calls = current()
        messages = list(request) if streams_in else [request]

        def live(_replaced: bytes | None) -> tuple[Answer, None]:
            raw, got = _keeping(self)
            try:
                result = original(raw, iter(messages) if streams_in else request, **kwargs)
                if streams_out:
                    list(result)
            except _grpc.RpcError as error:
                return _answer(got, streams_out, error), None
            return _answer(got, streams_out), None

        out = _outgoing(self, messages, streams_in, kwargs, "grpc")
        return _ended(self, calls.exchange(out, live)[0], streams_out)

    # What each method makes of the ended call: the call (a stream, a future), or its response.
    finish = {
        "__call__": lambda done: done if streams_out else done.result(),
        "with_call": lambda done: (done.result(), done),
        "future": lambda done: done,
    }
    for name in ["__call__"] if streams_out else finish:
        setattr(cls, name, _entry(getattr(cls, name), ended, finish[name]))


def _patch_aio(cls: Any, streams_in: bool, streams_out: bool) -> None:
    original = cls.__call__

    def ended(self: Any, request: Any, kwargs: dict) -> _AioCall:
        calls = current()

        async def answered(messages: list) -> Any:
            async def live(_replaced: bytes | None) -> tuple[Answer, None]:
                raw, got = _keeping(self)
                try:
                    result = original(raw, iter(messages) if streams_in else messages[0], **kwargs)
                    if streams_out:
                        async for _ in result:
                            pass
                    else:
                        await result
                except _grpc.RpcError as error:
                    return _answer(got, streams_out, error), None
                return _answer(got, streams_out), None

            out = _outgoing(self, messages, streams_in, kwargs, "grpc.aio")
            return _ended(self, (await calls.aexchange(out, live))[0], streams_out)

        return _AioCall(self._loop, answered, request if streams_in else [request])

    cls.__call__ = _entry(original, ended, lambda call: call)


class _AioCall:
    """A ``grpc.aio`` call as its caller uses it — awaited, iterated, ``read()``, written to —
    answered by the capture. It starts at once, in a task, as grpc.aio's calls do; a request
    stream given by ``write()`` is sent when ``done_writing()`` ends it."""

    def __init__(self, loop: Any, answered: Any, requests: Any) -> None:
        self._written: list = []
        self._closed = asyncio.Event()
        self._task = loop.create_task(self._run(answered, requests))

    async def _run(self, answered: Any, requests: Any) -> Any:
        if requests is None:
            await self._closed.wait()
            requests = self._written
        elif hasattr(requests, "__aiter__"):
            requests = [message async for message in requests]
        return await answered(list(requests))

    async def write(self, request: Any) -> None:
        self._written.append(request)

    async def done_writing(self) -> None:
        self._closed.set()

    def __await__(self) -> Any:
        done = yield from self._task.__await__()
        return _raised(done).result()

    def __aiter__(self) -> Any:
        return self._responses()

    async def _responses(self) -> Any:
        done = await self._task
        for message in done._next:
            yield message
        _raised(done)

    async def read(self) -> Any:
        done = await self._task
        for message in done._next:
            return message
        _raised(done)
        return _grpc.aio.EOF

    async def code(self) -> Any:
        return (await self._task).code()

    async def details(self) -> str:
        return (await self._task).details()

    async def initial_metadata(self) -> Any:
        return _grpc.aio.Metadata()

    async def trailing_metadata(self) -> Any:
        return _grpc.aio.Metadata(*(await self._task).trailing_metadata())

    async def wait_for_connection(self) -> None:
        await asyncio.wait([self._task])

    def cancel(self) -> bool:
        return self._task.cancel()

    def cancelled(self) -> bool:
        return self._task.cancelled()

    def done(self) -> bool:
        return self._task.done()

    def time_remaining(self) -> None:
        return None

    def add_done_callback(self, callback: Any) -> None:
        self._task.add_done_callback(lambda _: callback(self))


def _raised(done: Any) -> Any:
    """``done`` if its call ended OK; else its ``AioRpcError`` is raised."""
    if done.ok():
        return done
    trailing = _grpc.aio.Metadata(*done.trailing_metadata())
    raise _grpc.aio.AioRpcError(done.code(), _grpc.aio.Metadata(), trailing, done.details())
