"""Imports keep no credential (issue 34, item 3): a Burr tracker log — one Burr ships, copied —
with span attributes ``key`` and ``token`` holding secret-looking values, ``?appid=`` inside a
span's ``http.url``, a webhook token in another's path, and a runtime input ``api_key``, imported;
each canary is nowhere in the database, the step pages, the API or the OTLP payload, while the
ordinary values beside them (a ``key`` of ``user:42``, a ``?code=fr`` URL, the prompt) are kept.
"""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import burr
import pytest

from runs.engine.imports.service import import_path
from runs.engine.telemetry import otlp
from runs.models import Run
from runs.tests.engine.telemetry.test_otlp_export import Receiver
from runs.tests.sitewide.test_secrets import dump_database

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"
APP = ("demo_chatbot_with_traces", "chat-1-giraffe")
CANARIES = {
    "span attribute key": secrets.token_hex(20),
    "span attribute token": secrets.token_urlsafe(32),
    "appid in a span's http.url": secrets.token_hex(16),
    "webhook token in a span's URL": secrets.token_urlsafe(51),
    "runtime input api_key": f"key-{secrets.token_hex(16)}",
}
APPID, WEBHOOK_TOKEN = "appid in a span's http.url", "webhook token in a span's URL"
WEATHER = "https://api.openweathermap.org/data/2.5/weather?q=Paris"
WEBHOOK = "https://discord.test/api/webhooks/1122/"
ORDINARY_URL = "https://api.example.test/v1/users/42/orders?code=fr"


def _attribute(seq: int, span: str, key: str, value: Any) -> dict[str, Any]:
    return {"type": "attribute", "key": key, "action_sequence_id": seq, "span_id": span,
            "value": value, "tags": {}, "time_logged": "2024-08-27T18:58:33.909683Z"}  # fmt: skip


def planted_log(tmp_path: Path) -> Path:
    """The shipped chatbot log, copied, with the credentials planted where tracked apps put
    them: the first step's runtime inputs, and attributes logged inside its span."""
    project, app = APP
    root = tmp_path / "burr"
    shutil.copytree(DEMO / project / app, root / project / app)
    log = root / project / app / "log.jsonl"
    c = CANARIES
    lines = []
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] == "begin_entry" and entry["sequence_id"] == 0:
            entry["inputs"]["api_key"] = c["runtime input api_key"]
        lines.append(entry)
        if entry["type"] == "begin_span" and entry["span_id"] == "0:0.0":
            lines += [
                _attribute(0, "0:0.0", "key", c["span attribute key"]),
                _attribute(0, "0:0.0", "token", c["span attribute token"]),
                _attribute(0, "0:0.0", "http.url", f"{WEATHER}&appid={c[APPID]}"),
            ]
        if entry["type"] == "begin_span" and entry["span_id"] == "1:0.0":
            lines += [
                _attribute(1, "1:0.0", "key", "user:42"),
                _attribute(1, "1:0.0", "http.url", ORDINARY_URL),
                _attribute(1, "1:0.0", "webhook", f"{WEBHOOK}{c[WEBHOOK_TOKEN]}"),
            ]
    log.write_text("".join(json.dumps(e) + "\n" for e in lines))
    return root


def leaks(text: str) -> list[str]:
    return [case for case, canary in CANARIES.items() if canary in text]


@pytest.fixture
def collector(rewind_settings) -> Iterator[Receiver]:
    otlp.reset()
    with Receiver().serve() as receiver:
        rewind_settings.REWIND_OTLP_ENDPOINT = receiver.url
        rewind_settings.REWIND_OTLP_CONTENT = True
        yield receiver
        otlp.reset()


def test_an_imported_logs_credentials_are_nowhere_and_its_ordinary_values_kept(
    db, tmp_path, collector, signed_in
):
    root = planted_log(tmp_path)
    assert set(leaks((root / APP[0] / APP[1] / "log.jsonl").read_text())) == set(CANARIES)

    report = import_path(root)
    assert report.errors == [] and len(report.imported) == 1
    run = Run.objects.get(pk=report.imported[0])
    assert otlp.flush()

    places = {"the database": dump_database(), "the OTLP payload": b"".join(
        collector.bodies).decode(errors="replace")}  # fmt: skip
    places[f"/api/runs/{run.pk}"] = signed_in.get(f"/api/runs/{run.pk}").content.decode()
    places[f"/runs/{run.pk}/"] = signed_in.get(f"/runs/{run.pk}/").content.decode()
    for node in run.nodes.all():
        page = signed_in.get(f"/runs/{run.pk}/nodes/{node.sequence_id}/")
        assert page.status_code == 200
        places[f"step page {node.sequence_id}"] = page.content.decode()
    leaked = {place: leaks(text) for place, text in places.items() if leaks(text)}
    assert leaked == {}, leaked

    # The ordinary values beside them are kept, as logged.
    first, second = run.nodes.get(sequence_id=0), run.nodes.get(sequence_id=1)
    assert first.inputs["inputs"]["prompt"] == "Please draw a giraffe."
    assert first.inputs["inputs"]["api_key"] == "[redacted]"
    assert run.turns[0]["inputs"] == {"prompt": "Please draw a giraffe.", "api_key": "[redacted]"}
    attributes = {k: v for s in second.spans for k, v in s["attributes"].items()}
    assert attributes["key"] == "user:42" and attributes["http.url"] == ORDINARY_URL
    assert attributes["webhook"].startswith(f"{WEBHOOK}[credential:")
    planted = {k: v for s in first.spans for k, v in s["attributes"].items()}
    assert "key" not in planted and "token" not in planted  # named like credentials: not kept
    assert planted["http.url"] == f"{WEATHER}&appid=[redacted]"
    step_page = signed_in.get(f"/runs/{run.pk}/nodes/1/").content.decode()
    assert "user:42" in step_page and "/v1/users/42/orders?code=fr" in step_page
