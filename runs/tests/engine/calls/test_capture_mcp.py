"""MCP tools are captured (issue 29, item 4; ``capture.mcp_adapter``): the requests a Burr
step's ``ClientSession`` sends — the handshake, ``tools/list``, ``tools/call`` — are calls of
the step keyed by JSON-RPC method and params, over stdio and over Streamable HTTP. An
unchanged replay answers them from the cache without starting the server (no process, no
connection) and never repeats the tool's side effect; a call with other arguments is refused
naming it; a JSON-RPC error replays as the same ``MCPError``.
"""

from __future__ import annotations

import asyncio
import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command

from runs.engine.apps import registry
from runs.engine.calls import capture
from runs.engine.calls.capture import mcp_adapter
from runs.engine.calls.capture.core import StepCalls
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.engine.providers.simulator import Simulator
from runs.models import Node, Run, ToolCacheEntry
from runs.tests.helpers.mcp_apps import NOTES, server_parameters
from runs.tests.helpers.mcp_server import build_server

APPS = {
    name: f"runs.tests.helpers.mcp_apps.{name}"
    for name in (
        "stdio_notes",
        "stdio_client_api",
        "http_notes",
        "http_sampling",
        "stdio_clock",
        "stdio_refused",
    )
}
HANDSHAKE_AND_TWO_NOTES = [
    ("tool", "/initialize"),
    ("tool", "/tools/list"),
    ("tool", "/tools/call"),
    ("tool", "/tools/call"),
]


class Files:
    """The server's side effect (a line per note) and its start marker (a line per start)."""

    def __init__(self, directory: Path) -> None:
        self.notes = directory / "notes.txt"
        self.started = directory / "started.txt"

    @staticmethod
    def _lines(path: Path) -> list[str]:
        return path.read_text().splitlines() if path.exists() else []

    def noted(self) -> list[str]:
        return self._lines(self.notes)

    def starts(self) -> int:
        return len(self._lines(self.started))


class HttpServer:
    """The test's MCP server over Streamable HTTP on loopback (an OS-assigned port), served by
    uvicorn in a thread of its own until ``stop()``."""

    def __init__(self) -> None:
        import uvicorn

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        app = build_server().streamable_http_app()
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def reachable(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), 1).close()
        except OSError:
            return False
        return True


@pytest.fixture
def files(tmp_path, monkeypatch) -> Files:
    made = Files(tmp_path)
    monkeypatch.setenv("MCP_NOTES_FILE", str(made.notes))
    monkeypatch.setenv("MCP_STARTED_FILE", str(made.started))
    return made


@pytest.fixture
def apps(rewind_settings, db, files) -> Iterator[Files]:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield files
    registry._load.cache_clear()


@pytest.fixture
def http_server(monkeypatch) -> Iterator[HttpServer]:
    server = HttpServer()
    monkeypatch.setenv("MCP_SERVER_URL", server.url)
    yield server
    server.stop()


def run(name: str) -> Run:
    return execute_run(create_run(name, {}).pk)


def calls_of(step: Node) -> list[tuple[str, str]]:
    return [(c["kind"], c["endpoint"]) for c in step.calls]


def test_stdio_tools_are_recorded_and_an_unchanged_replay_starts_no_server(apps):
    source = run("stdio_notes")

    assert source.status == Run.Status.COMPLETED, source.error
    assert apps.noted() == list(NOTES) and apps.starts() == 1
    step = source.nodes.get(name="step")
    assert step.kind == "tool"
    assert calls_of(step) == HANDSHAKE_AND_TWO_NOTES
    assert {(c["method"], c["library"], c["status"]) for c in step.calls} == {("MCP", "mcp", 200)}
    assert [c["cache_source"] for c in step.calls] == ["live"] * 4
    assert step.output["answers"] == [f"noted: {text}" for text in NOTES]
    assert step.output["tools"] == ["ask_client", "note", "refuse"]
    # The server's start and its pipes are the MCP calls', not an escape from the capture.
    assert source.warnings == []
    assert ToolCacheEntry.objects.filter(tool="MCP /tools/call").count() == 2

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert apps.noted() == list(NOTES)  # the side effect did not happen again
    assert apps.starts() == 1  # nor did the server start
    replayed = replay.nodes.get(name="step")
    assert replayed.output_sha256 == step.output_sha256
    assert calls_of(replayed) == HANDSHAKE_AND_TWO_NOTES
    assert [c["cache_source"] for c in replayed.calls] == ["tool-cache"] * 4


