"""Content that looks like a secret is kept exactly, sealed at rest and masked wherever it is
shown (DESIGN.md, "Exact and private").

Rows are planted directly — a run, its fork, their steps (inputs, prompt, output: blobs), Burr's
state rows, an LLM and a tool cache entry the steps pinned — holding made-up secrets of the shapes
a scanner knows (an RSA private key block, a JWT, an AWS access key id, a GitHub token). None of
them may reach a page (the step inspector, the compare page, the run page, the runs list, the
admin pages of those rows), the JSON API, ``rewind_export``'s files, the export zip or the OTLP
payload — while the words around them still show; the database file holds none of them readable
(their columns are sealed); and the models still read back every one exactly.

A second set of secrets sits in columns that are not sealed (a fork's override, a run's inputs,
a step's spans and error, the artifact file, an ``sk-`` key): masked on display all the same.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import secrets
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from runs.engine.execution.persister import PARTITION_KEY
from runs.engine.telemetry import otlp
from runs.models import BurrState, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.pages.masking import masked
from runs.tests.engine.telemetry.test_otlp_export import Receiver
from runs.tests.helpers.fork_editor import current
from runs.tests.sitewide.test_secrets import dump_database, every_page


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _upper(n: int) -> str:
    return "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(n))


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": secrets.token_hex(6), "iat": 1716000000}).encode())
    return f"{header}.{payload}.{_b64url(secrets.token_bytes(32))}"


def _private_key() -> str:
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(_b64url(secrets.token_bytes(48)) for _ in range(3))
        + "\n-----END RSA PRIVATE KEY-----"
    )


def made_up() -> dict[str, str]:
    """Secrets of the shapes a scanner knows, random each time."""
    return {
        "key": _private_key(),
        "jwt": _jwt(),
        "aws": f"AKIA{_upper(16)}",
        "github": f"ghp_{secrets.token_hex(18)}",
    }


def pieces(secret: str) -> list[str]:
    """What of a secret must never show: the whole, and each line of a key's body (a page may
    break it, JSON escape its newlines; its BEGIN and END lines are every key's)."""
    lines = secret.splitlines()
    return [secret, *(line for line in lines if len(line) >= 16 and not line.startswith("---"))]


MARK = re.compile(r"\[secret:[0-9a-f]{20}\]")


def as_read(text: str) -> str:
    """``text`` with each secret's mark (``[secret:<fingerprint>]``) read as ``[redacted]``."""
    return MARK.sub("[redacted]", text)


def leaks(text: str, planted: dict[str, str]) -> list[str]:
    """The names of the secrets ``text`` shows, in any piece."""
    return [name for name, secret in planted.items() if any(p in text for p in pieces(secret))]


@pytest.fixture
def collector(rewind_settings) -> Iterator[Receiver]:
    """A loopback OTLP collector, asked for content (prompts and answers) too."""
    otlp.reset()
    with Receiver().serve() as receiver:
        rewind_settings.REWIND_OTLP_ENDPOINT = receiver.url
        rewind_settings.REWIND_OTLP_CONTENT = True
        yield receiver
        otlp.reset()


