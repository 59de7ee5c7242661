"""The standard library is captured (``httpclient_adapter``): ``urllib.request.urlopen`` and a
raw ``http.client.HTTPConnection``, plain and streamed, record an LLM call with its tokens and
a tool call against a loopback server; with the server stopped, an unchanged replay is
identical at zero tokens and never connects. Credentials are never stored. Outside a step
urllib behaves as before; urllib3, a subclass of http.client, is captured once — by its own
adapter when that one is in place, else by this one.
"""

from __future__ import annotations

import http.client
import inspect
import io
import json
import socket
import urllib.error
import urllib.request
from typing import Any

import pytest

from runs.engine.calls.capture import httpclient_adapter
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.lib.sealing import mark
from runs.models import LLMCacheEntry, Run, ToolCacheEntry
from runs.tests.conftest import everything_stored
from runs.tests.helpers import transport_apps, urllib_apps

APPS = {name: f"runs.tests.helpers.urllib_apps.{name}" for name in urllib_apps.VARIANTS}
STDLIB = sorted(n for n in urllib_apps.VARIANTS if n.startswith(("urllib_", "httpclient_")))


@pytest.fixture
def served(served_apps, monkeypatch):
    """The urllib apps registered, the adapter installed; ``served.start()`` serves the
    simulator on loopback as their ``OPENAI_BASE_URL``, ``served.stop()`` stops it."""
    httpclient_adapter.install()
    for name in ("no_proxy", "NO_PROXY"):  # loopback only, whatever proxy the machine has
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    return served_apps(APPS)