def test_mcp_2s_client_is_captured_too(apps):
    source = run("stdio_client_api")

    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="step")
    assert calls_of(step) == [
        ("tool", "/server/discover"),
        ("tool", "/tools/call"),
        ("tool", "/tools/list"),
    ]
    assert apps.noted() == ["with Client"] and apps.starts() == 1

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert [c["cache_source"] for c in replay.nodes.get(name="step").calls] == ["tool-cache"] * 3
    assert apps.noted() == ["with Client"] and apps.starts() == 1


def test_streamable_http_tools_replay_identical_with_the_server_stopped(apps, http_server):
    source = run("http_notes")

    assert source.status == Run.Status.COMPLETED, source.error
    assert apps.noted() == list(NOTES)
    step = source.nodes.get(name="step")
    # Only the MCP calls: the HTTP requests under them (the POSTs, the GET stream, the DELETE
    # that ends the session) are not recorded a second time as calls of their own.
    assert calls_of(step) == HANDSHAKE_AND_TWO_NOTES
    assert {c["library"] for c in step.calls} == {"mcp"}
    assert source.warnings == []
    stored = json.dumps(list(ToolCacheEntry.objects.values("args", "result")))
    assert "127.0.0.1" not in stored and "mcp-session-id" not in stored.lower()

    http_server.stop()
    assert not http_server.reachable()
    out = io.StringIO()
    call_command("rewind_replay", str(source.pk), "--json", stdout=out, stderr=io.StringIO())

    result = json.loads(out.getvalue())["results"][0]
    assert result["verdict"] == "identical", result
    assert result["total_tokens"] == 0 and result["escaped"] == []
    assert apps.noted() == list(NOTES)
    replayed = Run.objects.get(pk=result["replay"]).nodes.get(name="step")
    assert replayed.output_sha256 == step.output_sha256
    assert [c["cache_source"] for c in replayed.calls] == ["tool-cache"] * 4


def test_the_llm_call_a_sampling_callback_makes_is_the_steps(apps, http_server, monkeypatch):
    """A server's request to the client (sampling) is handled in the session's context, not in
    the transport's (which the capture sends from): the LLM call its callback makes is a call
    of the step; the session's answer to the server is not a call of its own."""
    with Simulator().serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = run("http_sampling")

    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="step")
    assert step.kind == "llm" and step.total_tokens > 0
    assert sorted(calls_of(step)) == [
        ("llm", "chat/completions"),
        ("tool", "/initialize"),
        ("tool", "/tools/call"),
        ("tool", "/tools/list"),
    ]
    assert step.output["answers"][0].startswith("the client's model said: ")
    assert source.warnings == []

    http_server.stop()
    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    # The server, not asked, asks nothing back: the tool's answer is the one recorded.
    assert calls_of(replay.nodes.get(name="step")) == [
        ("tool", "/initialize"),
        ("tool", "/tools/call"),
        ("tool", "/tools/list"),
    ]


def test_a_tool_call_with_other_arguments_is_refused_and_starts_no_server(apps):
    source = run("stdio_clock")
    assert source.status == Run.Status.COMPLETED, source.error
    assert len(apps.noted()) == 1 and apps.starts() == 1

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.FAILED
    step = replay.nodes.get(name="note")
    assert step.status == Node.Status.FAILED
    assert "a call the recorded run never made: MCP /tools/call" in step.error, step.error
    assert "nearest recorded call MCP /tools/call differs in" in step.error
    assert "body.arguments.text" in step.error
    assert len(apps.noted()) == 1 and apps.starts() == 1
    # The handshake was answered from the cache; the new call was refused, never sent.
    assert [(c["endpoint"], c["cache_source"]) for c in step.calls] == [
        ("/initialize", "tool-cache"),
        ("/tools/call", "live"),
    ]
    assert step.calls[1]["error"] in step.error


