"""Bad input everywhere (issue 4, part 6): the CLI, the HTML forms and the JSON endpoints.

One table of inputs, one test walking it. Each input must get a clear message — a 400/404, or
a one-line ``CommandError`` — never a 500, and must write nothing: every model's rows (task
rows included) are compared before and after, and no work may be enqueued.

Odd Unicode that *is* valid (emoji, right-to-left text, combining marks) is the control: it is
accepted everywhere and round-trips unchanged.
"""

from __future__ import annotations

import html
import io
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.models import (
    BurrState,
    Edge,
    LLMCacheEntry,
    Node,
    ProviderSettings,
    Run,
    ToolCacheEntry,
)

pytestmark = pytest.mark.django_db

MODELS = (Run, Node, Edge, BurrState, LLMCacheEntry, ToolCacheEntry, DBTaskResult, ProviderSettings)
SMALL_LIMIT = {"REWIND_OVERRIDE_MAX_BYTES": 64}
BAD_PRESET = {"REWIND_LLM_PRESET": "nope"}
BIG = "x" * 200


@dataclass(frozen=True)
class Bad:
    """One bad input. ``via``: cli (``target`` is argv), form (POST form data to ``target``),
    api (POST ``data`` as the JSON body, or raw bytes/str, to ``target``), page (GET ``target``).
    Strings may name ``{run}`` (a completed research run), ``{running}`` (a running fork) and
    ``{plan}``/``{research}``/``{analyse}`` (step numbers of the completed run)."""

    id: str
    via: str
    target: Any
    data: Any = None
    status: int = 400
    says: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    staff: bool = False
    xfail: str = ""


def api(id: str, target: str, data: Any, status: int = 400, says: str = "", **kw) -> Bad:  # noqa: A002
    return Bad(id, "api", target, data, status, says, **kw)


def form(id: str, target: str, data: dict, status: int = 400, says: str = "", **kw) -> Bad:  # noqa: A002
    return Bad(id, "form", target, data, status, says, **kw)


def cli(id: str, *argv: str, says: str = "", **kw) -> Bad:  # noqa: A002
    return Bad(id, "cli", list(argv), None, 0, says, **kw)


def page(id: str, target: str, status: int, says: str = "") -> Bad:  # noqa: A002
    return Bad(id, "page", target, None, status, says)


FORK = "/runs/{run}/nodes/{plan}/fork/"
TOOL_FORK = "/runs/{run}/nodes/{analyse}/fork/"
API_FORKS = "/api/runs/{run}/forks"

