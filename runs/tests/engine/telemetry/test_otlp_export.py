"""OpenTelemetry export (issue 18, item 6): with REWIND_OTLP_ENDPOINT set, every run reaches a
collector over OTLP/HTTP as one trace — a span per step, a child span per call, GenAI and
``rewind.*`` attributes — with content only when asked and never a credential. The collector
here is a loopback OTLP/HTTP receiver the test starts, decoding what it gets with the
protocol's own protobuf messages.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.engine.providers.simulator import Simulator
from runs.engine.telemetry import otlp
from runs.models import Run
from runs.tests.conftest import PROJECT_ROOT, closed_port_url, subprocess_database_url
from runs.tests.helpers import transport_apps
from runs.tests.helpers.transport_apps import APPS as TRANSPORT_APPS


class Receiver:
    """An OTLP/HTTP collector on 127.0.0.1: every POST body kept as it came and decoded."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.paths: list[str] = []
        self.content_types: list[str] = []
        self.url = ""

    @contextmanager
    def serve(self) -> Iterator[Receiver]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.paths.append(self.path)
                receiver.content_types.append(self.headers.get("Content-Type", ""))
                receiver.bodies.append(body)
                answer = b""
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent."""

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.daemon = True
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)

    def spans(self) -> list[dict[str, Any]]:
        """Every span received: name, ids, parent, times and attributes as plain values."""
        found = []
        for body in self.bodies:
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        found.append(
                            {
                                "name": span.name,
                                "trace": span.trace_id.hex(),
                                "id": span.span_id.hex(),
                                "parent": span.parent_span_id.hex(),
                                "start": span.start_time_unix_nano,
                                "end": span.end_time_unix_nano,
                                "error": span.status.code == 2,
                                "attributes": {a.key: _value(a.value) for a in span.attributes},
                            }
                        )
        return found

    def trace_of(self, run: Run) -> list[dict[str, Any]]:
        roots = [s for s in self.spans() if s["attributes"].get("rewind.run") == run.pk
                 and not s["parent"]]  # fmt: skip
        assert len({r["trace"] for r in roots}) == 1, roots
        return [s for s in self.spans() if s["trace"] == roots[0]["trace"]]


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


@pytest.fixture
def collector(rewind_settings) -> Iterator[Receiver]:
    """A loopback collector, REWIND_OTLP_ENDPOINT pointing at it; the exporter reset around."""
    otlp.reset()
    with Receiver().serve() as receiver:
        rewind_settings.REWIND_OTLP_ENDPOINT = receiver.url
        rewind_settings.REWIND_OTLP_CONTENT = False
        yield receiver
        otlp.reset()


def _by_parent(spans: list[dict[str, Any]]) -> tuple[dict, dict[str, list[dict]]]:
    root = next(s for s in spans if not s["parent"])
    children: dict[str, list[dict]] = {}
    for span in spans:
        children.setdefault(span["parent"], []).append(span)
    for group in children.values():
        group.sort(key=lambda s: (s["start"], s["attributes"].get("rewind.sequence_id", 0)))
    return root, children


def test_a_run_reaches_the_collector_as_one_trace_with_a_span_per_step_and_per_call(
    collector, research_run
):
    assert otlp.flush()
    assert set(collector.paths) == {"/v1/traces"}
    assert set(collector.content_types) == {"application/x-protobuf"}
    spans = collector.trace_of(research_run)
    root, children = _by_parent(spans)
    steps = list(research_run.nodes.order_by("sequence_id"))

    assert root["name"] == "rewind.run research"
    assert root["attributes"]["rewind.run"] == research_run.pk
    assert root["attributes"]["rewind.status"] == "completed"
    assert "rewind.parent" not in root["attributes"]
    assert "rewind.override" not in root["attributes"]
    step_spans = sorted(children[root["id"]], key=lambda s: s["attributes"]["rewind.sequence_id"])
    assert [s["name"] for s in step_spans] == [n.name for n in steps]
    for step, span in zip(steps, step_spans, strict=True):
        attributes = span["attributes"]
        assert attributes["rewind.cache_source"] == step.cache_source
        assert attributes["rewind.output_sha256"] == step.output_sha256
        assert root["start"] <= span["start"] <= span["end"] <= root["end"]
    starts = [s["start"] for s in step_spans]
    assert starts == sorted(starts)

    llm_steps = [(n, s) for n, s in zip(steps, step_spans, strict=True) if n.kind == "llm"]
    assert llm_steps, "the demo has llm steps"
    for step, span in llm_steps:
        (call,) = children[span["id"]]
        attributes = call["attributes"]
        assert call["name"] == f"chat {step.model_requested}"
        assert attributes["gen_ai.system"] == "openai"
        assert attributes["gen_ai.request.model"] == step.model_requested
        assert attributes["gen_ai.response.model"] == (step.model_answered or step.model_requested)
        assert attributes["gen_ai.usage.input_tokens"] == step.prompt_tokens
        assert attributes["gen_ai.usage.output_tokens"] == step.completion_tokens
        assert step.prompt_tokens > 0 and step.completion_tokens > 0
        assert not any(key.startswith(("gen_ai.prompt", "gen_ai.completion")) for key in attributes)
        assert span["start"] <= call["start"] <= call["end"] <= span["end"]
    tool_spans = [s for n, s in zip(steps, step_spans, strict=True) if n.kind != "llm"]
    assert all(s["id"] not in children for s in tool_spans)  # no calls, no children


def test_a_fork_says_its_parent_and_override_and_a_replay_its_parent(collector, research_run):
    node = research_run.nodes.filter(kind="llm").order_by("sequence_id").first()
    fork = execute_run(create_fork(research_run, node.name, "temperature", "0.7").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert otlp.flush()

    root, children = _by_parent(collector.trace_of(fork))
    assert root["attributes"]["rewind.parent"] == research_run.pk
    assert root["attributes"]["rewind.fork_node"] == node.name
    override = root["attributes"]["rewind.override"]
    assert '"field":"temperature"' in override and '"value":0.7' in override, override
    assert root["trace"] != collector.trace_of(research_run)[0]["trace"]
    step_spans = {s["attributes"]["rewind.sequence_id"]: s for s in children[root["id"]]}
    assert len(step_spans) == fork.nodes.count()
    inherited = fork.nodes.filter(cache_source="inherited")
    for step in inherited:
        span = step_spans[step.sequence_id]
        assert span["attributes"]["rewind.cache_source"] == "inherited"
        assert span["attributes"]["rewind.src_run"] == research_run.pk
    changed = step_spans[node.sequence_id]
    (call,) = children[changed["id"]]
    assert call["attributes"]["gen_ai.request.temperature"] == 0.7

    replay = execute_run(create_replay(research_run).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert otlp.flush()
    root, _ = _by_parent(collector.trace_of(replay))
    assert root["attributes"]["rewind.parent"] == research_run.pk
    assert "rewind.override" not in root["attributes"]


def test_content_is_exported_only_with_rewind_otlp_content(collector, run_pipeline):
    first = run_pipeline("research")
    assert otlp.flush()
    without = [s for s in collector.trace_of(first) if s["name"].startswith("chat ")]
    assert without and not any(
        k.startswith(("gen_ai.prompt", "gen_ai.completion"))
        for s in without
        for k in s["attributes"]
    )

    collector.bodies.clear()
    from django.conf import settings

    settings.REWIND_OTLP_CONTENT = True
    second = run_pipeline("research")
    assert otlp.flush()
    calls = [s for s in collector.trace_of(second) if s["name"].startswith("chat ")]
    step = second.nodes.filter(kind="llm").order_by("sequence_id").first()
    by_step = {
        s["attributes"]["rewind.sequence_id"]: s["id"]
        for s in collector.trace_of(second)
        if "rewind.sequence_id" in s["attributes"]
    }
    attributes = next(s for s in calls if s["parent"] == by_step[step.sequence_id])["attributes"]
    assert attributes["gen_ai.prompt.0.role"] == "system"
    assert attributes["gen_ai.prompt.1.role"] == "user"
    assert attributes["gen_ai.prompt.1.content"] == step.prompt[1]["content"]
    assert attributes["gen_ai.completion.0.role"] == "assistant"
    assert attributes["gen_ai.completion.0.content"]


def test_a_burr_app_exports_its_calls_and_never_a_credential(collector, served_apps, caplog):
    caplog.set_level(logging.DEBUG)
    served = served_apps(TRANSPORT_APPS)
    served.start()
    from django.conf import settings

    settings.REWIND_OTLP_CONTENT = True  # even with content, the credential stays home
    run = execute_run(create_run("httpx_sync_plain", {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    assert otlp.flush()

    root, children = _by_parent(collector.trace_of(run))
    assert root["name"] == "rewind.run httpx_sync_plain"
    steps = {s["name"]: s for s in children[root["id"]]}
    assert set(steps) == {"ask", "count"}
    ask = run.nodes.get(name="ask")
    llm, tool = sorted(children[steps["ask"]["id"]], key=lambda s: s["attributes"]["rewind.call"])
    assert llm["attributes"]["gen_ai.system"] == "openai"
    assert llm["attributes"]["gen_ai.request.model"] == "rewind-sim-1"
    assert llm["attributes"]["gen_ai.usage.input_tokens"] == ask.calls[0]["prompt_tokens"] > 0
    assert llm["attributes"]["gen_ai.usage.output_tokens"] == ask.calls[0]["completion_tokens"] > 0
    assert llm["attributes"]["rewind.cache_source"] == "live"
    assert llm["attributes"]["gen_ai.prompt.0.content"] == transport_apps.QUESTION
    assert llm["attributes"]["gen_ai.completion.0.content"] == ask.output["answer"]
    assert tool["name"] == "GET /v1/models"
    assert tool["attributes"]["http.request.method"] == "GET"
    assert "count" not in [s["name"] for s in children.get(steps["ask"]["id"], [])]

    # The app sent the credential in a header, an x-api-key header and a query parameter.
    received = b"".join(collector.bodies)
    assert transport_apps.CANARY.encode() not in received
    assert transport_apps.CANARY not in caplog.text


def test_an_unreachable_collector_never_fails_a_run_and_is_logged_once(
    rewind_settings, run_pipeline, caplog, monkeypatch
):
    otlp.reset()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "0.5")  # give up fast
    rewind_settings.REWIND_OTLP_ENDPOINT = closed_port_url().removesuffix("/v1")
    caplog.set_level(logging.DEBUG)
    try:
        runs = []
        for _ in range(3):
            runs.append(run_pipeline("research"))
            otlp.flush(1.0)
        assert [r.status for r in runs] == [Run.Status.COMPLETED] * 3
        warnings = [r for r in caplog.records if r.name == "rewind.otlp"]
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
        assert "could not be reached" in warnings[0].getMessage()
        assert not [r for r in caplog.records if r.name.startswith("opentelemetry")]
        assert not [r for r in caplog.records if r.exc_info]
    finally:
        otlp.reset()


def test_without_an_endpoint_the_sdk_is_not_even_imported(rewind_settings, run_pipeline):
    otlp.reset()
    rewind_settings.REWIND_OTLP_ENDPOINT = ""
    assert run_pipeline("research").status == Run.Status.COMPLETED
    assert otlp._pipeline is None
    # In a fresh process: the engine loads and a run ends without importing the SDK.
    code = (
        "import os, sys, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'rewind_site.settings'; "
        "django.setup(); import runs.engine.execution.runner, runs.recording; "
        "from runs.engine.telemetry import export_run; export_run(1); "
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "REWIND_OTLP_ENDPOINT": ""}
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.django_db(transaction=True)
def test_a_short_command_delivers_its_trace_before_it_exits(rewind_settings, tmp_path):
    with Receiver().serve() as receiver:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "DATABASE_URL": subprocess_database_url(),
            "REWIND_ARTIFACT_DIR": str(tmp_path / "artifacts"),
            "REWIND_OTLP_ENDPOINT": receiver.url,
        }
        done = subprocess.run(
            [sys.executable, "manage.py", "rewind_run", "--pipeline", "research", "--json"],
            cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        run = Run.objects.get(pk=json.loads(done.stdout)["run"])
        root, children = _by_parent(receiver.trace_of(run))  # no flush here: the exit sent it
        assert len(children[root["id"]]) == run.nodes.count()
        assert "rewind.otlp" not in done.stderr


# A command run the way a shell runs it, after which the interpreter refuses new threads, as
# Python 3.12 and later 3.13 releases do at shutdown ("can't create new thread at interpreter
# shutdown"): the trace must have left at the command's end.
NO_THREADS_AT_EXIT = """
import sys, threading
from django.core.management import execute_from_command_line
try:
    execute_from_command_line(["manage.py", *sys.argv[1:]])