def test_a_forks_unchanged_step_that_asks_something_new_is_refused_not_sent(apps):
    """A fork's step that re-executes with its source's inputs is guarded (no server started)
    but not hermetic: its miss reaches the transport that was not started, and is refused."""
    source = run("stdio_clock")
    assert source.status == Run.Status.COMPLETED, source.error

    fork = execute_run(create_fork(source, "begin", "state.n", "2").pk)

    assert fork.status == Run.Status.FAILED
    assert fork.nodes.get(name="begin").output == {"topic": "topic 2"}
    step = fork.nodes.get(name="note")
    assert "sent MCP /tools/call to an MCP server a replay does not start" in step.error
    assert "mcp_apps.py:" in step.error  # the user's line
    assert len(apps.noted()) == 1 and apps.starts() == 1


def test_a_json_rpc_error_replays_as_the_same_mcp_error(apps):
    source = run("stdio_refused")

    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="step")
    assert step.output["error"] == {
        "type": "MCPError",
        "code": -32602,
        "message": "refused: not today",
        "data": {"reason": "not today"},
    }
    # (The session lists the tools after the note's answer, to validate it by its schema.)
    assert [(c["endpoint"], c["status"]) for c in step.calls] == [
        ("/initialize", 200),
        ("/tools/call", 400),
        ("/tools/call", 200),
        ("/tools/list", 200),
    ]
    refused = ToolCacheEntry.objects.get(args__body__name="refuse")
    assert refused.failed  # a failed attempt: replayed to this step, never a new lookup's answer

    replay = execute_run(create_replay(source).pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    replayed = replay.nodes.get(name="step")
    assert replayed.output == step.output
    assert [(c["status"], c["cache_source"]) for c in replayed.calls] == [
        (200, "tool-cache"),
        (400, "tool-cache"),
        (200, "tool-cache"),
        (200, "tool-cache"),
    ]
    assert apps.noted() == ["after the refusal"] and apps.starts() == 1


def test_the_key_is_method_and_params_never_meta_or_ids(db):
    calls = StepCalls(sequence_id=0, action="tools")
    asked = {"name": "note", "arguments": {"text": "a"}}
    stamped = {**asked, "_meta": {"progressToken": 7, "io.modelcontextprotocol/clientInfo": {}}}
    _, plain, described = calls.prepare(mcp_adapter._outgoing("tools/call", asked))
    _, meta, _ = calls.prepare(mcp_adapter._outgoing("tools/call", stamped))
    _, other, _ = calls.prepare(
        mcp_adapter._outgoing("tools/call", {"name": "note", "arguments": {"text": "b"}})
    )
    _, listed, _ = calls.prepare(mcp_adapter._outgoing("tools/list", None))

    assert described == {"method": "MCP", "endpoint": "/tools/call", "query": [], "body": asked}
    assert meta.key == plain.key and meta.occurrence == 1
    assert other.key != plain.key and listed.key != plain.key
    assert listed.endpoint == "/tools/list"


def test_outside_a_step_a_session_and_its_server_are_untouched(files, db):
    capture.install()
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    replaced = dict(zip(stdio_client.__code__.co_freevars, stdio_client.__closure__, strict=True))
    assert hasattr(replaced["func"].cell_contents, "__rewind_original__")  # installed…
    wrapped = []

    async def use() -> str:
        async with stdio_client(server_parameters()) as (read, write):
            async with ClientSession(read, write) as session:
                wrapped.append(isinstance(session._dispatcher, mcp_adapter._CapturedDispatcher))
                await session.initialize()
                result = await session.call_tool("note", {"text": "outside"})
        return result.content[0].text

    assert asyncio.run(use()) == "noted: outside"  # …and idle outside a step
    assert wrapped == [True]
    assert files.noted() == ["outside"] and files.starts() == 1
    assert ToolCacheEntry.objects.count() == 0
