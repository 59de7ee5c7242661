"""Nothing recorded is ever rewritten (issue 40, DESIGN.md "Exact and private"): per transport —
an LLM call through httpx and the openai SDK, a tool call through requests, aiohttp and urllib,
a subprocess's stdout and stderr, a gRPC unary answer, an MCP tool's result — a run whose
answer holds strings that only look like secrets (a private key block, a JWT, an ``sk-`` key,
an AWS key id) replays unchanged with the very bytes the step was given, at zero tokens and
without reaching the service; and the database file holds none of those strings readable
(sealed, not rewritten). An answer quoting the request's own credential header back replays
exactly too, while that credential is nowhere in the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Run
from runs.tests.conftest import LoopbackProvider
from runs.tests.helpers import exact_private_apps as apps
from runs.tests.helpers.raw_dump import plaintext_found

STDERR_TEXT = f"warning: a key was printed\n{apps.PRIVATE_KEY}\n{apps.OPENAI_KEY}"


class Services:
    """The loopback services the apps reach, and what reached them."""

    def __init__(self, http: LoopbackProvider, grpc_service: Any, started: Path) -> None:
        self.http, self.grpc, self.started = http, grpc_service, started

    def reached(self) -> int:
        commands = len(self.started.read_text().splitlines()) if self.started.exists() else 0
        return len(self.http.calls) + self.grpc.reached + commands


@pytest.fixture
def services(rewind_settings, db, monkeypatch, tmp_path) -> Iterator[Services]:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **apps.APPS}
    registry._load.cache_clear()
    monkeypatch.setenv(apps.STDOUT, apps.SECRET_TEXT)
    monkeypatch.setenv(apps.STDERR, STDERR_TEXT)
    monkeypatch.setenv(apps.STARTED, str(tmp_path / "commands.txt"))
    monkeypatch.setenv("MCP_NOTES_FILE", str(tmp_path / "notes.txt"))
    monkeypatch.setenv("MCP_STARTED_FILE", str(tmp_path / "started.txt"))
    http = LoopbackProvider(apps.answer)
    grpc_service = apps.ReportService()
    monkeypatch.setenv(apps.GRPC_TARGET, grpc_service.target)
    try:
        with http.serve() as url:
            monkeypatch.setenv(apps.BASE_URL, url)
            yield Services(http, grpc_service, tmp_path / "commands.txt")
    finally:
        grpc_service.stop()
        registry._load.cache_clear()


def completed(run: Run) -> Run:
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


def _report() -> dict[str, Any]:
    return {"text": apps.report_bytes().decode("utf-8"), "sha256": apps.digest(apps.report_bytes())}


def _grpc() -> dict[str, Any]:
    raw, small = apps.grpc_answer_bytes(), apps.grpc_answer_bytes(small=True)
    return {
        "hex": raw.hex(),
        "fields": MessageToDict(struct_pb2.Struct.FromString(raw)),
        "small_hex": small.hex(),
        "small_fields": MessageToDict(struct_pb2.Struct.FromString(small)),
    }


# What each app's step must hold, live and replayed: exactly what the service sent.
EXPECTED = {
    "llm_httpx": lambda: {
        "text": apps.SECRET_TEXT,
        "sha256": apps.digest(apps.chat_answer_bytes()),
    },
    "llm_openai": lambda: {"text": apps.SECRET_TEXT},
    "tool_requests": _report,
    "tool_aiohttp": _report,
    "tool_urllib": _report,
    "command": lambda: {"stdout": apps.SECRET_TEXT, "stderr": STDERR_TEXT, "returncode": 0},
    "grpc": _grpc,
}
BASE64_UNSEALED = (
    "core._stored_response stores a binary answer (not UTF-8, or holding U+0000: a protobuf "
    "message) as {'base64': …} in a plain dict; PackedJSON seals a value only when "
    "secret_shapes.looks_secret finds a shape in its JSON text, which it cannot see through "
    "base64 — so runs_toolcacheentry.result holds the secrets one base64 decode away"
)


def _transports() -> list[Any]:
    return [name if name == "grpc" else name for name in sorted(EXPECTED)]


def record_and_replay(name: str) -> tuple[Run, Run]:
    source = completed(execute_run(create_run(name, {}).pk))
    replay = completed(execute_run(create_replay(source).pk))
    return source, replay


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_answer_holding_secret_shaped_text_replays_byte_for_byte(services, name):
    expected = EXPECTED[name]()
    source = completed(execute_run(create_run(name, {}).pk))
    assert source.nodes.get(name="fetch").output == expected
    reached = services.reached()
    assert reached >= 1

    replay = completed(execute_run(create_replay(source).pk))

    assert replay_verdict(source, replay).verdict == "identical"
    replayed = replay.nodes.get(name="fetch")
    assert replayed.output == expected  # the bytes the step was given, not a "[redacted]"
    assert replayed.total_tokens == 0 and replayed.cost_usd == 0
    assert replayed.calls and {c["cache_source"] for c in replayed.calls} <= {"cache", "tool-cache"}
    assert services.reached() == reached  # answered from the recording


@pytest.mark.parametrize("name", _transports())
def test_an_answer_holding_secret_shaped_text_is_unreadable_in_the_database_file(services, name):
    record_and_replay(name)
    assert plaintext_found(apps.NEEDLES) == {}


# A shape alone (with no other to seal the column it shares), one per kind.
@pytest.mark.parametrize("shape", apps.SHAPES)
def test_an_answer_holding_one_secret_shape_alone_replays_exactly_and_is_sealed(
    services, monkeypatch, shape
):
    monkeypatch.setenv(apps.SHAPE, shape)
    sent = apps.report_bytes(shape)
    source, replay = record_and_replay("tool_requests")
    expected = {"text": sent.decode("utf-8"), "sha256": apps.digest(sent)}
    assert source.nodes.get(name="fetch").output == expected
    assert replay.nodes.get(name="fetch").output == expected
    assert replay_verdict(source, replay).verdict == "identical"
    assert plaintext_found({shape: apps.NEEDLES[shape]}) == {}


def _places() -> list[Any]:
    return [
        pytest.param(place, shape, id=f"{place}-{shape}")
        for place in ("query", "body", "mcp")
        for shape in apps.SHAPES
    ]


@pytest.mark.parametrize(("place", "shape"), _places())
def test_a_request_holding_a_secret_shape_is_unreadable_in_the_database_file(
    services, monkeypatch, place, shape
):
    monkeypatch.setenv(apps.PLACE, place)
    monkeypatch.setenv(apps.VALUE, f"please keep {apps.SHAPES[shape]} for me")
    source, replay = record_and_replay("send_mcp" if place == "mcp" else "send_http")
    assert replay_verdict(source, replay).verdict == "identical"
    assert plaintext_found({shape: apps.NEEDLES[shape]}) == {}


def test_an_llm_answer_is_counted_live_and_free_on_replay(services):
    source, replay = record_and_replay("llm_httpx")
    assert source.nodes.get(name="fetch").total_tokens == 53
    assert replay.nodes.get(name="fetch").total_tokens == 0
    assert [c["cache_source"] for c in replay.nodes.get(name="fetch").calls] == ["cache"]


def test_a_protobuf_answer_keeps_its_length_prefixes_on_replay(services):
    small = apps.grpc_answer_bytes(small=True)
    assert b"\x00" not in small and small.decode("utf-8")  # an answer stored as text
    source, replay = record_and_replay("grpc")
    output = replay.nodes.get(name="fetch").output
    assert bytes.fromhex(output["hex"]) == apps.grpc_answer_bytes()
    assert bytes.fromhex(output["small_hex"]) == small
    # A rewritten message would not parse whole: its length prefixes would not hold.
    parsed = struct_pb2.Struct.FromString(bytes.fromhex(output["small_hex"]))
    assert parsed["aws"] == apps.AWS_KEY_ID and parsed["openai"] == apps.OPENAI_KEY
    parsed = struct_pb2.Struct.FromString(bytes.fromhex(output["hex"]))
    assert parsed["text"] == apps.SECRET_TEXT and parsed["jwt"] == apps.JWT
    assert services.grpc.reached == 2


def test_an_mcp_tool_result_quoting_secret_shaped_text_replays_exactly(services, tmp_path):
    source = completed(execute_run(create_run("mcp", {}).pk))
    step = source.nodes.get(name="fetch")
    assert step.output["text"] == f"noted: {apps.SECRET_TEXT}"
    started = (tmp_path / "started.txt").read_text().splitlines()
    assert len(started) == 1

    replay = completed(execute_run(create_replay(source).pk))

    assert replay_verdict(source, replay).verdict == "identical"
    replayed = replay.nodes.get(name="fetch")
    assert replayed.output == step.output
    assert {c["cache_source"] for c in replayed.calls} == {"tool-cache"}
    assert (tmp_path / "started.txt").read_text().splitlines() == started  # no server started
    # The result is sealed (the request's own sk-… key: ARGS_SK_UNMASKED, tested above).
    assert plaintext_found({k: v for k, v in apps.NEEDLES.items() if k != "OpenAI key"}) == {}


def test_an_answer_quoting_the_credential_header_replays_exactly_with_no_plaintext_stored(
    services,
):
    sent = apps.quota_bytes(apps.RAPIDAPI_KEY)
    source = completed(execute_run(create_run("quoted_key", {}).pk))
    step = source.nodes.get(name="fetch")
    assert step.output == {"note": "key <key> has 99 calls left", "sha256": apps.digest(sent)}

    replay = completed(execute_run(create_replay(source).pk))

    assert replay_verdict(source, replay).verdict == "identical"
    # The app read its own key back where the answer quoted it: the exact bytes it was sent.
    assert replay.nodes.get(name="fetch").output == step.output
    assert len(services.http.calls) == 1
    assert plaintext_found({"X-RapidAPI-Key": apps.RAPIDAPI_KEY}) == {}