CASES = [
    # --- unknown run -------------------------------------------------------------------------
    cli("cli-unknown-run", "rewind_fork", "999", "--node", "plan", says="no run 999"),
    cli("cli-run-id-not-a-number", "rewind_fork", "abc", "--node", "plan", says="numbers"),
    cli("cli-diff-unknown-run", "rewind_diff", "{run}", "999", says="no run 999"),
    cli("cli-replay-unknown-run", "rewind_replay", "999", says="no run 999"),
    cli("cli-resume-unknown-run", "rewind_resume", "999", says="no run 999"),
    form("form-fork-unknown-run", "/runs/999/nodes/0/fork/", {"prompt": "x"}, 404),
    form("form-replay-unknown-run", "/runs/999/replay/", {}, 404),
    form("form-resume-unknown-run", "/runs/999/resume/", {}, 404),
    page("page-unknown-run", "/runs/999/", 404),
    page("page-status-unknown-run", "/runs/999/status/", 404),
    page("page-artifact-unknown-run", "/runs/999/artifact/", 404),
    page("page-compare-unknown-run", "/compare/{run}/999/", 404),
    page("api-get-unknown-run", "/api/runs/999", 404),
    api("api-fork-unknown-run", "/api/runs/999/forks", {"node": "plan"}, 404),
    # --- unknown node --------------------------------------------------------------------------
    cli("cli-unknown-node", "rewind_fork", "{run}", "--node", "nope", says="has no step 'nope'"),
    cli("cli-unknown-step", "rewind_fork", "{run}", "--node", "99", says="has no step '99'"),
    page("page-unknown-node", "/runs/{run}/nodes/99/", 404),
    page("page-fork-editor-unknown-node", "/runs/{run}/nodes/99/fork/", 404),
    form("form-fork-unknown-node", "/runs/{run}/nodes/99/fork/", {"prompt": "x"}, 404),
    api("api-fork-unknown-node", API_FORKS, {"node": "nope"}, says="has no step 'nope'"),
    api("api-fork-unknown-step", API_FORKS, {"node": 99}, says="has no step '99'"),
    # --- unknown field / key / pipeline / input ----------------------------------------------
    cli(
        "cli-unknown-field",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "nope=1"),
        says="cannot take an override of 'nope'",
    ),
    cli("cli-run-unknown-input", "rewind_run", "--input", "nope=1", says="unknown input 'nope'"),
    cli("cli-run-unknown-pipeline", "rewind_run", "--pipeline", "nope", says="unknown pipeline"),
    form("form-fork-unknown-field", FORK, {"nope": "1"}, says="cannot take an override of 'nope'"),
    form("form-new-unknown-pipeline", "/runs/new/", {"pipeline": "nope"}),
    form(
        "form-new-unknown-input",
        "/runs/new/",
        {"pipeline": "research", "input.nope": "1"},
        says="unknown input",
    ),
    api("api-run-unknown-key", "/api/runs", {"nope": 1}, says="unknown keys: nope"),
    api("api-run-unknown-pipeline", "/api/runs", {"pipeline": "nope"}, says="unknown pipeline"),
    api("api-run-unknown-input", "/api/runs", {"inputs": {"nope": 1}}, says="unknown input"),
    api("api-fork-unknown-key", API_FORKS, {"node": "plan", "nope": 1}, says="unknown keys"),
    api(
        "api-fork-unknown-field",
        API_FORKS,
        {"node": "plan", "field": "nope", "value": 1},
        says="cannot take an override of 'nope'",
    ),
    # --- an override the node cannot consume -------------------------------------------------
    cli(
        "cli-prompt-on-tool-node",
        *("rewind_fork", "{run}", "--node", "research", "--set", "prompt=hello"),
        says="cannot take an override of 'prompt'",
    ),
    cli(
        "cli-args-on-llm-node",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "args.region=east"),
        says="cannot take an override of 'args.region'",
    ),
    form(
        "form-prompt-on-tool-node",
        TOOL_FORK,
        {"prompt": "hello"},
        says="cannot take an override of 'prompt'",
    ),
    api(
        "api-prompt-on-tool-node",
        API_FORKS,
        {"node": "research", "field": "prompt", "value": "hello"},
        says="cannot take an override of 'prompt'",
    ),
    # --- malformed ---------------------------------------------------------------------------
    cli(
        "cli-set-without-equals",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "prompt"),
        says="FIELD=VALUE",
    ),
    cli(
        "cli-malformed-json-output",
        *("rewind_fork", "{run}", "--node", "analyse", "--set", "output={bad"),
        says="not valid JSON",
    ),
    form(
        "form-new-malformed-json",
        "/runs/new/",
        {"pipeline": "research", "inputs": "{bad"},  # the old JSON textarea: refused by name
        says="unknown field",
    ),
    form("form-fork-malformed-json-output", TOOL_FORK, {"output": "{bad"}, says="not valid JSON"),
    # --- blank text starts nothing, wherever it is typed (issue 16, item 6) ------------------
    form(
        "form-new-run-blank-question",
        "/runs/new/",
        {"pipeline": "research", "input.question": " \t\n ", "input.region": "all"},
        says="must be non-empty text",
    ),
    cli(
        "cli-run-blank-question",
        *("rewind_run", "--input", "question=   "),
        says="must be non-empty text",
    ),
    api("api-run-blank-question", "/api/runs", {"inputs": {"question": "  "}}, says="non-empty"),
    form("form-fork-blank-prompt", FORK, {"prompt": "   "}, says="must be non-empty text"),
    # --- one JSON parser, one nesting limit, at every edge (issue 16, item 4) ----------------
    form(
        "form-fork-output-nested-1000-deep",
        TOOL_FORK,
        {"output": "[" * 1000 + "]" * 1000},
        says="nested deeper than 31 levels",
    ),
    form(
        "form-fork-output-nested-600-deep",
        TOOL_FORK,
        {"output": '{"a": ' * 600 + "1" + "}" * 600},
        says="nested deeper than 31 levels",
    ),
    form(
        "form-grid-values-nested-1000-deep",
        "/runs/{run}/nodes/{analyse}/grid/",
        {"field": "output", "values": "[" * 1000 + "]" * 1000},
        says="nested deeper than 31 levels",
    ),
    cli(
        "cli-set-output-nested-1000-deep",
        *(
            "rewind_fork",
            "{run}",
            "--node",
            "analyse",
            "--set",
            "output=" + "[" * 1000 + "]" * 1000,
        ),
        says="nested deeper than 31 levels",
    ),
    api(
        "api-fork-value-nested-600-deep",
        API_FORKS,
        '{"node": "analyse", "field": "output", "value": ' + "[" * 600 + "]" * 600 + "}",
        says="nested deeper than 32 levels",
    ),
    form(
        "form-fork-two-changes",
        FORK,
        {"temperature": "0.5", "model": "other-model"},
        says="change exactly one field",
    ),
    page("page-list-bad-status", "/runs/?status=nope", 400),
    page("page-list-bad-page", "/runs/?page=-1", 400),
    page("page-list-page-not-a-number", "/runs/?page=abc", 400),
    page("page-compare-bad-param", "/compare/{run}/{run}/?only=nope", 400),
    api("api-run-malformed-json", "/api/runs", "{bad", says="not valid JSON"),
    api("api-run-invalid-utf8", "/api/runs", b'{"pipeline": "\xff"}', says="not valid JSON"),
    api("api-run-body-not-object", "/api/runs", "[1]", says="must be a JSON object"),
    api("api-fork-malformed-json", API_FORKS, '{"node": "plan",', says="not valid JSON"),
    api("api-fork-body-not-object", API_FORKS, '"plan"', says="must be a JSON object"),
    api("api-fork-node-missing", API_FORKS, {}, says="node is required"),
    api(
        "api-fork-value-missing",
        API_FORKS,
        {"node": "plan", "field": "prompt"},
        says="value is required",
    ),
    api(
        "api-fork-output-not-what-the-node-parses",
        API_FORKS,
        {"node": "plan", "field": "output", "value": {"nope": 1}},
        says="lacks 'objective'",
    ),
    # --- wrong types -------------------------------------------------------------------------
    cli(
        "cli-temperature-not-a-number",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "temperature=hot"),
        says="expected a number",
    ),
    cli(
        "cli-arg-wrong-type",
        *("rewind_fork", "{run}", "--node", "analyse", "--set", "args.min_contacts=three"),
        says="expected int",
    ),
    cli("cli-run-temperature-not-a-number", "rewind_run", "--temperature", "hot"),
    form(
        "form-new-inputs-a-list",
        "/runs/new/",
        {"pipeline": "research", "input.region": "[1]"},
        says="must be one of",
    ),
    form(
        "form-new-temperature-hot",
        "/runs/new/",
        {"pipeline": "research", "temperature": "hot"},
    ),
    form(
        "form-new-input-wrong-type",
        "/runs/new/",
        {"pipeline": "research", "input.region": "5"},
        says="must be one of",
    ),
    form("form-fork-temperature-hot", FORK, {"temperature": "hot"}, says="expected a number"),
    form(
        "form-fork-arg-wrong-type", TOOL_FORK, {"args.min_contacts": "three"}, says="expected int"
    ),
    api("api-run-temperature-hot", "/api/runs", {"temperature": "hot"}, says="expected a number"),
    api("api-run-temperature-bool", "/api/runs", {"temperature": True}),
    api(
        "api-run-inputs-a-list", "/api/runs", {"inputs": ["a"]}, says="inputs must be a JSON object"
    ),
    api("api-run-model-a-number", "/api/runs", {"model": 5}, says="model must be"),
    api(
        "api-run-input-wrong-type",
        "/api/runs",
        {"inputs": {"region": 5}},
        says="expected str",
    ),
    api("api-fork-node-a-list", API_FORKS, {"node": ["plan"]}, says="node is required"),
    api("api-fork-node-a-bool", API_FORKS, {"node": True}, says="node is required"),
    api(
        "api-fork-field-a-number",
        API_FORKS,
        {"node": "plan", "field": 5, "value": 1},
        says="field must be a string",
    ),
    api(
        "api-fork-temperature-hot",
        API_FORKS,
        {"node": "plan", "field": "temperature", "value": "hot"},
        says="expected a number",
    ),
    api(
        "api-fork-arg-wrong-type",
        API_FORKS,
        {"node": "analyse", "field": "args.min_contacts", "value": "three"},
        says="expected int",
    ),
    api(
        "api-fork-prompt-not-text",
        API_FORKS,
        {"node": "plan", "field": "prompt", "value": ["a"]},
        says="non-empty text",
    ),
    # --- negative or absurd temperature ------------------------------------------------------
    cli(
        "cli-temperature-negative",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "temperature=-1"),
        says="between 0 and 2",
    ),
    cli(
        "cli-temperature-absurd",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "temperature=1e9"),
        says="between 0 and 2",
    ),
    cli(
        "cli-temperature-nan",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "temperature=nan"),
        says="between 0 and 2",
    ),
    cli(
        "cli-run-temperature-negative", "rewind_run", "--temperature", "-1", says="between 0 and 2"
    ),
    cli("cli-run-temperature-absurd", "rewind_run", "--temperature", "1e9", says="between 0 and 2"),
    form(
        "form-new-temperature-negative",
        "/runs/new/",
        {"pipeline": "research", "temperature": "-1"},
    ),
    form(
        "form-new-temperature-absurd",
        "/runs/new/",
        {"pipeline": "research", "temperature": "1e9"},
    ),
    form("form-fork-temperature-negative", FORK, {"temperature": "-1"}, says="between 0 and 2"),
    form("form-fork-temperature-absurd", FORK, {"temperature": "1e9"}, says="between 0 and 2"),
    form(
        "form-settings-temperature-negative",
        "/settings/",
        {"temperature": "-1"},
        staff=True,
    ),
    form("form-settings-temperature-absurd", "/settings/", {"temperature": "1e9"}, staff=True),
    api("api-run-temperature-negative", "/api/runs", {"temperature": -1}, says="between 0 and 2"),
    api("api-run-temperature-absurd", "/api/runs", {"temperature": 1e9}, says="between 0 and 2"),
    api("api-run-temperature-infinite", "/api/runs", '{"temperature": 1e400}'),
    api(
        "api-fork-temperature-negative",
        API_FORKS,
        {"node": "plan", "field": "temperature", "value": -1},
        says="between 0 and 2",
    ),
    api(
        "api-fork-temperature-absurd",
        API_FORKS,
        {"node": "plan", "field": "temperature", "value": 1e9},
        says="between 0 and 2",
    ),
    api(
        "api-fork-output-nan",
        API_FORKS,
        '{"node": "analyse", "field": "output", "value": {"best_group": NaN}}',
        says="finite",
    ),
    # --- unknown model preset ----------------------------------------------------------------
    cli(
        "cli-run-unknown-preset",
        "rewind_run",
        says="unknown REWIND_LLM_PRESET",
        settings=BAD_PRESET,
    ),
    form("form-settings-unknown-preset", "/settings/", {"preset": "nope"}, staff=True),
    form(
        "form-settings-credentials-in-url",
        "/settings/",
        {"preset": "custom", "base_url": "https://user:pw@llm.test/v1"},
        staff=True,
        says="no credentials",
    ),
    form("form-settings-custom-without-url", "/settings/", {"preset": "custom"}, staff=True),
    form(
        "form-new-unknown-preset",
        "/runs/new/",
        {"pipeline": "research"},
        settings=BAD_PRESET,
    ),
    api(
        "api-run-unknown-preset",
        "/api/runs",
        {},
        says="unknown REWIND_LLM_PRESET",
        settings=BAD_PRESET,
    ),
    # --- larger than the configured limit ----------------------------------------------------
    cli(
        "cli-override-too-large",
        *("rewind_fork", "{run}", "--node", "plan", "--set", f"prompt={BIG}"),
        says="the limit is 64",
        settings=SMALL_LIMIT,
    ),
    form(
        "form-fork-override-too-large",
        FORK,
        {"prompt": BIG},
        says="the limit is 64",
        settings=SMALL_LIMIT,
    ),
    api(
        "api-fork-override-too-large",
        API_FORKS,
        {"node": "plan", "field": "prompt", "value": BIG},
        says="the limit is 64",
        settings=SMALL_LIMIT,
    ),
    api(
        "api-body-too-large",
        API_FORKS,
        {"node": "plan", "field": "prompt", "value": "x" * 5000},
        status=413,
        says="too large",
        settings=SMALL_LIMIT,
    ),
    # --- NUL bytes and lone surrogates -------------------------------------------------------
    cli(
        "cli-nul-in-prompt",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "prompt=a\x00b"),
        says="NUL",
    ),
    cli(
        "cli-surrogate-in-prompt",
        *("rewind_fork", "{run}", "--node", "plan", "--set", "prompt=a\ud800b"),
        says="not valid Unicode",
    ),
    cli("cli-nul-in-input", "rewind_run", "--input", "question=a\x00b", says="NUL"),
    cli(
        "cli-nul-in-json-output",
        *("rewind_fork", "{run}", "--node", "analyse", "--set", 'output={"a": "\\u0000"}'),
        says="NUL",
    ),
    form("form-fork-nul-in-prompt", FORK, {"prompt": "a\x00b"}, says="Null characters"),
    form(
        "form-new-nul-in-model",
        "/runs/new/",
        {"pipeline": "research", "model": "a\x00b"},
    ),
    form(
        "form-new-nul-in-input",
        "/runs/new/",
        {"pipeline": "research", "input.question": "a\x00b"},
        says="Null characters",
    ),
    api(
        "api-fork-nul-in-prompt",
        API_FORKS,
        {"node": "plan", "field": "prompt", "value": "a\x00b"},
        says="NUL",
    ),
    api(
        "api-fork-surrogate-in-prompt",
        API_FORKS,
        '{"node": "plan", "field": "prompt", "value": "a\\ud800b"}',
        says="not valid Unicode",
    ),
    api("api-run-nul-in-input", "/api/runs", {"inputs": {"question": "a\x00b"}}, says="NUL"),
    api(
        "api-run-surrogate-in-input",
        "/api/runs",
        '{"inputs": {"question": "\\udfff"}}',
        says="not valid Unicode",
    ),
    api("api-run-nul-in-model", "/api/runs", {"model": "a\x00b"}, says="model must be"),
    # --- forking a run that is still running -------------------------------------------------
    cli("cli-fork-running-run", "rewind_fork", "{running}", "--node", "plan", says="still running"),
    cli("cli-replay-running-run", "rewind_replay", "{running}", says="only completed runs"),
    cli("cli-resume-completed-run", "rewind_resume", "{run}", says="only an interrupted run"),
    form(
        "form-fork-running-run",
        "/runs/{running}/nodes/0/fork/",
        {"replay": "1"},
        says="still running",
    ),
    form("form-resume-completed-run", "/runs/{run}/resume/", {}, says="only an interrupted run"),
    api(
        "api-fork-running-run", "/api/runs/{running}/forks", {"node": "plan"}, says="still running"
    ),
]


