"""Every HTTP library a step may use is captured (issue 15): per library × plain/streamed ×
sync/async, a run against a loopback server records an LLM call with its tokens and a tool
call; with the server stopped, an unchanged replay is identical at zero tokens. Credentials
the calls carried are never stored. A 200 that is no answer is never cached.
"""

from __future__ import annotations

import io
import json
import logging
import zipfile
from typing import Any

import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.lib import sealing
from runs.models import LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.tests.conftest import LoopbackProvider, everything_stored
from runs.tests.helpers import transport_apps
from runs.tests.helpers.transport_apps import APPS


@pytest.fixture
def served(served_apps):
    """The transport apps registered; ``served.start()`` serves the simulator on loopback as
    their ``OPENAI_BASE_URL``, ``served.stop()`` stops it."""
    return served_apps(APPS)


def run(name: str) -> Run:
    return execute_run(create_run(name, {}).pk)


@pytest.mark.parametrize("name", sorted(transport_apps.VARIANTS))
def test_each_library_is_captured_and_replays_identical_with_the_server_stopped(
    served, name, caplog
):
    caplog.set_level(logging.DEBUG)  # every library's own logging too (httpx logs each URL)
    served.start()
    source = run(name)
    assert source.status == Run.Status.COMPLETED, source.error
    ask = source.nodes.get(name="ask")
    assert ask.kind == "llm"
    kinds = [(c["kind"], c["endpoint"]) for c in ask.calls]
    assert kinds == [("llm", "chat/completions"), ("tool", "/v1/models")], kinds
    library = transport_apps.VARIANTS[name][0]
    expected_library = {"openai": "httpx2", "requests": "urllib3"}.get(library, library)
    assert {c["library"] for c in ask.calls} == {expected_library}
    assert ask.total_tokens > 0 and ask.calls[0]["total_tokens"] == ask.total_tokens
    assert ask.output["answer"], ask.output

    served.stop()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    # The credential the calls carried (header, query) is nowhere: rows, logs.
    assert transport_apps.CANARY not in everything_stored()
    assert transport_apps.CANARY not in caplog.text
    assert replay.trajectory_sha256 == source.trajectory_sha256
    replayed = replay.nodes.get(name="ask")
    assert replayed.total_tokens == 0 and replayed.cache_source == "cache"
    assert [c["cache_source"] for c in replayed.calls] == ["cache", "tool-cache"]


def test_a_sync_streamed_call_reads_the_same_chunks_on_replay(served):
    served.start()
    source = run("httpx2_sync_stream")
    entry = LLMCacheEntry.objects.get(pk=int(source.nodes.get(name="ask").calls[0]["entry"][4:]))
    assert entry.response["headers"]["content-type"].startswith("text/event-stream")
    assert entry.response["text"].rstrip().endswith("data: [DONE]")
    served.stop()
    replay = execute_run(create_replay(source).pk)
    assert replay.nodes.get(name="ask").output == source.nodes.get(name="ask").output


def _readable(response: Any) -> bytes:
    """A response's bytes as a person would read them: a zip (the export) unpacked."""
    if response.get("Content-Type", "").startswith("application/zip"):
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            return b"".join(archive.read(name) for name in archive.namelist())
    return response.content


def test_credentials_in_headers_query_and_body_never_reach_the_database(
    served, client, django_user_model
):
    served.start()
    source = run("httpx_sync_plain")
    served.stop()
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED

    stored = everything_stored()
    assert transport_apps.CANARY not in stored
    tool = ToolCacheEntry.objects.get()
    assert tool.args["query"][0][0] == "api_key"
    assert tool.args["query"][0][1].startswith("[credential:")
    user = django_user_model.objects.create_user("viewer", password="pw")
    client.force_login(user)
    ask = source.nodes.get(name="ask")
    pages = (
        f"/api/runs/{source.pk}",
        f"/runs/{source.pk}/",
        f"/runs/{source.pk}/nodes/{ask.sequence_id}/",
        f"/runs/{source.pk}/export/",
    )
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert transport_apps.CANARY.encode() not in _readable(response), url
    inspector = client.get(f"/runs/{source.pk}/nodes/{ask.sequence_id}/").content.decode()
    assert "<h3>Calls" in inspector and "POST chat/completions" in inspector
    assert "GET /v1/models" in inspector and "[credential:" in inspector  # its fingerprint