def _artifact(settings: Any, run: Run, text: str) -> None:
    directory = Path(settings.REWIND_ARTIFACT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{run.pk}.md").write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    Run.objects.filter(pk=run.pk).update(artifact_sha256=digest)
    run.artifact_sha256 = digest


def _state(run: Run, sequence_id: int, position: str, values: dict[str, Any]) -> None:
    BurrState.objects.create(
        partition_key=PARTITION_KEY,
        app_id=str(run.pk),
        sequence_id=sequence_id,
        position=position,
        status="completed",
        state=json.dumps({**values, "__SEQUENCE_ID": sequence_id, "__PRIOR_STEP": position}),
    )


@pytest.fixture
def planted(rewind_settings, run_row, node_row) -> dict[str, Any]:
    """A run and its fork whose stored content holds secrets (``sealed``: blobs and cache
    entries, sealed at rest) and whose plain columns hold others (``shown``: masked only)."""
    sealed = made_up()
    shown = {
        "override": f"AKIA{_upper(16)}",
        "inputs": _jwt(),
        "span": f"ghp_{secrets.token_hex(18)}",
        "error": f"AKIA{_upper(16)}",
        "artifact": _private_key(),
        "openai": f"sk-proj-{secrets.token_hex(20)}",
    }
    llm = LLMCacheEntry.objects.create(
        key="a" * 64,
        node_name="plan",
        provider="endpoint",
        model_requested="gpt-4o-mini",
        model_answered="gpt-4o-mini",
        request={
            "method": "POST",
            "endpoint": "/v1/chat/completions",
            "query": [],
            "body": {
                "model": "gpt-4o-mini",
                "messages": [
                    {
                        "role": "user",
                        "content": f"Deploy with this key:\n{sealed['key']}\nthen report.",
                    }
                ],
            },
        },
        response={
            "status": 200,
            "headers": {"content-type": "application/json"},
            "text": json.dumps(
                {
                    "choices": [
                        {
                            "message": {
                                "role": "assistant",
                                "content": f"Deployed; the session token is {sealed['jwt']} for now.",
                            }
                        }
                    ],
                    "usage": {"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21},
                }
            ),
        },
        response_sha256="b" * 64,
        usage={"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21},
    )
    tool = ToolCacheEntry.objects.create(
        key="c" * 64,
        tool="GET /v1/keys",
        tool_version="http",
        args={"method": "GET", "endpoint": "/v1/keys", "query": [], "body": None},
        result={
            "status": 200,
            "headers": {},
            "text": json.dumps({"note": f"the vault answered {sealed['github']} today"}),
        },
        result_sha256="d" * 64,
    )
    a = run_row(
        inputs={"question": "Which policy?", "region": f"north {shown['inputs']}"},
        trajectory_sha256="e" * 64,
    )
    llm_call = {
        "kind": "llm",
        "endpoint": "/v1/chat/completions",
        "key": llm.key,
        "occurrence": 0,
        "cache_source": "live",
        "entry": f"llm:{llm.pk}",
        "method": "POST",
        "format": "openai",
        "provider": "endpoint",
        "model_requested": "gpt-4o-mini",
        "model_answered": "gpt-4o-mini",
        "prompt_tokens": 12,
        "completion_tokens": 9,
        "latency_ms": 3.0,
        "error": f"upstream said {shown['openai']} was rate limited",
    }
    tool_call = {
        "kind": "tool",
        "endpoint": "/v1/keys",
        "key": tool.key,
        "occurrence": 0,
        "cache_source": "live",
        "entry": f"tool:{tool.pk}",
        "method": "GET",
        "status": 200,
        "latency_ms": 2.0,
    }
    plan_output = {"objective": f"Ship it with {sealed['jwt']} attached", "steps": ["step one"]}
    plan = node_row(
        a,
        0,
        "plan",
        inputs={"question": f"Which key is {sealed['aws']} for?", "region": "all"},
        prompt=[
            {"role": "system", "content": "You plan launches."},
            {"role": "user", "content": f"Deploy with this key:\n{sealed['key']}\nthen report."},
        ],
        output=plan_output,
        output_sha256="1" * 64,
        cache_key=llm.key,
        cache_entries=[f"llm:{llm.pk}"],
        calls=[llm_call],
    )
    research = node_row(
        a,
        1,
        "research",
        kind=Node.Kind.TOOL,
        inputs={"plan": plan_output},
        output={"rows": [f"vault token {sealed['github']} rotated"]},
        output_sha256="2" * 64,
        cache_entries=[f"tool:{tool.pk}"],
        calls=[tool_call],
        spans=[
            {
                "id": "s1",
                "parent": None,
                "name": "lookup",
                "start": "2024-01-01T00:00:00+00:00",
                "end": "2024-01-01T00:00:01+00:00",
                "attributes": {"note": f"span saw {shown['span']} here"},
            }
        ],
    )
    _state(a, 0, "plan", {"question": "Which policy?", "plan": plan_output})
    _state(a, 1, "research", {"plan": plan_output, "research": research.output})
    _artifact(rewind_settings, a, f"# Report\n\nThe deploy key:\n\n{shown['artifact']}\n\nEnd.\n")

    b = run_row(
        parent=a,
        fork_node="plan",
        fork_sequence_id=0,
        override={
            "node": "plan",
            "field": "prompt",
            "value": f"Plan the launch again; the deploy key is now {shown['override']} — keep it",
        },
        trajectory_sha256="f" * 64,
    )
    node_row(
        b,
        0,
        "plan",
        inputs={"question": f"Which key is {sealed['aws']} for?", "region": "all"},
        prompt=[{"role": "user", "content": f"Deploy with this key:\n{sealed['key']}\nagain."}],
        output={"objective": f"Ship it now with {sealed['github']} attached", "steps": []},
        output_sha256="3" * 64,
        cache_source=Node.CacheSource.OVERRIDE,
    )
    node_row(
        b,
        1,
        "research",
        kind=Node.Kind.TOOL,
        status=Node.Status.FAILED,
        output=None,
        output_sha256="",
        error=f"the vault refused {shown['error']} (HTTP 403)",
        raw_output=f"denied: {shown['openai']}",
    )
    _state(b, 0, "plan", {"plan": {"objective": f"Ship it now with {sealed['github']}"}})
    _artifact(rewind_settings, b, f"# Report\n\nThe deploy key:\n\n{_private_key()}\n\nEnd.\n")
    return {
        "a": a,
        "b": b,
        "sealed": sealed,
        "shown": shown,
        "llm": llm,
        "tool": tool,
        "plan": plan,
    }


def _everything(planted: dict[str, Any]) -> dict[str, str]:
    return {**planted["sealed"], **{f"shown {k}": v for k, v in planted["shown"].items()}}


def test_no_page_or_json_response_shows_a_secret_but_each_shows_its_words(
    planted, django_user_model
):
    a, b = planted["a"], planted["b"]
    root = Client()
    root.force_login(django_user_model.objects.create_superuser("root", "r@example.test"))
    pages = {
        url: as_read(body.decode("utf-8", "replace")) for url, body in every_page(root).items()
    }
    pages["/runs/?htmx"] = as_read(
        root.get("/runs/", headers={"HX-Request": "true"}).content.decode()
    )
    pages["inspector fragment"] = as_read(
        root.get(f"/runs/{a.pk}/nodes/0/", headers={"HX-Request": "true"}).content.decode()
    )
    pages["compare B→A"] = as_read(root.get(f"/compare/{b.pk}/{a.pk}/").content.decode())

    leaked = {url: leaks(text, _everything(planted)) for url, text in pages.items()}
    found = {url: names for url, names in leaked.items() if names}
    assert not found, "\n".join(f"{url}: {names}" for url, names in found.items())

    inspector = pages[f"/runs/{a.pk}/nodes/0/"]
    for words in ("Ship it with [redacted] attached", "Which key is [redacted] for?",
                  "Deploy with this key:", "the session token is [redacted] for now",
                  "then report."):  # fmt: skip
        assert words in inspector, words
    assert "vault token [redacted] rotated" in pages[f"/runs/{a.pk}/nodes/1/"]
    assert "span saw [redacted] here" in pages[f"/runs/{a.pk}/nodes/1/"]
    assert "the vault refused [redacted] (HTTP 403)" in pages[f"/runs/{b.pk}/nodes/1/"]
    compare = pages[f"/compare/{a.pk}/{b.pk}/"]
    assert "Ship it" in compare and "[redacted]" in compare and "The deploy key:" in compare
    # The override word-diffed beside its source: each secret its own mark, so two different
    # ones never read as the same.
    assert "the deploy" in compare and "is now [redacted]" in compare
    assert "The deploy key:" in pages[f"/runs/{a.pk}/"]
    api = json.loads(pages[f"/api/runs/{a.pk}"])
    assert "Ship it with [redacted] attached" in json.dumps(api)
    assert (
        "the vault answered [redacted] today"
        in pages[f"/admin/runs/toolcacheentry/{planted['tool'].pk}/change/"]
    )


def test_exports_carry_no_secret_and_say_which_steps_will_not_replay(
    planted, tmp_path, django_user_model
):
    a, b = planted["a"], planted["b"]
    files: dict[str, str] = {}
    out = tmp_path / "exported"
    call_command(
        "rewind_export", str(b.pk), "--against", str(a.pk), "--out", str(out), stdout=io.StringIO()
    )
    call_command("rewind_export", str(a.pk), "--out", str(tmp_path / "alone"), stdout=io.StringIO())
    for path in sorted([*out.rglob("*"), *(tmp_path / "alone").rglob("*")]):
        if path.is_file():
            files[f"rewind_export's {path.name}"] = path.read_text(errors="replace")
    viewer = Client()
    viewer.force_login(django_user_model.objects.create_user("viewer", password="pw"))
    response = viewer.get(f"/runs/{a.pk}/export/")
    assert response.status_code == 200, response.content
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        for name in archive.namelist():
            files[f"the zip's {name}"] = archive.read(name).decode(errors="replace")

    leaked = {name: leaks(text, _everything(planted)) for name, text in files.items()}
    assert {name: names for name, names in leaked.items() if names} == {}
    fixture = json.loads(files[f"rewind_export's rewind_run_{a.pk}.json"])
    plan = json.loads(as_read(json.dumps(next(n for n in fixture["nodes"] if n["name"] == "plan"))))
    assert plan["output"] == {
        "objective": "Ship it with [redacted] attached",
        "steps": ["step one"],
    }
    assert fixture["masked"], "the fixture says what it carries masked"
    test_file = files[f"rewind_export's test_rewind_run_{a.pk}.py"]
    assert "step 0 (plan)" in test_file and "will not replay" in test_file


def test_the_otlp_payload_shows_no_secret(planted, collector):
    for run in (planted["a"], planted["b"]):
        otlp.export_run(run.pk)
    assert otlp.flush()
    payload = as_read(b"".join(collector.bodies).decode("utf-8", "replace"))
    assert payload, "nothing was exported"
    assert leaks(payload, _everything(planted)) == []
    assert "Deploy with this key:" in payload and "[redacted]" in payload


def _raw_columns() -> str:
    """The stored bytes of the columns that hold content, read past the ORM."""
    parts = []
    with connection.cursor() as cursor:
        for table, column in (
            ("runs_blob", "body"),
            ("runs_llmcacheentry", "request"),
            ("runs_llmcacheentry", "response"),
            ("runs_toolcacheentry", "result"),
        ):
            cursor.execute(f"SELECT {column} FROM {table}")  # noqa: S608
            parts += [bytes(value).decode("utf-8", "replace") for (value,) in cursor.fetchall()]
    return "\n".join(parts)


def test_the_database_holds_no_secret_readable_and_the_models_read_each_back_exactly(planted):
    sealed = planted["sealed"]
    assert leaks(_raw_columns(), sealed) == []
    assert leaks(dump_database(), sealed) == []

    plan = Node.objects.get(pk=planted["plan"].pk)
    assert plan.output == {
        "objective": f"Ship it with {sealed['jwt']} attached",
        "steps": ["step one"],
    }
    assert sealed["key"] in plan.prompt[1]["content"]
    assert plan.inputs["question"] == f"Which key is {sealed['aws']} for?"
    llm = LLMCacheEntry.objects.get(pk=planted["llm"].pk)
    assert sealed["key"] in llm.request["body"]["messages"][0]["content"]
    assert sealed["jwt"] in llm.response["text"]
    assert sealed["github"] in ToolCacheEntry.objects.get(pk=planted["tool"].pk).result["text"]
    state = BurrState.objects.get(app_id=str(planted["a"].pk), sequence_id=0)
    assert sealed["jwt"] in state.state


def test_an_openai_key_shape_in_a_blob_is_sealed_too(node_row, run_row):
    key = f"sk-proj-{secrets.token_hex(20)}"
    node_row(run_row(), 0, output={"objective": f"use {key}", "steps": []})
    assert key not in _raw_columns()


def test_the_fork_editor_shows_fields_masked_and_a_field_left_as_shown_is_unchanged(
    planted, django_user_model
):
    a, sealed = planted["a"], planted["sealed"]
    client = Client()
    client.force_login(django_user_model.objects.create_user("viewer", password="pw"))
    page = client.get(f"/runs/{a.pk}/nodes/0/fork/").content.decode()
    assert leaks(page, sealed) == [] and "[redacted]" in as_read(page)
    assert "what looks like a secret is shown as" in page
    shown = {name: masked(text) for name, text in current(a, 0).items()}  # as the page has them

    untouched = client.post(f"/runs/{a.pk}/nodes/0/fork/", shown)
    assert untouched.status_code == 400 and "Nothing changed" in untouched.content.decode()
    changed = client.post(f"/runs/{a.pk}/nodes/0/fork/", {**shown, "temperature": "0.7"})
    assert changed.status_code == 302, changed.content.decode()
    fork = Run.objects.order_by("-pk").first()
    assert fork.override == {"node": "plan", "field": "temperature", "value": 0.7}
