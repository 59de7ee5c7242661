"""Credentials are never stored, found by name and by shape (issue 34, item 2).

A Burr app reaches services on loopback that take their credential as ``?appid=``,
``?access_key=``, ``?auth=``, ``?code=``, as a webhook token in the path, in
``{"auth": {"pass": …}}`` and ``{"credentials": …}`` bodies, and in an ``X-RapidAPI-Key`` header
the answer quotes back (``helpers/credential_apps``). Each credential is a canary looked for
everywhere it must never be: every row of the database, ``rewind_export``'s files, the export
zip a non-staff user downloads, every page and JSON response (admin included), the logs and the
OTLP payload. Ordinary values under the same names (``?code=fr``, ``{"key": "user:42"}``, the
path ``/v1/users/42/orders``) are kept, keys stay stable, and the replay is identical with the
services gone. Then the shapes a maintained secret scanner (detect-secrets) knows, and
high-entropy path segments, in any text: a request, an error message, a library's log line.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import re
import secrets
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.test import Client

from runs.engine.apps import registry
from runs.engine.calls.capture import redaction
from runs.engine.calls.capture.core import Outgoing, StepCalls
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.engine.telemetry import otlp
from runs.lib import sealing
from runs.lib import secret_shapes as shapes
from runs.lib.sealing import mark
from runs.models import Node, Run, ToolCacheEntry
from runs.tests.conftest import LoopbackProvider
from runs.tests.engine.telemetry.test_otlp_export import Receiver
from runs.tests.helpers import credential_apps
from runs.tests.helpers.credential_apps import CANARIES, WEBHOOK_ID
from runs.tests.sitewide.test_secrets import dump_database, every_page


def forms(canary: str) -> set[str]:
    """The canary as it may be written: as it is, and percent-encoded in a URL."""
    return {canary, quote(canary, safe=""), quote(canary, safe="/")}


def leaks(text: str) -> list[str]:
    """The cases whose canary ``text`` holds, in any of its forms."""
    return [case for case, canary in CANARIES.items() if any(f in text for f in forms(canary))]


@pytest.fixture
def collector(rewind_settings) -> Iterator[Receiver]:
    """A loopback OTLP collector every finished run is exported to."""
    otlp.reset()
    with Receiver().serve() as receiver:
        rewind_settings.REWIND_OTLP_ENDPOINT = receiver.url
        rewind_settings.REWIND_OTLP_CONTENT = True  # prompts and answers too: still no key
        yield receiver
        otlp.reset()


@pytest.fixture
def recorded(rewind_settings, monkeypatch, collector, caplog, db) -> Iterator[dict]:
    """The credential app recorded against its services on loopback, then replayed with them
    gone; the runs, the services' log of calls, the collector."""
    caplog.set_level(logging.DEBUG)  # the HTTP libraries' own lines (urllib3 logs each URL)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **credential_apps.APPS}
    registry._load.cache_clear()
    services = LoopbackProvider(credential_apps.answer)
    with services.serve() as url:
        monkeypatch.setenv("CREDENTIAL_BASE_URL", url.removesuffix("/v1"))
        source = execute_run(create_run("credential_tools", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    replay = execute_run(create_replay(source).pk)
    assert otlp.flush()
    yield {"source": source, "replay": replay, "services": services, "collector": collector}
    registry._load.cache_clear()


def test_no_credential_is_stored_exported_shown_or_logged(
    recorded, tmp_path, django_user_model, caplog
):
    source, replay = recorded["source"], recorded["replay"]
    # The canaries went out as the services take them (else their absence proves nothing).
    sent = " ".join(f"{c.path} {c.raw.decode()} {c.headers}" for c in recorded["services"].calls)
    assert set(leaks(sent)) == set(CANARIES)
    places: dict[str, str] = {"the database": dump_database(), "the logs": caplog.text}

    out = tmp_path / "exported"
    call_command("rewind_export", str(source.pk), "--out", str(out), stdout=io.StringIO())
    for path in sorted(Path(out).rglob("*")):
        if path.is_file():
            places[f"rewind_export's {path.name}"] = path.read_text(errors="replace")

    viewer = Client()
    viewer.force_login(django_user_model.objects.create_user("viewer", password="pw"))
    response = viewer.get(f"/runs/{source.pk}/export/")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/zip")
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        for name in archive.namelist():
            places[f"the export zip's {name}"] = archive.read(name).decode(errors="replace")
    for run in (source, replay):
        places[f"/api/runs/{run.pk}"] = viewer.get(f"/api/runs/{run.pk}").content.decode()
        for node in run.nodes.all():
            page = viewer.get(f"/runs/{run.pk}/nodes/{node.sequence_id}/")
            assert page.status_code == 200
            places[f"step page {run.pk}/{node.name}"] = page.content.decode()

    root = Client()
    root.force_login(django_user_model.objects.create_superuser("root", "r@example.test"))
    for url, body in every_page(root).items():  # every page and JSON response, admin included
        places[url] = body.decode(errors="replace")
    places["the OTLP payload"] = b"".join(recorded["collector"].bodies).decode(errors="replace")

    leaked = {place: leaks(text) for place, text in places.items() if leaks(text)}
    assert leaked == {}, leaked
    # The steps' requests were shown, redacted: the places named, the credentials not.
    step = viewer.get(f"/runs/{source.pk}/nodes/{source.nodes.get(name='notify').sequence_id}/")
    assert f"/api/webhooks/{WEBHOOK_ID}/" in step.content.decode()


def test_ordinary_values_are_kept_and_the_replay_is_identical_with_the_services_gone(recorded):
    """``?code=fr``, ``{"key": "user:42"}`` and ``/v1/users/42/orders`` are data: stored as they
    were sent, and part of the key; their credential-bearing neighbours are not."""
    args = {e.args["endpoint"]: e.args for e in ToolCacheEntry.objects.all()}
    assert args["/v1/users/42/orders"]["query"] == [["code", "fr"]]
    assert args["/kv/get"]["body"] == {"key": "user:42"}
    # A credential by position: its keyed fingerprint where it stood (never the value).
    greeting = args["/api/HttpTrigger1"]
    assert greeting["query"] == [["code", mark(CANARIES["query code"])], ["name", "Ada"]]
    assert args["/v1/login"]["body"]["auth"].startswith("[credential:")
    assert args["/v1/login"]["body"]["remember"] is True
    assert args["/v1/connect"]["body"]["credentials"].startswith("[credential:")
    assert args["/data/2.5/weather"]["query"] == [
        ["appid", mark(CANARIES["query appid"])],
        ["q", "Paris"],
    ]
    webhook = [e for e in args if e.startswith(f"/api/webhooks/{WEBHOOK_ID}/")]
    assert webhook == [f"/api/webhooks/{WEBHOOK_ID}/{mark(CANARIES['webhook path token'])}"]
    # The answer quoting the header's key is stored with the key's fingerprint in its place …
    answer = ToolCacheEntry.objects.get(args__endpoint="/quotes/random").result["text"]
    rapid = mark(CANARIES["answer quoting X-RapidAPI-Key"])
    assert json.loads(answer)["note"] == f"key {rapid} has 99 calls left this month"
    # Keys stay stable: the replay, with the services gone, is answered from the cache.
    source, replay = recorded["source"], recorded["replay"]
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    for node in replay.nodes.all():
        assert {c["cache_source"] for c in node.calls} == {"tool-cache"}, node.calls
    # … and given back exactly to the replay, which sends the same key.
    assert replay.nodes.get(name="notify").output["quote"] == credential_apps.QUOTE


def test_the_otlp_payload_names_the_calls_but_holds_no_credential(recorded):
    spans = recorded["collector"].trace_of(recorded["source"])
    paths = {s["attributes"].get("url.path") for s in spans} - {None}
    assert "/v1/users/42/orders" in paths and "/data/2.5/weather" in paths
    assert any(p.startswith(f"/api/webhooks/{WEBHOOK_ID}/[credential:") for p in paths), paths
    payload = b"".join(recorded["collector"].bodies).decode(errors="replace")
    assert leaks(payload) == []


# -- names, shapes and entropy, in any text ----------------------------------------------------


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _shapes() -> dict[str, str]:
    """Credentials of well-known providers, made up here (random parts): the shapes a scanner
    recognises, none of which Rewind named before."""
    alnum = lambda n: secrets.token_hex(n)[:n]  # noqa: E731
    upper = lambda n: "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(n))  # noqa: E731
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": secrets.token_hex(6), "iat": 1716000000}).encode())
    return {
        "a JWT": f"{header}.{payload}.{_b64url(secrets.token_bytes(32))}",
        "an AWS access key id": f"AKIA{upper(16)}",
        "a GitLab token": f"glpat-{alnum(20)}",
        "a Stripe live key": f"sk_live_{alnum(24)}",
        "a SendGrid key": f"SG.{_b64url(secrets.token_bytes(16))[:22]}.{_b64url(secrets.token_bytes(33))[:43]}",
        "a Slack webhook": f"https://hooks.slack.com/services/T{upper(8)}/B{upper(8)}/{alnum(24)}",
        "a Mailchimp key": f"{alnum(32)}-us14",
        "a PyPI token": f"pypi-AgEIcHlwaS5vcmc{_b64url(secrets.token_bytes(60))}",
        "a private key": "-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(_b64url(secrets.token_bytes(48)) for _ in range(3))
        + "\n-----END RSA PRIVATE KEY-----",
    }


@pytest.mark.parametrize("name", sorted(_shapes()))
def test_a_scanners_shape_is_redacted_in_a_request_and_any_text(name, db):
    shape = _shapes()[name]
    parts = [p for p in shape.splitlines() if len(p) >= 16]  # a key's every line must go
    text = f"upstream said: token {shape} was rejected"
    assert not [p for p in parts if p in redaction.redact_text(text)]
    mark = f"[secret:{sealing.fingerprint(shape)}]"  # two secrets, two marks: a diff tells
    assert redaction.redact_text(text) == f"upstream said: token {mark} was rejected"
    body = {"messages": [{"role": "user", "content": f"use {shape} please"}]}
    assert redaction.redact_body(body) == {
        "messages": [{"role": "user", "content": f"use {mark} please"}]
    }
    # In a request's content it is part of what was said: keyed exactly (another value is
    # another key), masked by its fingerprint in the tool entry's stored request.
    calls = StepCalls(sequence_id=0, action="tool")

    def prepared(note: str):
        content = json.dumps({"note": note}).encode()
        return calls.prepare(Outgoing("POST", "http://svc.test/v1/run", [], content, "httpx"))

    _, call, described = prepared(text)
    _, other, _ = prepared(text.replace(shape[-6:], "ZZZZZZ"))
    assert described["body"] == {"note": text} and call.key != other.key
    assert shape not in call.endpoint and call.shapes and call.host == "svc.test"
    stored = calls._entry_fields(call, described, {"status": 200})["args"]
    assert not [p for p in parts if p in json.dumps(stored)]


def test_a_high_entropy_path_segment_is_redacted_and_an_ordinary_path_kept(db):
    token, other = secrets.token_urlsafe(51), secrets.token_urlsafe(51)
    hex_key = secrets.token_hex(16)
    calls = StepCalls(sequence_id=0, action="tool")

    def prepared(url: str):
        return calls.prepare(Outgoing("POST", url, [], b'{"content": "hi"}', "requests"))

    _, one, described = prepared(f"https://discord.test/api/webhooks/{WEBHOOK_ID}/{token}")
    _, again, _ = prepared(f"https://discord.test/api/webhooks/{WEBHOOK_ID}/{token}")
    _, two, _ = prepared(f"https://discord.test/api/webhooks/{WEBHOOK_ID}/{other}")
    _, keyed, _ = prepared(f"https://weather.test/forecast/{hex_key}/48.85,2.35")
    assert token not in json.dumps(described)
    assert described["endpoint"].startswith(f"/api/webhooks/{WEBHOOK_ID}/[credential:")
    assert hex_key not in keyed.endpoint and keyed.endpoint.endswith("/48.85,2.35")
    assert keyed.endpoint.startswith("/forecast/[credential:")
    assert one.key == again.key and again.occurrence == 1  # the same call: one key
    # A guess by entropy may be data (a document's id): two of them never share an answer.
    assert one.key != two.key and one.endpoint != two.endpoint
    # Ordinary paths, ids of every usual kind, are data: kept, and they tell keys apart.
    for path in (
        "/v1/users/42/orders",
        "/v1/orders/550e8400-e29b-41d4-a716-446655440000",
        "/v1/docs/how-to-build-an-agent-with-apache-burr",
        "/v1/objects/cus_NffrFeUfNV2Hib",
        "/v1/events/1714560000123",
    ):
        _, call, _ = prepared(f"https://api.test{path}")
        assert call.endpoint == path
    message = redaction.redact_text(f"POST https://discord.test/api/webhooks/1/{token} failed")
    assert token not in message and message.startswith("POST https://discord.test/api/webhooks/1/")
    assert message.endswith("] failed") and described["endpoint"].split("/")[-1] in message


def test_credentials_under_every_name_and_ordinary_values_beside_them():
    azure = base64.b64encode(secrets.token_bytes(40)).decode()
    query = [("appid", "a" * 8 + secrets.token_hex(12)), ("access_key", secrets.token_hex(16)),
             ("auth", secrets.token_hex(20)), ("code", azure), ("lang", "fr")]  # fmt: skip
    assert redaction.redact_query(query) == [
        ("appid", "[redacted]"), ("access_key", "[redacted]"), ("auth", "[redacted]"),
        ("code", "[redacted]"), ("lang", "fr"),
    ]  # fmt: skip
    kept = [("code", "fr"), ("key", "user:42"), ("token", "next"), ("auth", "")]
    assert redaction.redact_query(kept) == kept
    body = {
        "auth": {"user": "ada", "pass": "pw-0123456789"},
        "credentials": [{"client_secret": "s3cr3t-0123456789"}],
        "key": "user:42",
        "code": "fr",
        "payload": {"key": "user:43", "token": secrets.token_hex(20)},
    }
    assert redaction.redact_body(body) == {
        "auth": "[redacted]",
        "credentials": "[redacted]",
        "key": "user:42",
        "code": "fr",
        "payload": {"key": "user:43", "token": "[redacted]"},
    }
    assert redaction.secrets_in_body(body) >= {"pw-0123456789", "s3cr3t-0123456789"}
    rapid = secrets.token_hex(25)
    assert rapid in redaction.secrets_in_headers(
        [("X-RapidAPI-Key", rapid), ("X-RapidAPI-Host", "quotes.p.rapidapi.com")]
    )
    assert "quotes.p.rapidapi.com" not in redaction.secrets_in_headers(
        [("X-RapidAPI-Host", "quotes.p.rapidapi.com")]
    )


def test_a_url_an_error_message_or_a_library_log_line_quotes_is_redacted_the_same_way():
    appid, code, azure = secrets.token_hex(16), secrets.token_hex(16), secrets.token_urlsafe(40)
    url = f"https://api.test/data/2.5/weather?q=Paris&appid={appid}&code={azure}&lang=fr"
    message = f"HTTPError: 401 Client Error: Unauthorized for url: {url}"
    redacted = redaction.redact_text(message)
    assert appid not in redacted and azure not in redacted
    assert "q=Paris" in redacted and "lang=fr" in redacted
    assert redaction.redact_text("GET /v1/items?code=fr&key=user:42") == (
        "GET /v1/items?code=fr&key=user:42"
    )
    assert code not in redaction.redact_url(f"https://api.test/v1?access_key={code}")
    password = f"pw{secrets.token_hex(3)}"  # short: redacted in its URL, not as a word elsewhere
    quoted = redaction.redact_text(f"could not connect to postgres://ada:{password}@db.test/app")
    assert (
        quoted
        == f"could not connect to postgres://ada:[secret:{sealing.fingerprint(password)}]@db.test/app"
    )
    record = logging.LogRecord("urllib3.connectionpool", logging.DEBUG, __file__, 1,
                               '%s "%s %s" 200', ("http://127.0.0.1:1", "GET", url), None)  # fmt: skip
    redaction.RedactingFilter().filter(record)
    assert appid not in record.getMessage() and "q=Paris" in record.getMessage()


def test_an_older_rows_credential_never_reaches_the_otlp_payload(
    rewind_settings, run_row, node_row
):
    """A row written before these rules (its endpoint holds a webhook token, its error quotes
    a URL with ``?appid=``) is redacted again on its way out to the collector."""
    token, appid = secrets.token_urlsafe(51), secrets.token_hex(16)
    run = run_row(status=Run.Status.FAILED, error=f"tools: 401 for https://w.test/x?appid={appid}")
    node_row(run, 0, name="tools", kind=Node.Kind.TOOL, status=Node.Status.FAILED,
             error=f"401 for https://w.test/data?appid={appid}", calls=[{
                 "kind": "tool", "method": "POST", "status": 401, "latency_ms": 1.0,
                 "endpoint": f"/api/webhooks/{WEBHOOK_ID}/{token}", "cache_source": "live",
                 "error": f"HTTPError for /api/webhooks/{WEBHOOK_ID}/{token}?appid={appid}"}])  # fmt: skip
    otlp.reset()
    with Receiver().serve() as receiver:
        rewind_settings.REWIND_OTLP_ENDPOINT = receiver.url
        otlp.export_run(run.pk)
        assert otlp.flush()
    otlp.reset()
    payload = b"".join(receiver.bodies)
    assert payload and token.encode() not in payload and appid.encode() not in payload
    (path,) = {s["attributes"].get("url.path") for s in receiver.spans()} - {None}
    assert path.startswith(f"/api/webhooks/{WEBHOOK_ID}/[credential:")


def test_an_answer_is_shown_with_its_credentials_and_secret_shapes_masked():
    """``redact_answer`` (how a stored answer is shown: it is stored exactly): the request's
    secrets, credential fields of a JSON answer and credential query parameters of URLs it
    quotes read ``[redacted]``, each secret shape its own ``[secret:<fingerprint>]``; the rest
    of the body is the same bytes."""
    issued, jwt, key = secrets.token_urlsafe(30), _shapes()["a JWT"], secrets.token_hex(16)
    template = (
        '{"access_token": "ISSUED",  "token_type":"bearer", "id": "JWT",\n'
        ' "next": "https://api.test/items?page=2&api_key=KEY", "key": "user:42", "code": "fr"}'
    )
    body = template.replace("ISSUED", issued).replace("JWT", jwt).replace("KEY", key)
    stored = redaction.redact_answer(body, {"unused-secret-123"})
    assert stored == (
        '{"access_token": "[redacted]",  "token_type":"bearer", "id": "MARK",\n'
        ' "next": "https://api.test/items?page=2&api_key=[redacted]", "key": "user:42", "code": "fr"}'
    ).replace("MARK", f"[secret:{sealing.fingerprint(jwt)}]")
    stream = f'data: {{"delta": "quoting {key} and {jwt}"}}\n\n'
    assert redaction.redact_answer(stream, {key}) == (
        f'data: {{"delta": "quoting [redacted] and [secret:{sealing.fingerprint(jwt)}]"}}\n\n'
    )


def test_a_urls_own_credentials_are_known_to_redact_them_where_they_are_quoted():
    token, password = secrets.token_urlsafe(51), f"pw-{secrets.token_hex(8)}"
    url = f"https://bot:{password}@discord.test/api/webhooks/{WEBHOOK_ID}/{token}?wait=true"
    found = redaction.secrets_in_url(url)
    assert {token, password} <= found and WEBHOOK_ID not in found
    assert redaction.secrets_in_url("https://api.test/v1/users/42/orders?code=fr") == set()
    quoted = redaction.redact_text(f"Unknown webhook {token} at {url}", found)
    assert token not in quoted and password not in quoted
    assert f"/api/webhooks/{WEBHOOK_ID}/[credential:" in quoted  # in its path: the fingerprint


def _full_scan(text: str) -> list[tuple[int, int]]:
    """What the scanner finds with every rule run on the whole text (no needle skipped)."""
    scanner = shapes.scanner()
    rules = scanner.rules
    try:
        scanner.rules = [(valid, kind, rule, ()) for valid, kind, rule, _ in rules]
        return scanner.spans(text)
    finally:
        scanner.rules = rules


@pytest.mark.parametrize("name", sorted(_shapes()))
def test_a_rules_needles_never_hide_what_the_rule_finds(name):
    shape = _shapes()[name]
    for text in (
        shape,
        f"x {shape} y",
        f"AWS secret key = '{shape}'",
        shape.upper(),
        shape.lower(),
    ):
        assert shapes.scanner().spans(text) == _full_scan(text), text


def test_every_rule_with_needles_skips_prose_and_the_scan_finds_the_same():
    rules = shapes.scanner().rules
    assert sum(1 for *_, needed in rules if needed) >= len(rules) - 3  # most rules skip
    # A needle is read from the rule: every match of it contains one (case folded if asked).
    for _, _, rule, needed in rules:
        for shape in _shapes().values():
            for match in rule.finditer(shape):
                text = match.group(0).casefold() if rule.flags & re.IGNORECASE else match.group(0)
                assert not needed or any(n in text for n in needed), (rule.pattern, needed)
    prose = " ".join(["the cost of each policy in the east region was 42.5 per contact"] * 60)
    assert shapes.scanner().spans(prose) == _full_scan(prose) == []