def test_a_credential_body_field_and_path_key_are_redacted_and_left_out_of_the_key(
    rewind_settings, db
):
    from runs.engine.calls.capture.core import Outgoing, StepCalls

    calls = StepCalls(sequence_id=0, action="search")
    one = Outgoing(
        "POST",
        "https://api.example.test/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/send?token=abcdefgh12345678xyz",
        [("content-type", "application/json")],
        json.dumps({"query": "cats", "api_key": "tvly-SECRET0123456789abcdef"}).encode(),
        "requests",
    )
    other = Outgoing(
        one.method, one.url.replace("abcdefgh12345678xyz", "zzzzzzzz87654321abc"), one.headers,
        json.dumps({"query": "cats", "api_key": "tvly-OTHER99999999999999999"}).encode(), "requests",
    )  # fmt: skip
    _, call_one, described = calls.prepare(one)
    _, call_other, _ = calls.prepare(other)

    text = json.dumps(described)
    assert "SECRET" not in text and "abcdefgh12345678xyz" not in text and "AAHdqTcv" not in text
    assert described["body"] == {
        "query": "cats",
        "api_key": sealing.mark("tvly-SECRET0123456789abcdef"),
    }
    # A credential in a query or a body enters the key as its keyed fingerprint: two
    # different ones never share an answer (a rotated one misses once); the same one hits.
    assert call_one.key != call_other.key
    _, again, _ = calls.prepare(one)
    assert again.key == call_one.key and again.occurrence == 1


def test_a_key_value_field_named_key_is_data_not_a_credential(db):
    from runs.engine.calls.capture.core import Outgoing, StepCalls

    calls = StepCalls(sequence_id=0, action="kv")
    made = [
        calls.prepare(
            Outgoing("POST", "http://kv.test/get", [], json.dumps({"key": k}).encode(), "httpx")
        )
        for k in ("user:42", "user:43")
    ]
    assert made[0][2]["body"] == {"key": "user:42"}
    assert made[0][1].key != made[1][1].key


@pytest.mark.parametrize(
    "broken",
    [b"", b"<html>upstream hiccup</html>", json.dumps({"id": "x", "choices": []}).encode()],
    ids=["empty", "not json", "no choices"],
)
def test_a_broken_200_answer_fails_the_step_with_the_raw_body_and_is_never_cached(
    rewind_settings, monkeypatch, db, broken
):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    healthy = {"on": False}

    def answer(call):
        if healthy["on"] or not call.path.endswith("/chat/completions"):
            return provider.simulate(call)
        return 200, broken

    provider = LoopbackProvider(answer)
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        failed = run("httpx_sync_plain")
        assert failed.status == Run.Status.FAILED
        step = failed.nodes.get(name="ask")
        assert step.status == Node.Status.FAILED
        assert "chat/completions answered 200, but the answer" in step.error, step.error
        assert step.raw_output == broken.decode()
        assert LLMCacheEntry.objects.count() == 0

        healthy["on"] = True  # the provider is fixed: the same run now asks it again
        again = run("httpx_sync_plain")
    assert again.status == Run.Status.COMPLETED, again.error
    assert again.nodes.get(name="ask").cache_source == "live"
    assert LLMCacheEntry.objects.count() == 1
    registry._load.cache_clear()


@action(reads=[], writes=["models"])
def pooled(state: State) -> State:
    import os

    import urllib3

    # urllib3 used directly, with its defaults (the answer preloaded).
    with urllib3.PoolManager() as pool:
        answer = pool.request("GET", os.environ["OPENAI_BASE_URL"] + "/models")
    return state.update(models=[m["id"] for m in json.loads(answer.data)["data"]])


def urllib3_application():
    return ApplicationBuilder().with_actions(pooled=pooled).with_entrypoint("pooled").build()


def test_urllib3_used_directly_with_its_defaults_records_the_answer(served, rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "urllib3_direct": "runs.tests.engine.calls.test_capture_transports.urllib3_application",
    }
    registry._load.cache_clear()
    served.start()
    source = run("urllib3_direct")
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="pooled")
    assert step.output == {"models": ["rewind-sim-1"]}
    assert [c["library"] for c in step.calls] == ["urllib3"]
    served.stop()
    replay = execute_run(create_replay(source).pk)
    assert replay_verdict(source, replay).verdict == "identical", replay.error
