"""Burr apps that call a gRPC service the way users write it: a stub built at import on a
module-level channel (as protoc's generated ``CatalogStub(channel)`` is), used from plain
``@action`` functions — unary (called, ``with_call``, ``future``), server-streaming,
client-streaming and bidirectional; failed statuses however they reach the caller; a retry
loop over UNAVAILABLE; a ``grpc.aio`` async action; a request that embeds a wall-clock
reading. Messages are ``google.protobuf.Struct``; every call carries metadata with a
credential (``CANARY``) that no stored byte may hold. ``test_capture_grpc.py`` serves the
service on ``TARGET`` and registers the apps.
"""

from __future__ import annotations

import socket
import time
from typing import Any

import grpc
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from runs.recording import live_values

SERVICE = "rewind.test.Catalog"
CANARY = "sk-canary-grpc-7f3a9c1e5b2d4f6a"
METADATA = (("authorization", f"Bearer {CANARY}"), ("x-tenant", "acme"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The address the test's server listens on: the channel below is made at import, before any
# server (or the capture) exists, so its port is one the OS assigned now.
TARGET = f"127.0.0.1:{_free_port()}"


class CatalogStub:
    """What protoc generates for the service: one multicallable per method, on a channel."""

    def __init__(self, channel: Any) -> None:
        def method(shape: str, name: str) -> Any:
            return getattr(channel, shape)(
                f"/{SERVICE}/{name}",
                request_serializer=struct_pb2.Struct.SerializeToString,
                response_deserializer=struct_pb2.Struct.FromString,
            )

        self.Lookup = method("unary_unary", "Lookup")
        self.List = method("unary_stream", "List")
        self.Total = method("stream_unary", "Total")
        self.Chat = method("stream_stream", "Chat")
        self.Flaky = method("unary_unary", "Flaky")


STUB = CatalogStub(grpc.insecure_channel(TARGET))


def message(**fields: Any) -> struct_pb2.Struct:
    made = struct_pb2.Struct()
    made.update(fields)
    return made


def plain(reply: struct_pb2.Struct) -> dict[str, Any]:
    return MessageToDict(reply)


@action(reads=[], writes=["items", "code", "callbacks"])
def lookup(state: State) -> State:
    item = STUB.Lookup(message(sku="A-1", tags={"b": 2, "a": 1}), metadata=METADATA, timeout=5)
    again, call = STUB.Lookup.with_call(message(sku="B-2"), metadata=METADATA)
    future = STUB.Lookup.future(message(sku="C-3"), metadata=METADATA)
    callbacks: list[bool] = []
    future.add_done_callback(lambda done: callbacks.append(done.done()))
    items = [plain(item), plain(again), plain(future.result())]
    return state.update(items=items, code=call.code().name, callbacks=callbacks)


@action(reads=[], writes=["listing", "listing_code"])
def listing(state: State) -> State:
    stream = STUB.List(message(category="tea", limit=3), metadata=METADATA)
    rows = [plain(row) for row in stream]
    return state.update(listing=rows, listing_code=stream.code().name)


@action(reads=[], writes=["total"])
def total(state: State) -> State:
    def prices():
        for price in (1.5, 2.25, 4):
            yield message(price=price)

    return state.update(total=plain(STUB.Total(prices(), metadata=METADATA)))


@action(reads=[], writes=["chat"])
def chat(state: State) -> State:
    replies = STUB.Chat(iter([message(say="hi"), message(say="bye")]), metadata=METADATA)
    return state.update(chat=[plain(reply) for reply in replies])


def catalog_application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(lookup=lookup, listing=listing, total=total, chat=chat)
        .with_transitions(("lookup", "listing"), ("listing", "total"), ("total", "chat"))
        .with_entrypoint("lookup")
        .build()
    )


@action(reads=[], writes=["stock", "attempts"])
def stock(state: State) -> State:
    # A hand-written retry loop, as agent code has around a flaky backend.
    for attempt in range(3):
        try:
            reply = STUB.Flaky(message(sku="A-1"), metadata=METADATA, timeout=5)
            return state.update(stock=plain(reply), attempts=attempt + 1)
        except grpc.RpcError as error:
            if error.code() is not grpc.StatusCode.UNAVAILABLE:
                raise
            time.sleep(0.3 * (attempt + 1))
    raise RuntimeError("the catalog was unavailable three times")


@action(reads=[], writes=["mishaps"])
def mishaps(state: State) -> State:
    # Every way a failed status reaches the caller: raised, a future's exception, mid-stream.
    missing = message(sku="missing")
    seen: list[list[Any]] = []
    try:
        STUB.Lookup(missing, metadata=METADATA)
    except grpc.RpcError as error:
        seen.append(["call", error.code().name, error.details(), isinstance(error, grpc.Call)])
    try:
        STUB.Lookup.with_call(missing, metadata=METADATA)
    except grpc.RpcError as error:
        seen.append(["with_call", error.code().name, list(error.trailing_metadata())])
    future = STUB.Lookup.future(missing, metadata=METADATA)
    seen.append(["future", future.done(), future.exception().code().name])
    rows = []
    stream = STUB.List(message(category="tea", limit=5), metadata=METADATA)
    try:
        rows.extend(plain(row) for row in stream)
    except grpc.RpcError as error:
        seen.append(["stream", len(rows), error.code().name, stream.code().name])
    return state.update(mishaps=seen)


def mishaps_application() -> Application:
    return ApplicationBuilder().with_actions(mishaps=mishaps).with_entrypoint("mishaps").build()


def retry_application() -> Application:
    return ApplicationBuilder().with_actions(stock=stock).with_entrypoint("stock").build()


@action(reads=[], writes=["browsed"])
async def browse(state: State) -> State:
    async with grpc.aio.insecure_channel(TARGET) as channel:
        stub = CatalogStub(channel)
        item = await stub.Lookup(message(sku="A-1"), metadata=METADATA)
        stream = stub.List(message(category="tea", limit=2), metadata=METADATA)
        rows = [plain(row) async for row in stream]
        call = stub.Total(metadata=METADATA)
        for price in (1, 2):
            await call.write(message(price=price))
        await call.done_writing()
        summed = await call
        code = (await call.code()).name

        async def sayings():
            for say in ("hi", "bye"):
                yield message(say=say)

        heard = [plain(reply)["heard"] async for reply in stub.Chat(sayings())]
        try:
            await stub.Lookup(message(sku="missing"), metadata=METADATA)
        except grpc.aio.AioRpcError as error:
            missing = [error.code().name, error.details()]
    browsed = {"item": plain(item), "rows": rows, "total": plain(summed), "code": code}
    browsed |= {"heard": heard, "missing": missing}
    return state.update(browsed=browsed)


def aio_application() -> Application:
    return ApplicationBuilder().with_actions(browse=browse).with_entrypoint("browse").build()


@action(reads=[], writes=["item"])
def lookup_with_clock(state: State) -> State:
    # A request that embeds a wall-clock reading kept live: every replay asks something new.
    with live_values():
        now = time.time()
    item = STUB.Lookup(message(sku="A-1", asked_at=now), metadata=METADATA)
    return state.update(item=plain(item))


def clock_application() -> Application:
    builder = ApplicationBuilder().with_actions(lookup=lookup_with_clock)
    return builder.with_entrypoint("lookup").build()


APPS = {
    "grpc_catalog": f"{__name__}.catalog_application",
    "grpc_retry": f"{__name__}.retry_application",
    "grpc_mishaps": f"{__name__}.mishaps_application",
    "grpc_aio": f"{__name__}.aio_application",
    "grpc_clock": f"{__name__}.clock_application",
}