def _cases():
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        yield pytest.param(case, id=case.id, marks=marks)


def snapshot() -> dict[str, list[dict]]:
    """Every row of every Rewind model and of the task queue, in full."""
    return {m.__name__: list(m.objects.order_by("pk").values()) for m in MODELS}


@pytest.fixture
def world(research_run, django_user_model) -> dict[str, Any]:
    """A completed research run, a fork of it that is running now, two signed-in clients."""
    running = create_fork(research_run, "compose")
    Run.objects.filter(pk=running.pk).update(
        status=Run.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    steps = {n.name: n.sequence_id for n in research_run.nodes.all()}
    user = django_user_model.objects.create_user("analyst")  # no password: no slow hashing
    staff = django_user_model.objects.create_user("admin", is_staff=True)
    client, staff_client = Client(), Client()
    client.force_login(user)
    staff_client.force_login(staff)
    return {
        "ids": {"run": research_run.pk, "running": running.pk, **steps},
        "client": client,
        "staff_client": staff_client,
    }


def fill(value: Any, ids: dict[str, int]) -> Any:
    if isinstance(value, str):
        for name, number in ids.items():
            value = value.replace("{" + name + "}", str(number))
        return value
    if isinstance(value, list):
        return [fill(v, ids) for v in value]
    return value


@pytest.mark.parametrize("case", list(_cases()))
def test_bad_input_gets_a_clear_message_and_writes_nothing(
    case: Bad, world, settings, django_capture_on_commit_callbacks
):
    for name, value in case.settings.items():
        setattr(settings, name, value)
    ids = world["ids"]
    before = snapshot()

    with django_capture_on_commit_callbacks(execute=True) as enqueued:
        message = send(case, world, ids)

    assert message.strip(), "the answer must say what is wrong"
    if case.says:
        assert case.says in message
    assert enqueued == [], "nothing may be enqueued"
    after = snapshot()
    for model in before:
        assert after[model] == before[model], f"{case.id} changed {model}"


def send(case: Bad, world: dict[str, Any], ids: dict[str, int]) -> str:
    """Send ``case`` through its channel; return the message it got back."""
    if case.via == "cli":
        argv = fill(case.target, ids)
        with pytest.raises(CommandError) as caught:
            call_command(*argv, stdout=io.StringIO(), stderr=io.StringIO())
        text = str(caught.value)
        assert "\n" not in text.strip(), f"not one line: {text!r}"
        assert "Traceback" not in text
        return text
    client = world["staff_client"] if case.staff else world["client"]
    url = fill(case.target, ids)
    if case.via == "page":
        response = client.get(url)
    elif case.via == "form":
        response = client.post(url, case.data)
    else:
        body = case.data
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        response = client.post(url, body, content_type="application/json")
    assert response.status_code != 500
    assert response.status_code == case.status, response.content[:500]
    content = b"".join(response) if response.streaming else response.content
    if response.get("Content-Type", "").startswith("application/json"):
        return response.json()["error"]
    return html.unescape(content.decode("utf-8", "replace"))  # the page escapes quotes


def test_the_table_covers_every_channel_and_class():
    ids = {c.id for c in CASES}
    assert len(ids) == len(CASES), "case ids must be unique"
    for needle in (
        "unknown-run",
        "unknown-node",
        "unknown-field",
        "on-tool-node",
        "malformed",
        "wrong-type",
        "temperature-negative",
        "temperature-absurd",
        "unknown-preset",
        "too-large",
        "nul-in",
        "surrogate-in",
        "running-run",
    ):
        channels = {c.via for c in CASES if needle in c.id}
        assert {"cli", "api"} <= channels or {"form", "api"} <= channels, needle


# --- odd but valid Unicode is accepted and round-trips ------------------------------------

ODD_BUT_VALID = [
    pytest.param("Growth 📈 of 10 % — 👩‍👩‍👧 families ✓", id="emoji-and-zwj"),
    pytest.param("מה המדיניות הזולה ביותר? ما هي السياسة الأرخص؟", id="right-to-left"),
    pytest.param("cafe\u0301 n\u0303 Å\u030a Z\u0351\u0337\u0353a\u0364\u0317lgo", id="combining"),
    pytest.param("\ufeffBOM, \u202eoverride\u202c, zero\u200bwidth, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", id="format-chars"),
]


@pytest.mark.parametrize("text", ODD_BUT_VALID)
def test_odd_unicode_round_trips_through_the_json_endpoint(text, world):
    source = ids_run(world)
    response = world["client"].post(
        f"/api/runs/{source.pk}/forks",
        {"node": "plan", "field": "prompt", "value": text},
        content_type="application/json",
    )

    assert response.status_code == 201, response.content
    fork = Run.objects.get(pk=response.json()["run"])
    assert fork.override == {"node": "plan", "field": "prompt", "value": text}
    assert response.json()["fork"]["value"] == text
    finished = execute_run(fork.pk)
    assert finished.status == Run.Status.COMPLETED, finished.error
    sent = finished.nodes.get(name="plan").prompt
    assert sent[-1]["content"] == text
    assert world["client"].get(f"/api/runs/{fork.pk}").json()["fork"]["value"] == text


@pytest.mark.parametrize("text", ODD_BUT_VALID)
def test_odd_unicode_round_trips_through_the_fork_form(text, world):
    source = ids_run(world)
    response = world["client"].post(f"/runs/{source.pk}/nodes/0/fork/", {"prompt": text})

    assert response.status_code == 302, response.content[:1000]
    fork = Run.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))
    assert (fork.parent_id, fork.fork_node) == (source.pk, "plan")
    assert fork.override["value"] == text
    page = world["client"].get(f"/runs/{fork.pk}/")
    assert page.status_code == 200


