"""gRPC calls are captured (issue 29, item 2; ``capture.grpc_adapter``): Burr apps whose steps
call a gRPC service — unary, server-, client- and bidirectional streaming, sync and
``grpc.aio``, through a stub built at import — record each call against a server written here,
and with the server stopped an unchanged replay is identical and reaches nothing. A replayed
request that changed is refused before it is sent, named like any other miss; a retry over
UNAVAILABLE is recorded attempt by attempt and replays the same path; the credential the
metadata carried is never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from django.conf import settings
from google.protobuf import struct_pb2

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Node, Run, ToolCacheEntry
from runs.tests.conftest import everything_stored
from runs.tests.helpers import grpc_apps
from runs.tests.helpers.grpc_apps import CANARY, SERVICE, STUB, TARGET, message, plain


class Catalog:
    """The service on loopback (``grpc_apps.TARGET``), counting every call that reaches it and
    keeping the metadata each carried. ``unavailable`` calls to Flaky are answered UNAVAILABLE
    before it answers."""

    def __init__(self, unavailable: int = 0) -> None:
        self.reached: Counter[str] = Counter()
        self.metadata: list[dict[str, str]] = []
        self.unavailable = unavailable
        self.server = grpc.server(ThreadPoolExecutor(max_workers=4))
        handlers = {
            "Lookup": grpc.unary_unary_rpc_method_handler(self.lookup, **self.codec),
            "Flaky": grpc.unary_unary_rpc_method_handler(self.flaky, **self.codec),
            "List": grpc.unary_stream_rpc_method_handler(self.list, **self.codec),
            "Total": grpc.stream_unary_rpc_method_handler(self.total, **self.codec),
            "Chat": grpc.stream_stream_rpc_method_handler(self.chat, **self.codec),
        }
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE, handlers),)
        )
        assert self.server.add_insecure_port(TARGET)
        self.server.start()

    codec = {
        "request_deserializer": struct_pb2.Struct.FromString,
        "response_serializer": struct_pb2.Struct.SerializeToString,
    }

    def reach(self, name: str, context: Any) -> None:
        self.reached[name] += 1
        self.metadata.append(dict(context.invocation_metadata()))

    def lookup(self, request: Any, context: Any) -> Any:
        self.reach("Lookup", context)
        if request["sku"] == "missing":
            context.abort(grpc.StatusCode.NOT_FOUND, "no such item: missing")
        return message(sku=request["sku"], name=f"item {request['sku']}", price=3.5)

    def flaky(self, request: Any, context: Any) -> Any:
        self.reach("Flaky", context)
        if self.unavailable:
            self.unavailable -= 1
            context.abort(grpc.StatusCode.UNAVAILABLE, "the catalog is restarting")
        return message(sku=request["sku"], in_stock=12)

    def list(self, request: Any, context: Any) -> Iterator[Any]:
        self.reach("List", context)
        for n in range(int(request["limit"])):
            if n == 3:
                context.abort(grpc.StatusCode.OUT_OF_RANGE, "three at most")
            yield message(category=request["category"], n=n)

    def total(self, requests: Iterator[Any], context: Any) -> Any:
        self.reach("Total", context)
        return message(total=sum(r["price"] for r in requests))

    def chat(self, requests: Iterator[Any], context: Any) -> Iterator[Any]:
        self.reach("Chat", context)
        for request in requests:
            yield message(heard=request["say"])

    def stop(self) -> None:
        self.server.stop(None).wait()


@pytest.fixture
def serve(rewind_settings, db) -> Iterator[Any]:
    """The gRPC apps registered; ``serve(unavailable=0)`` starts the service (stopped at the
    end of the test, if the test has not stopped it)."""
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **grpc_apps.APPS}
    registry._load.cache_clear()
    started: list[Catalog] = []

    def start(unavailable: int = 0) -> Catalog:
        started.append(Catalog(unavailable))
        return started[-1]

    yield start
    for catalog in started:
        catalog.stop()
    registry._load.cache_clear()


def run(name: str) -> Run:
    return execute_run(create_run(name, {}).pk)


def test_every_shape_is_captured_and_replays_identical_with_the_server_stopped(serve):
    catalog = serve()
    source = run("grpc_catalog")
    assert source.status == Run.Status.COMPLETED, source.error
    reached = {"Lookup": 3, "List": 1, "Total": 1, "Chat": 1}
    assert catalog.reached == reached
    # The metadata went out as the user passed it (so it could have been stored).
    assert all(seen["authorization"] == f"Bearer {CANARY}" for seen in catalog.metadata)
    lookup = source.nodes.get(name="lookup")
    assert lookup.output["code"] == "OK" and lookup.output["callbacks"] == [True]
    assert [i["sku"] for i in lookup.output["items"]] == ["A-1", "B-2", "C-3"]
    assert source.nodes.get(name="listing").output["listing_code"] == "OK"
    assert [r["n"] for r in source.nodes.get(name="listing").output["listing"]] == [0, 1, 2]
    assert source.nodes.get(name="total").output["total"] == {"total": 7.75}
    assert [r["heard"] for r in source.nodes.get(name="chat").output["chat"]] == ["hi", "bye"]
    calls = [c for node in source.nodes.order_by("sequence_id") for c in node.calls]
    assert [(c["kind"], c["method"], c["endpoint"], c["library"]) for c in calls] == [
        ("tool", "GRPC", f"/{SERVICE}/{name}", "grpc")
        for name in ("Lookup", "Lookup", "Lookup", "List", "Total", "Chat")
    ]
    assert all(c["status"] == 200 and c["entry"] for c in calls)
    tools = set(ToolCacheEntry.objects.values_list("tool", flat=True))
    assert tools == {f"GRPC /{SERVICE}/{name}" for name in reached}
    # Outside a step the stub is grpc's own: the call reaches the server, nothing is kept.
    assert plain(STUB.Lookup(message(sku="Z-9"), timeout=5))["sku"] == "Z-9"
    assert catalog.reached["Lookup"] == 4 and ToolCacheEntry.objects.count() == 6

    catalog.stop()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert catalog.reached["Lookup"] == 4 and sum(catalog.reached.values()) == 7
    replayed = [c for node in replay.nodes.order_by("sequence_id") for c in node.calls]
    assert {c["cache_source"] for c in replayed} == {"tool-cache"}
    assert [c["entry"] for c in replayed] == [c["entry"] for c in calls]
    for name in ("lookup", "listing", "total", "chat"):
        assert replay.nodes.get(name=name).output == source.nodes.get(name=name).output
    assert CANARY not in everything_stored()


def test_a_replayed_request_that_changed_is_refused_before_it_reaches_the_server(serve):
    catalog = serve()
    source = run("grpc_clock")
    assert source.status == Run.Status.COMPLETED, source.error
    assert catalog.reached == {"Lookup": 1}

    replay = execute_run(create_replay(source).pk)  # the server is up: nothing keeps it away

    assert replay.status == Run.Status.FAILED
    step = replay.nodes.get(name="lookup")
    assert step.status == Node.Status.FAILED
    expected = f"a call the recorded run never made: GRPC /{SERVICE}/Lookup"
    assert expected in step.error, step.error
    assert f"nearest recorded call GRPC /{SERVICE}/Lookup differs in body" in step.error
    assert catalog.reached == {"Lookup": 1}  # the call never reached the server
    assert step.calls[0]["error"] in step.error
    assert CANARY not in everything_stored()


def test_a_retry_over_unavailable_records_both_attempts_and_replays_with_the_server_down(
    serve, monkeypatch
):
    from runs.engine.calls.capture import backoff

    slept: list[float] = []  # the backoffs that really waited (the loop's is 0.3 s)
    real = backoff._real_sleep
    monkeypatch.setattr(backoff, "_real_sleep", lambda s: slept.append(s) or real(min(s, 0.01)))
    catalog = serve(unavailable=1)
    source = run("grpc_retry")
    assert source.status == Run.Status.COMPLETED, source.error
    assert slept.count(0.3) == 1
    assert catalog.reached == {"Flaky": 2}
    step = source.nodes.get(name="stock")
    assert step.output["attempts"] == 2 and step.output["stock"]["in_stock"] == 12
    assert [c["status"] for c in step.calls] == [503, 200]
    assert [c["occurrence"] for c in step.calls] == [0, 1]
    failed = ToolCacheEntry.objects.get(failed=True)
    assert json.loads(failed.result["text"]) == {
        "code": "UNAVAILABLE",
        "details": "the catalog is restarting",
    }

    catalog.stop()
    slept.clear()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert 0.3 not in slept  # the replayed failed attempt's backoff did not wait
    replayed = replay.nodes.get(name="stock")
    assert [c["status"] for c in replayed.calls] == [503, 200]
    assert [c["entry"] for c in replayed.calls] == [c["entry"] for c in step.calls]
    assert replayed.output == step.output
    assert catalog.reached == {"Flaky": 2}
    assert CANARY not in everything_stored()


def test_a_grpc_aio_step_is_captured_and_replays_identical_with_the_server_stopped(serve):
    catalog = serve()
    source = run("grpc_aio")
    assert source.status == Run.Status.COMPLETED, source.error
    assert catalog.reached == {"Lookup": 2, "List": 1, "Total": 1, "Chat": 1}
    step = source.nodes.get(name="browse")
    assert step.output["browsed"] == {
        "item": {"sku": "A-1", "name": "item A-1", "price": 3.5},
        "rows": [{"category": "tea", "n": 0.0}, {"category": "tea", "n": 1.0}],
        "total": {"total": 3.0},
        "code": "OK",
        "heard": ["hi", "bye"],
        "missing": ["NOT_FOUND", "no such item: missing"],
    }
    names = ("Lookup", "List", "Total", "Chat", "Lookup")
    assert [(c["library"], c["endpoint"]) for c in step.calls] == [
        ("grpc.aio", f"/{SERVICE}/{name}") for name in names
    ]
    assert [c["status"] for c in step.calls] == [200, 200, 200, 200, 404]

    catalog.stop()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert replay.nodes.get(name="browse").output == step.output
    assert sum(catalog.reached.values()) == 5
    assert CANARY not in everything_stored()


def test_a_failed_status_replays_as_the_same_error_however_the_caller_met_it(serve):
    catalog = serve()
    source = run("grpc_mishaps")
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="mishaps")
    assert step.output["mishaps"] == [
        ["call", "NOT_FOUND", "no such item: missing", True],
        ["with_call", "NOT_FOUND", []],
        ["future", True, "NOT_FOUND"],
        ["stream", 3, "OUT_OF_RANGE", "OUT_OF_RANGE"],  # the rows before it, then the error
    ]
    assert [c["status"] for c in step.calls] == [404, 404, 404, 400]
    assert ToolCacheEntry.objects.filter(failed=True).count() == 4

    catalog.stop()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert replay.nodes.get(name="mishaps").output == step.output
    assert catalog.reached == {"Lookup": 3, "List": 1}


KEY_BYTES = """
import hashlib
import django
django.setup()
from google.protobuf import struct_pb2
from runs.engine.calls.capture.grpc_adapter import _serialized
made = struct_pb2.Struct()
made.update({f"field{n}": n for n in range(40)})
print(hashlib.sha256(_serialized(struct_pb2.Struct.SerializeToString, made)).hexdigest())
"""


def test_a_message_with_a_map_keys_the_same_in_every_process():
    """protobuf serializes a map in an order that changes from one process to the next (a
    replay runs in another process than its recording): the key's bytes do not."""
    digests = {
        subprocess.run(
            [sys.executable, "-c", KEY_BYTES],
            capture_output=True,
            text=True,
            check=True,
            cwd=settings.BASE_DIR,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "rewind_site.settings"},
        ).stdout.strip()
        for _ in range(4)
    }
    made = struct_pb2.Struct()
    made.update({f"field{n}": n for n in range(40)})
    here = hashlib.sha256(made.SerializeToString(deterministic=True)).hexdigest()
    assert digests == {here}
