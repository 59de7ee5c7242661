"""``rewind_regress`` on Burr's SHIPPED multi-modal chatbot (``burr/examples/…``, unchanged on
disk), its ``openai`` client pointed at Rewind's simulator served on loopback.

Runs are recorded by ``manage.py rewind_run`` in subprocesses, of the example as shipped. The
edit is made to a COPY of the example's module in the test's folder, registered under the same
pipeline name (``REWIND_PIPELINES`` of the subprocess), so ``manage.py rewind_regress`` imports
the edited code fresh — as a user runs it from CI after editing their app — while the installed
example is checked byte for byte unchanged at the end.

Two edits, because the two kinds of edit are reported differently:

- the system prompt of ``choose_mode`` (the ``decide_mode`` step), a literal inside the action's
  function: the action's source changed, so ``code_changed`` names ``decide_mode``;
- the ``prepend_prompt`` bound to ``answer_question`` in the module-level graph: the action's
  function (``chat_response``) is untouched, so ``code_changed`` is EMPTY although the request
  changes, the step diverges and the app's ``code_version`` (which also hashes the module file's
  text) differs. ``code_changed`` says "this step ran other code", not "the app changed".

Before the step the edit reaches, every step re-runs at 0 tokens with no provider call (the
chatbot's first three steps are code; an LLM step whose request is unchanged is a cache hit).
The planted truth is the simulator's own: the mode it picks and the usage it reports for the
exact request the regression sent, asked again of a fresh simulator in this process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from runs.engine.apps import registry, versions
from runs.engine.apps.versions import app_version
from runs.engine.providers.simulator import Simulator
from runs.models import Node, Run
from runs.tests.conftest import closed_port_url, worker_environment
from runs.tests.helpers import burr_examples
from runs.tests.helpers.manage_py import PROJECT_ROOT, Result, manage

# The commands run in other processes: they see committed rows only.
pytestmark = pytest.mark.django_db(transaction=True)
_loopback = burr_examples._loopback  # autouse: nothing beyond loopback from this process

NAME = "shipped_chatbot"  # the pipeline name both the example and its edited copy register as
SHIPPED = f"{burr_examples.CHATBOT}.application"  # the example's own factory, by dotted path
COPY = "rewind_edited_chatbot"  # the copy's module, in the test's folder
KEY = "sk-test-rewind-regress-chatbot"  # check_openai_key reads it: the key is set, not used

QUESTION = burr_examples.QUESTION  # "What is the capital of France?": answer_question
CODE = "Write a python function that reverses a string"  # generate_code
IMAGE = "Draw a picture of a dog on a beach"  # generate_image
BURR = "Who was Aaron Burr?"  # answer_question (not QUESTION: an identical request would be
# asked once — the second run that makes it is answered from the cache the first one wrote)
TURN = ["prompt", "check_openai_key", "check_safety", "decide_mode"]  # each turn's first steps

# Edit 1: the system prompt inside choose_mode. The product now only answers questions; the
# simulator reads the list from the system prompt, so code and image requests become unknown.
SYSTEM_OLD = '{"role": "system", "content": "You are a helpful assistant"}'
SYSTEM_NEW = (
    '{"role": "system", "content": "You are a helpful assistant that only answers '
    'questions. Respond with a single word, one of: answer_question, unknown."}'
)
# Edit 2: a module-level value — the instruction bound to answer_question in the graph.
PREPEND_OLD = 'prepend_prompt="Please answer the following question:"'
PREPEND_NEW = 'prepend_prompt="Please answer the following question in one short sentence:"'


def example_file() -> Path:
    spec = importlib.util.find_spec(burr_examples.CHATBOT)
    assert spec is not None and spec.origin, burr_examples.CHATBOT
    return Path(spec.origin)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class Site:
    """The test database as a user's shell sees it, the simulator on loopback at ``url``, and
    the folder the edited copy of the example is written to."""

    settings: Any
    tmp: Path
    simulator: Simulator
    url: str
    stack: ExitStack
    recorded: dict[str, Run] = field(default_factory=dict)  # first prompt → source run

    @property
    def folder(self) -> Path:
        return self.tmp / "app"

    def env(self, dotted: str) -> dict[str, str]:
        return worker_environment(
            REWIND_PIPELINES=f"{NAME}={dotted}",
            PYTHONPATH=os.pathsep.join([str(self.folder), str(PROJECT_ROOT)]),
            PYTHONDONTWRITEBYTECODE="1",
            OPENAI_BASE_URL=self.url,
            OPENAI_API_KEY=KEY,
            HOME=str(self.tmp / "home"),  # the example's tracker writes ~/.burr
        )

    def record(self, *prompts: str) -> Run:
        first, *more = prompts
        args = ["rewind_run", "--pipeline", NAME, "--input", f"prompt={first}"]
        args += ["--halt-after", "response", "--json"]
        for prompt in more:
            args += ["--turn", f"prompt={prompt}"]
        result = manage(self.env(SHIPPED), *args)
        assert result.returncode == 0, result
        run = Run.objects.get(pk=json.loads(result.stdout)["run"])
        assert run.status == Run.Status.COMPLETED, run.error
        self.recorded[first] = run
        return run

    def write_copy(self, *edits: tuple[str, str]) -> Path:
        """The example's module copied to the test's folder, with each (old, new) applied once;
        no stale bytecode."""
        text = example_file().read_text()
        for old, new in edits:
            assert text.count(old) == 1, f"the shipped example no longer has {old!r}"
            text = text.replace(old, new)
        path = self.folder / f"{COPY}.py"
        path.write_text(text)
        shutil.rmtree(self.folder / "__pycache__", ignore_errors=True)
        return path

    def regress(self, dotted: str, *args: str) -> tuple[Result, dict[str, Any]]:
        self.simulator.requests.clear()  # from here on: what this regression asked
        result = manage(self.env(dotted), "rewind_regress", "--pipeline", NAME, "--json", *args)
        assert result.returncode in (0, 1), result
        return result, json.loads(result.stdout)

    def stop_provider(self) -> None:
        self.stack.close()
        self.url = closed_port_url()


@pytest.fixture
def site(rewind_settings, tmp_path) -> Iterator[Site]:
    (tmp_path / "home").mkdir()
    (tmp_path / "app").mkdir()
    shipped = digest(example_file())
    with ExitStack() as stack:
        simulator = Simulator()
        url = stack.enter_context(simulator.serve())
        yield Site(rewind_settings, tmp_path, simulator, url, stack)
    assert digest(example_file()) == shipped, "the shipped example was modified on disk"


def shipped_version(settings: Any) -> str:
    """The version of the example as shipped (``versions.app_version``), taken in this process:
    the same files and sources as a fresh process has, so the same version."""
    settings.REWIND_PIPELINES = {**settings.REWIND_PIPELINES, NAME: SHIPPED}
    registry._load.cache_clear()
    try:
        return app_version(registry.get_pipeline(NAME), commit=False).version
    finally:
        registry._load.cache_clear()
        versions._loaded.pop(NAME, None)


def steps(run_id: int) -> list[Node]:
    return list(Node.objects.filter(run_id=run_id).order_by("sequence_id"))


def by_source(data: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {row["source"]: row for row in data["runs"]}


def asked_again(body: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """The answer and usage the simulator gives ``body``, asked of a fresh one here. The
    example sets no temperature (1.0): free text is drawn afresh each time, but a one-word
    choice whose request names one option is the same whatever the draw."""
    status, reply = Simulator().dispatch("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200, reply
    return reply["choices"][0]["message"]["content"], reply["usage"]


def mode(node: Node) -> str:
    return node.output["mode"]


def first_step(run_id: int, name: str) -> Node:
    return next(n for n in steps(run_id) if n.name == name)


def assert_before_is_free(run_id: int, name: str) -> None:
    """Every step before the first ``name`` re-ran at 0 tokens without asking the provider."""
    nodes = steps(run_id)
    where = next(i for i, n in enumerate(nodes) if n.name == name)
    assert [n.name for n in nodes[:where]] == (TURN[: TURN.index(name)] if name in TURN else TURN)
    for node in nodes[:where]:
        assert node.total_tokens == 0, (node.name, node.total_tokens)
        assert node.status == Node.Status.COMPLETED, node.name
        assert all(c.get("cache_source") != "live" for c in node.calls or []), node.name


def assert_unchanged_replay(site: Site, data: dict[str, Any]) -> None:
    """The shipped code again: every run re-ran at 0 tokens, no divergence, nothing asked."""
    assert data["failed"] is False
    assert {row["source"] for row in data["runs"]} == {r.pk for r in site.recorded.values()}
    for row in data["runs"]:
        assert row["status"] == "completed", row
        assert row["total_tokens"] == 0, row
        assert row["first_divergence"] is None, row
        assert row["code_changed"] == [], row
        for node in steps(row["run"]):
            assert node.total_tokens == 0, node.name
            if node.kind == Node.Kind.LLM:
                assert node.cache_source == Node.CacheSource.CACHE, node.name
    assert site.simulator.requests == []


# --- the system prompt inside the action ---------------------------------------------------


def test_an_edited_system_prompt_costs_only_the_calls_it_changes(site):
    question = site.record(QUESTION)
    code = site.record(CODE)
    chat = site.record(BURR, IMAGE)  # two turns: the edit flips only the second
    before = {
        run.pk: [mode(n) for n in steps(run.pk) if n.name == "decide_mode"]
        for run in (question, code, chat)
    }
    assert before == {
        question.pk: ["answer_question"],
        code.pk: ["generate_code"],
        chat.pk: ["answer_question", "generate_image"],
    }
    recorded_version = steps(code.pk)[TURN.index("decide_mode")].code_version

    # The edited copy, registered under the same name, run by a fresh process.
    copy = site.write_copy((SYSTEM_OLD, SYSTEM_NEW))
    result, data = site.regress(f"{COPY}.application", "--fail-on", "diverge")
    assert result.returncode == 1, result  # two runs diverge: the gate fails
    assert data["failed"] is True and data["fail_on"] == "diverge"
    assert data["finished"] is True
    rows = by_source(data)
    assert set(rows) == {question.pk, code.pk, chat.pk}

    # Each decide_mode (4 visits over 3 runs) asked the simulator again: nothing else did.
    asked = site.simulator.requests
    assert len(asked) == 4
    for body in asked:
        assert body["messages"][0] == json.loads(SYSTEM_NEW)
    for row in rows.values():
        assert row["status"] == "completed", row
        # code_changed: choose_mode's own source changed; no other action's did.
        assert row["code_changed"] == ["decide_mode"], row
        assert_before_is_free(row["run"], "decide_mode")
        visits = [n for n in steps(row["run"]) if n.name == "decide_mode"]
        for node in visits:
            assert node.cache_source == Node.CacheSource.LIVE, node.name
            assert node.total_tokens > 0
            assert node.code_changed is True and node.code_version != recorded_version
            # The planted truth: what the simulator answers this very request, and its usage.
            body = next(b for b in asked if node.inputs["reads"]["prompt"] in json.dumps(b))
            answer, usage = asked_again(body)
            assert mode(node) == answer and node.total_tokens == usage["total_tokens"]
        # Only decide_mode went to the provider: the run's tokens are its visits' tokens.
        assert row["total_tokens"] == sum(n.total_tokens for n in visits)
        for node in steps(row["run"]):
            if node.name != "decide_mode":
                assert node.total_tokens == 0, node.name
                assert node.code_changed is False, node.name

    # The question keeps its mode: the request changed, the step's output did not — no
    # divergence, and answer_question (unchanged request) is a cache hit at 0 tokens.
    q = rows[question.pk]
    assert q["first_divergence"] is None
    assert [mode(n) for n in steps(q["run"]) if n.name == "decide_mode"] == ["answer_question"]
    answer = first_step(q["run"], "answer_question")
    assert answer.cache_source == Node.CacheSource.CACHE and answer.total_tokens == 0
    assert answer.output_sha256 == first_step(question.pk, "answer_question").output_sha256

    # The code request is now "unknown": it diverges at decide_mode and takes prompt_for_more.
    c = rows[code.pk]
    assert c["first_divergence"] == {"node": "decide_mode", "sequence_id": 3}
    assert [n.name for n in steps(c["run"])] == [*TURN, "prompt_for_more", "response"]
    assert mode(first_step(c["run"], "decide_mode")) == "unknown"

    # Two turns: the first decide_mode asked again (tokens) but kept its answer; the first
    # difference is the second turn's decide_mode (sequence 9), the image request now unknown.
    h = rows[chat.pk]
    assert h["first_divergence"] == {"node": "decide_mode", "sequence_id": 9}
    modes = [mode(n) for n in steps(h["run"]) if n.name == "decide_mode"]
    assert modes == ["answer_question", "unknown"]
    nodes = steps(h["run"])
    assert all(n.total_tokens == 0 for n in nodes[:3] + nodes[4:9])  # only decide_mode paid
    assert nodes[4].name == "answer_question" and nodes[4].cache_source == Node.CacheSource.CACHE
    # What ran is the copy with exactly that edit; the shipped file is checked on teardown.
    assert copy.read_text() == example_file().read_text().replace(SYSTEM_OLD, SYSTEM_NEW)

    # The shipped module again, with the provider stopped: a call would fail its run.
    site.stop_provider()
    result, again = site.regress(SHIPPED, "--fail-on", "diverge")
    assert result.returncode == 0, result
    assert again["code_version"] == shipped_version(site.settings) != data["code_version"]
    assert_unchanged_replay(site, again)


# --- a value bound with .bind(): no action's source changes, its step's version does -------


def test_a_bound_prompt_edit_diverges_and_names_the_bound_value(site):
    question = site.record(QUESTION)
    code = site.record(CODE)

    site.write_copy((PREPEND_OLD, PREPEND_NEW))
    result, data = site.regress(f"{COPY}.application")
    assert result.returncode == 0, result  # the default gate (regress): no outcome configured
    # The app's version hashes the module file's text too: it changed.
    assert data["code_version"] != shipped_version(site.settings)
    rows = by_source(data)

    # The question: answer_question's request carries the new instruction → the simulator.
    q = rows[question.pk]
    # chat_response's source is the same, the value bound to it is not: named as the reason.
    assert q["code_changed"] == ["answer_question"]
    assert q["code_changes"] == [
        {"node": "answer_question", "why": ["bound value prepend_prompt changed"]}
    ]
    assert q["first_divergence"] == {"node": "answer_question", "sequence_id": 4}
    assert_before_is_free(q["run"], "answer_question")  # decide_mode included: a cache hit
    decide = first_step(q["run"], "decide_mode")
    assert decide.cache_source == Node.CacheSource.CACHE and decide.total_tokens == 0
    answer = first_step(q["run"], "answer_question")
    assert answer.cache_source == Node.CacheSource.LIVE and answer.total_tokens > 0
    assert answer.code_changed is True
    assert q["total_tokens"] == answer.total_tokens
    [body] = site.simulator.requests
    assert body["messages"][-1]["content"].startswith("Please answer the following question in")
    # The answer is free text drawn at temperature 1.0: its prompt is what is planted.
    assert asked_again(body)[1]["prompt_tokens"] == answer.prompt_tokens
    assert answer.output_sha256 != first_step(question.pk, "answer_question").output_sha256

    # The code request never reaches answer_question: 0 tokens, nothing differs.
    c = rows[code.pk]
    assert c["code_changed"] == [] and c["first_divergence"] is None and c["total_tokens"] == 0