@pytest.mark.parametrize("text", ODD_BUT_VALID)
def test_odd_unicode_round_trips_through_new_run_inputs(text, world):
    response = world["client"].post(
        "/api/runs", {"inputs": {"question": text}}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    run = execute_run(response.json()["run"])
    assert run.inputs["question"] == text
    assert run.status == Run.Status.COMPLETED, run.error
    assert text in run.nodes.get(name="plan").prompt[-1]["content"]

    response = world["client"].post("/runs/new/", {"pipeline": "research", "input.question": text})
    assert response.status_code == 302, response.content[:1000]
    newest = Run.objects.order_by("-pk").first()
    assert newest.inputs["question"] == text


@pytest.mark.parametrize("text", ODD_BUT_VALID)
def test_odd_unicode_round_trips_through_the_command_line(text, world):
    source = ids_run(world)
    out = io.StringIO()
    call_command(
        "rewind_fork",
        str(source.pk),
        "--node",
        "plan",
        "--set",
        f"prompt={text}",
        "--json",
        stdout=out,
        stderr=io.StringIO(),
    )
    printed = json.loads(out.getvalue())
    assert printed["fork"]["value"] == text
    assert printed["status"] == "completed"


def ids_run(world) -> Run:
    return Run.objects.get(pk=world["ids"]["run"])


def test_a_staff_user_with_a_valid_settings_form_does_write(world):
    """Control for the settings cases above: the same form, valid, is saved."""
    response = world["staff_client"].post("/settings/", {"preset": "ollama", "temperature": "0.5"})
    assert response.status_code == 302
    saved = ProviderSettings.load()
    assert (saved.preset, saved.temperature, saved.updated_by) == ("ollama", 0.5, "admin")