@pytest.fixture
def no_connect(monkeypatch) -> list:
    """Every connection http.client opens, refused and noted (a replay must open none)."""
    opened: list = []

    def refuse(address: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(address)
        raise ConnectionRefusedError(f"a replay connected to {address}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr("urllib3.util.connection.create_connection", refuse)
    return opened


def run(name: str) -> Run:
    return execute_run(create_run(name, {}).pk)


def check_source(source: Run, library: str) -> None:
    assert source.status == Run.Status.COMPLETED, source.error
    ask = source.nodes.get(name="ask")
    assert ask.kind == "llm"
    kinds = [(c["kind"], c["endpoint"]) for c in ask.calls]
    assert kinds == [("llm", "chat/completions"), ("tool", "/v1/models")], kinds
    assert {c["library"] for c in ask.calls} == {library}
    assert {c["cache_source"] for c in ask.calls} == {"live"}
    assert ask.total_tokens > 0 and ask.calls[0]["total_tokens"] == ask.total_tokens
    assert ask.output["answer"] and ask.output["models"], ask.output


def check_replay(source: Run, no_connect: list) -> Run:
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert replay.trajectory_sha256 == source.trajectory_sha256
    replayed = replay.nodes.get(name="ask")
    assert replayed.total_tokens == 0 and replayed.cache_source == "cache"
    assert [c["cache_source"] for c in replayed.calls] == ["cache", "tool-cache"]
    assert replayed.output == source.nodes.get(name="ask").output
    assert no_connect == []
    return replay


@pytest.mark.parametrize("name", STDLIB)
def test_urllib_and_http_client_are_captured_and_replay_identical_offline(served, name, request):
    served.start()
    source = run(name)
    check_source(source, "http.client")
    served.stop()
    check_replay(source, request.getfixturevalue("no_connect"))


def test_a_streamed_answer_is_stored_as_it_arrived_and_read_line_by_line_on_replay(served, request):
    served.start()
    source = run("httpclient_stream")
    entry = LLMCacheEntry.objects.get(pk=int(source.nodes.get(name="ask").calls[0]["entry"][4:]))
    assert entry.response["headers"]["content-type"] == "text/event-stream"
    assert entry.response["text"].rstrip().endswith("data: [DONE]")
    assert source.nodes.get(name="ask").calls[0]["prompt_tokens"] > 0  # include_usage
    served.stop()
    check_replay(source, request.getfixturevalue("no_connect"))


def test_credentials_never_reach_the_database(served):
    served.start()
    source = run("urllib_plain")
    served.stop()
    assert execute_run(create_replay(source).pk).status == Run.Status.COMPLETED
    assert transport_apps.CANARY not in everything_stored()
    assert ["api_key", mark(transport_apps.CANARY)] in ToolCacheEntry.objects.get().args["query"]


def test_outside_a_step_urllib_and_http_client_behave_as_before(served):
    url = served.start()
    with urllib.request.urlopen(f"{url}/models", timeout=5) as response:
        assert response.status == 200 and response.msg == "OK"
        assert response.headers["Content-Length"] and response.geturl() == f"{url}/models"
        assert json.load(response)["data"]
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(f"{url}/nowhere", timeout=5)
    assert error.value.code == 404
    host, port = url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    conn.request("GET", "/v1/models")
    assert conn.sock is not None  # sent at once, as ever
    assert type(conn.getresponse().read()) is bytes
    conn.close()
    served.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/models", timeout=5)
    assert LLMCacheEntry.objects.count() == ToolCacheEntry.objects.count() == 0


def test_a_refused_connection_in_a_step_is_still_a_url_error(served):
    """Live, the captured request goes out at ``endheaders``: urllib still sees the refusal
    in ``h.request`` and raises ``URLError``, as it does uncaptured."""
    source = run("urllib_plain")  # nothing listens
    assert source.status == Run.Status.FAILED
    ask = source.nodes.get(name="ask")
    assert "URLError" in ask.error or "Connection refused" in ask.error, ask.error
    assert [c["cache_source"] for c in ask.calls] == ["live"] and ask.calls[0]["error"]
    assert LLMCacheEntry.objects.count() == 0


@pytest.mark.parametrize("name", ["urllib3conn_plain", "urllib3conn_stream"])
def test_a_urllib3_connection_without_a_pool_is_captured_once_by_this_adapter(
    served, name, request
):
    """urllib3's HTTPConnection subclasses http.client's: used directly (no pool, so no
    urllib3 adapter sees it) its requests are captured here, once."""
    served.start()
    source = run(name)
    check_source(source, "http.client")
    served.stop()
    check_replay(source, request.getfixturevalue("no_connect"))


def test_a_urllib3_pool_is_captured_once_by_the_urllib3_adapter(served, request):
    """With both adapters in place, the urllib3 adapter's own live send is marked
    ``sending``: this adapter passes it through, request and response."""
    from runs.engine.calls.capture import urllib3_adapter

    urllib3_adapter.install()
    served.start()
    source = run("urllib3pool_stream")
    check_source(source, "urllib3")
    served.stop()
    check_replay(source, request.getfixturevalue("no_connect"))


def test_a_urllib3_pool_without_its_adapter_is_captured_once_by_this_one(
    served, monkeypatch, request
):
    from urllib3.connectionpool import HTTPConnectionPool

    from runs.engine.calls.capture import urllib3_adapter

    urllib3_adapter.install()  # so that a step's capture.install() leaves the pool alone
    wrapped = HTTPConnectionPool.urlopen
    original = inspect.getclosurevars(wrapped).nonlocals.get("original", wrapped)
    assert original.__module__ == "urllib3.connectionpool"
    monkeypatch.setattr(HTTPConnectionPool, "urlopen", original)
    served.start()
    source = run("urllib3pool_plain")
    check_source(source, "http.client")
    served.stop()
    check_replay(source, request.getfixturevalue("no_connect"))


def test_an_iterable_or_file_request_body_is_read_into_bytes(served, request):
    """urllib sends an iterable body chunk-encoded, a file as it reads: either is read into
    bytes, so the call is recognised as the LLM call it is (same key), and sent with a
    Content-Length."""
    from runs.engine.calls.capture.core import StepCalls

    url = served.start()
    body = json.dumps(transport_apps.chat_body(False)).encode()

    def post(data: Any, **extra: str) -> dict:
        headers = {"Content-Type": "application/json", **extra}
        sent = urllib.request.Request(f"{url}/chat/completions", data, headers, method="POST")
        with urllib.request.urlopen(sent, timeout=5) as response:
            return json.load(response)

    with StepCalls(sequence_id=0, action="ask") as calls:
        chunked = post(iter([body[:10], body[10:]]))
        filed = post(io.BytesIO(body), **{"Content-Length": str(len(body))})
    assert [(c.kind, c.occurrence) for c in calls.calls] == [("llm", 0), ("llm", 1)]
    assert calls.calls[0].key == calls.calls[1].key and calls.calls[0].total_tokens > 0
    assert chunked["choices"] == filed["choices"]
    served.stop()
    no_connect = request.getfixturevalue("no_connect")
    with StepCalls(sequence_id=0, action="ask") as again:
        assert post(iter([body])) == chunked
    assert [c.cache_source for c in again.calls] == ["cache"] and no_connect == []


def test_install_is_idempotent():
    httpclient_adapter.install()
    httpclient_adapter.install()
    for name in ("putrequest", "putheader", "endheaders", "send", "getresponse"):
        wrapper = getattr(httpclient_adapter, f"_{name}")
        assert getattr(http.client.HTTPConnection, name) is wrapper
        assert httpclient_adapter._original[name].__module__ == "http.client"