finally:
    def refuse(self):
        raise RuntimeError("can't create new thread at interpreter shutdown")
    threading.Thread.start = refuse
"""


@pytest.mark.django_db(transaction=True)
def test_a_command_delivers_its_trace_where_exit_can_start_no_thread(rewind_settings, tmp_path):
    with Receiver().serve() as receiver:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "DJANGO_SETTINGS_MODULE": "rewind_site.settings",
            "DATABASE_URL": subprocess_database_url(),
            "REWIND_ARTIFACT_DIR": str(tmp_path / "artifacts"),
            "REWIND_OTLP_ENDPOINT": receiver.url,
        }
        done = subprocess.run(
            [sys.executable, "-c", NO_THREADS_AT_EXIT, "rewind_run", "--pipeline", "research",
             "--json"],
            cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        run = Run.objects.get(pk=json.loads(done.stdout)["run"])
        root, children = _by_parent(receiver.trace_of(run))
        assert len(children[root["id"]]) == run.nodes.count()
        assert "did not shut down cleanly" not in done.stderr


def test_an_export_error_is_logged_once_and_the_run_goes_on(
    collector, run_pipeline, caplog, monkeypatch
):
    def broken(run_id: int, *, content: bool = False) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(otlp, "plan_run", broken)
    first, second = run_pipeline("research"), run_pipeline("research")
    assert first.status == second.status == Run.Status.COMPLETED
    messages = [r.getMessage() for r in caplog.records if r.name == "rewind.otlp"]
    assert len(messages) == 1 and "the database went away" in messages[0], messages


@pytest.mark.parametrize(
    "value",
    [
        "ftp://collector:4318",
        "collector:4318",
        "http://user:pw@collector:4318",
        "http://h:4318/?k=v",
        "http://h:port",
    ],
)
def test_a_bad_endpoint_is_refused_at_start_up(monkeypatch, value):
    from rewind_site.env import env_collector_url

    monkeypatch.setenv("REWIND_OTLP_ENDPOINT", value)
    with pytest.raises(ImproperlyConfigured) as refused:
        env_collector_url("REWIND_OTLP_ENDPOINT")
    assert "REWIND_OTLP_ENDPOINT" in str(refused.value)
    assert "pw" not in str(refused.value)


def test_a_good_endpoint_is_read_without_its_trailing_slash(monkeypatch):
    from rewind_site.env import env_collector_url

    monkeypatch.setenv("REWIND_OTLP_ENDPOINT", "https://otel.example.com:4318/")
    assert env_collector_url("REWIND_OTLP_ENDPOINT") == "https://otel.example.com:4318"
    monkeypatch.delenv("REWIND_OTLP_ENDPOINT")
    assert env_collector_url("REWIND_OTLP_ENDPOINT") == ""


SECRET = "sk-test-SECRET1234567890abcdef"  # the recorded program's key: never exported


@pytest.mark.django_db(transaction=True)
def test_a_program_recorded_with_rewind_hooks_is_exported_without_its_key(
    rewind_settings, tmp_path
):
    from runs.tests.helpers.chatbot_program import CHATBOT, PROGRAM

    script = tmp_path / "my_agent.py"
    script.write_text(PROGRAM)
    with Simulator().serve() as url, Receiver().serve() as receiver:
        env = {
            **os.environ,
            "DATABASE_URL": subprocess_database_url(),
            "REWIND_PIPELINES": f"chatbot={CHATBOT}.application",
            "OPENAI_BASE_URL": url,
            "OPENAI_API_KEY": SECRET,
            "HOME": str(tmp_path),
            "PYTHONPATH": str(PROJECT_ROOT),
            "REWIND_OTLP_ENDPOINT": receiver.url,
            "REWIND_OTLP_CONTENT": "1",  # even with content, the key stays home
        }
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr

    run = Run.objects.get()
    spans = receiver.trace_of(run)
    # Each of the two turns ended the run (and exported it); the ids are the run's, so the
    # second export repeats the first turn's spans with the same ids: a collector folds them.
    distinct = {s["id"]: s for s in spans}
    root, children = _by_parent(list(distinct.values()))
    assert root["attributes"]["rewind.provider"] == "app"
    steps = sorted(children[root["id"]], key=lambda s: s["attributes"]["rewind.sequence_id"])
    assert [s["name"] for s in steps] == [n.name for n in run.nodes.order_by("sequence_id")]
    calls = [c for s in steps for c in children.get(s["id"], []) if c["name"].startswith("chat ")]
    assert len(calls) == 4
    assert all(c["attributes"]["gen_ai.usage.input_tokens"] > 0 for c in calls)
    assert all(c["attributes"]["gen_ai.prompt.0.content"] for c in calls)
    assert SECRET.encode() not in b"".join(receiver.bodies)
    assert SECRET not in done.stderr + done.stdout


def test_an_imported_run_is_exported_with_its_calls_once(collector, db):
    """An imported run (issue 18) reaches the collector like any run: the GenAI spans of Burr's
    log are its calls; importing it again sends nothing more."""
    from pathlib import Path

    import burr

    from runs.engine.imports.service import import_path

    app_dir = Path(burr.__file__).parent / "tracking/server/demo_data/demo_chatbot_with_traces"
    report = import_path(app_dir / "chat-1-giraffe")
    assert otlp.flush()
    run = Run.objects.get(pk=report.imported[0])
    root, children = _by_parent(collector.trace_of(run))
    steps = list(run.nodes.order_by("sequence_id"))
    step_spans = sorted(children[root["id"]], key=lambda s: s["attributes"]["rewind.sequence_id"])
    assert [s["name"] for s in step_spans] == [n.name for n in steps]
    for step, span in zip(steps, step_spans, strict=True):
        if step.kind == "llm":
            calls = children[span["id"]]
            assert len(calls) == len(step.calls)
            assert sum(c["attributes"]["gen_ai.usage.input_tokens"] for c in calls) == (
                step.prompt_tokens
            )
            assert calls[0]["attributes"]["gen_ai.request.model"] == step.model_requested
    received = len(collector.bodies)
    assert import_path(app_dir / "chat-1-giraffe").imported == []
    assert otlp.flush() and len(collector.bodies) == received
