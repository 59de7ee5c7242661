"""Bring your own Burr app (issue 8, "Tests"): Burr's shipped example applications, unchanged,
run, replayed, forked and diffed by Rewind.

The examples come from the installed ``apache-burr`` package (``burr/examples/…``) and are
registered by their dotted paths, hyphens included; nothing of them is edited. Their
``openai`` clients read ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` from the environment, which
points at Rewind's simulator served on 127.0.0.1 (``Provider``) — or at a port where nothing
listens once it is stopped, which is how a replay proves it made no call. ``HOME`` and the
working directory are the test's temp directory: the example factories write ``~/.burr``
(Burr's tracker) and ``demos.db``. A guard refuses any connection beyond loopback.

Own apps (a non-deterministic action, an async app making a non-LLM call) are in
``runs/tests/helpers/burr_apps.py``, written as a Burr user writes them.
"""

from __future__ import annotations

import importlib
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from runs.engine.analysis.diff import diff_runs
from runs.engine.apps import registry
from runs.engine.apps.burr import BurrApp
from runs.engine.errors import InputError, OverrideError, PipelineError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork, resolve_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Edge, LLMCacheEntry, Node, Run
from runs.tests.conftest import closed_port_url
from runs.tests.helpers import burr_examples
from runs.tests.helpers.burr_apps import TURN_1, TURN_2
from runs.tests.helpers.burr_examples import (
    CHATBOT,
    QUESTION,
    STREAMING,
    completed,
    run,
    step,
    steps,
)

# The shared fixtures (helpers/burr_examples.py), this module's own: ``_loopback`` is autouse.
_loopback, apps, provider, chat = (
    burr_examples._loopback,
    burr_examples.apps,
    burr_examples.provider,
    burr_examples.chat,
)

CODE_REQUEST = "Write code to sort a list in Python"  # … and this one to generate_code

LLM_STEPS = {"decide_mode", "answer_question", "generate_code"}


# --- fixtures ------------------------------------------------------------------------------


def fork(source: Run, node: str, field: str | None = None, value: Any = None, **kw) -> Run:
    return execute_run(create_fork(source, node, field, value, **kw).pk)


def replay(source: Run) -> tuple[Run, dict[str, Any]]:
    again = execute_run(create_replay(source).pk)
    return again, replay_verdict(source, again)


def names(run: Run) -> list[str]:
    return [n.name for n in steps(run)]


def aligned(diff: dict[str, Any]) -> list[tuple[str, bool, bool]]:
    """The diff's aligned steps: (name, present in a, present in b)."""
    return [(n["name"], n["a_sha256"] is not None, n["b_sha256"] is not None) for n in diff.nodes]


# --- 1. run the multi-modal chatbot, unchanged -------------------------------------------------


def test_chatbot_runs_two_turns_with_llm_and_code_steps(chat, provider):
    parent = chat(QUESTION, CODE_REQUEST)

    nodes = steps(parent)
    assert [n.name for n in nodes] == TURN_1 + TURN_2
    assert [n.sequence_id for n in nodes] == list(range(12))
    for node in nodes:
        assert node.status == Node.Status.COMPLETED
        assert node.cache_source == Node.CacheSource.LIVE
        if node.name in LLM_STEPS:
            assert node.kind == Node.Kind.LLM, node.name
            assert node.total_tokens > 0, node.name
            assert node.prompt_tokens > 0 and node.completion_tokens > 0, node.name
            assert [c["endpoint"] for c in node.calls] == ["chat/completions"], node.name
            assert node.calls[0]["kind"] == "llm"
            assert node.calls[0]["cache_source"] == "live"
            assert node.model_answered, node.name
            assert len(node.cache_entries) == 1 and node.cache_entries[0].startswith("llm:")
        else:
            assert node.kind == Node.Kind.CODE, node.name
            assert node.total_tokens == 0 and not node.calls, node.name
    assert step(parent, "decide_mode").model_requested == "gpt-4o"  # the app's own choice
    assert step(parent, "answer_question").model_requested == "gpt-4o-mini"
    assert step(parent, "decide_mode").output == {"mode": "answer_question"}
    assert step(parent, "decide_mode", 2).output == {"mode": "generate_code"}

    # The runtime inputs each step received, and its turn.
    assert step(parent, "prompt").inputs["inputs"] == {"prompt": QUESTION}
    assert step(parent, "prompt").inputs["turn"] == 0
    assert step(parent, "prompt", 2).inputs["inputs"] == {"prompt": CODE_REQUEST}
    assert step(parent, "prompt", 2).inputs["turn"] == 1
    assert step(parent, "decide_mode").inputs["reads"] == {"prompt": QUESTION}

    # The path the run took, with the app's own conditions.
    edges = {(e.from_node, e.to_node, e.condition) for e in Edge.objects.filter(run=parent)}
    assert ("decide_mode", "answer_question", "mode=answer_question") in edges
    assert ("decide_mode", "generate_code", "mode=generate_code") in edges
    assert ("check_safety", "decide_mode", "safe=True") in edges
    assert ("response", "prompt", "default") in edges

    # Four LLM calls went to the provider, one per llm step, each cached.
    assert len(provider.chat_requests) == 4
    assert LLMCacheEntry.objects.count() == 4
    history = step(parent, "response", 2).output["chat_history"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[-1]["type"] == "code"


def test_a_hyphenated_dotted_path_loads_the_example_as_a_burr_app(apps):
    app = registry.get_pipeline("chatbot")
    assert isinstance(app, BurrApp)
    assert app.entrypoint == "prompt"
    assert dict(app.state) == {"chat_history": []}
    assert {n.name for n in app.nodes} >= {*TURN_1, *TURN_2, "generate_image"}
    assert app.node("prompt").inputs == ("prompt",)
    assert app.node("decide_mode").reads == ("prompt",)
    # The user's own actions, as they are: the example module's graph is the one Rewind runs.
    example = importlib.import_module(CHATBOT)
    assert {a.name: a for a in app.graph.actions}["decide_mode"] is {
        a.name: a for a in example.graph.actions
    }["decide_mode"]


# --- 2. an unchanged replay with the provider stopped ----------------------------------------


def test_unchanged_replay_with_provider_stopped_is_identical_at_zero_tokens(chat, provider):
    parent = chat(QUESTION, CODE_REQUEST)
    provider.stop()

    again, verdict = replay(parent)

    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0
    assert verdict.live_nodes == []
    assert verdict.nondeterministic == []
    assert again.status == Run.Status.COMPLETED
    assert again.trajectory_sha256 == parent.trajectory_sha256
    assert names(again) == names(parent)
    for before, after in zip(steps(parent), steps(again), strict=True):
        assert after.output_sha256 == before.output_sha256, after.name
        assert after.total_tokens == 0, after.name
        if after.name in LLM_STEPS:
            assert after.cache_source == Node.CacheSource.CACHE, after.name
            assert after.cache_entries == before.cache_entries  # the very same answers
        else:
            assert after.cache_source == Node.CacheSource.LIVE  # code re-executes
    assert len(provider.chat_requests) == 4  # nothing more reached the provider


def test_replay_against_a_closed_port_also_needs_no_provider(chat, provider, monkeypatch):
    parent = chat(QUESTION)
    provider.stop()
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())

    again, verdict = replay(parent)

    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0


# --- 3. a writes. override that flips the conditional branch ---------------------------------


def test_writes_override_flips_the_branch_and_the_diff_names_the_branch_point(chat, provider):
    parent = chat(QUESTION)
    before = len(provider.chat_requests)

    child = completed(fork(parent, "decide_mode", "writes.mode", "generate_code"))

    assert names(child) == [*TURN_1[:4], "generate_code", "response"]
    sources = {n.name: n.cache_source for n in steps(child)}
    assert sources["prompt"] == sources["check_safety"] == Node.CacheSource.INHERITED
    decided = step(child, "decide_mode")
    assert decided.cache_source == Node.CacheSource.OVERRIDE
    assert decided.output == {"mode": "generate_code"}
    assert decided.total_tokens == 0 and not decided.calls  # it did not execute
    assert step(child, "generate_code").kind == Node.Kind.LLM
    assert step(child, "generate_code").total_tokens > 0
    assert len(provider.chat_requests) == before + 1  # only generate_code called out
    edges = {(e.from_node, e.to_node, e.condition) for e in Edge.objects.filter(run=child)}
    assert ("decide_mode", "generate_code", "mode=generate_code") in edges
    assert not any(to == "answer_question" for _, to, _ in edges)

    diff = diff_runs(parent, child)
    divergence = diff.first_divergence
    assert divergence["node"] == "decide_mode"
    assert divergence["sequence_id"] == 3
    assert divergence["fields"] == [{"path": "mode", "a": "answer_question", "b": "generate_code"}]
    layout = aligned(diff)
    assert ("answer_question", True, False) in layout  # only the parent took it
    assert ("generate_code", False, True) in layout  # only the fork took it
    assert layout[:4] == [(name, True, True) for name in TURN_1[:4]]
    assert [n["same"] for n in diff.nodes[:3]] == [True, True, True]


# --- 4. a state. override that changes the route ----------------------------------------------


def test_state_override_of_a_read_key_changes_the_route(chat, provider):
    parent = chat(QUESTION)
    provider.stop()  # the new route calls no model: the fork needs no provider

    child = completed(fork(parent, "check_safety", "state.prompt", "say something unsafe"))

    assert names(child) == ["prompt", "check_openai_key", "check_safety", "response"]
    checked = step(child, "check_safety")
    assert checked.cache_source == Node.CacheSource.LIVE  # it executed, on the new prompt
    assert checked.inputs["reads"] == {"prompt": "say something unsafe"}
    assert checked.output == {"safe": False}
    refusal = step(child, "response").output["chat_history"][-1]
    assert refusal["content"] == "I'm sorry, I can't respond to that."
    assert refusal["type"] == "error"

    diff = diff_runs(parent, child)
    assert diff.first_divergence["node"] == "check_safety"
    assert diff.first_divergence["fields"] == [{"path": "safe", "a": True, "b": False}]
    assert ("decide_mode", True, False) in aligned(diff)
    assert ("answer_question", True, False) in aligned(diff)


def test_state_override_of_the_prompt_reroutes_the_llm_decision(chat, provider):
    parent = chat(QUESTION)
    before = len(provider.chat_requests)

    child = completed(fork(parent, "decide_mode", "state.prompt", CODE_REQUEST))

    decided = step(child, "decide_mode")
    assert decided.cache_source == Node.CacheSource.LIVE  # a changed prompt is a cache miss
    assert decided.total_tokens > 0
    assert decided.output == {"mode": "generate_code"}
    assert names(child) == [*TURN_1[:4], "generate_code", "response"]
    assert CODE_REQUEST in json.dumps(provider.chat_requests[before]["messages"])
    assert diff_runs(parent, child).first_divergence["node"] == "decide_mode"


# --- 5. a fork at the second visit of a looping step ------------------------------------------


def test_fork_at_the_second_visit_of_the_counter_loop(apps):
    parent = completed(run("counter"))
    assert names(parent) == ["counter"] * 10 + ["result"]
    assert [n.output["counter"] for n in steps(parent)[:10]] == list(range(1, 11))
    assert {n.kind for n in steps(parent)} == {Node.Kind.CODE}

    child = completed(fork(parent, "counter#2", "state.counter", "7"))

    nodes = steps(child)
    assert [n.name for n in nodes] == ["counter"] * 4 + ["result"]
    assert nodes[0].cache_source == Node.CacheSource.INHERITED
    assert nodes[1].sequence_id == 1
    assert nodes[1].inputs["reads"] == {"counter": 7}  # typed like the value it replaces
    # Only the forked visit changed: the visits after it read what it wrote.
    assert [n.output["counter"] for n in nodes[:4]] == [1, 8, 9, 10]
    assert [n.inputs["reads"]["counter"] for n in nodes[1:4]] == [7, 8, 9]

    diff = diff_runs(parent, child)
    assert diff.first_divergence["node"] == "counter"
    assert diff.first_divergence["sequence_id"] == 1
    assert diff.first_divergence["fields"] == [{"path": "counter", "a": 2, "b": 8}]
    assert sum(1 for name, a, b in aligned(diff) if name == "counter" and a and not b) == 6


def test_fork_at_the_second_turn_of_the_chat(chat, provider):
    parent = chat(QUESTION, CODE_REQUEST)
    before = len(provider.chat_requests)

    child = completed(fork(parent, "decide_mode#2", "writes.mode", "answer_question"))

    nodes = steps(child)
    assert [n.name for n in nodes] == TURN_1 + [*TURN_2[:4], "answer_question", "response"]
    assert all(n.cache_source == Node.CacheSource.INHERITED for n in nodes[:9])
    assert nodes[9].cache_source == Node.CacheSource.OVERRIDE
    assert nodes[9].sequence_id == 9
    answer = nodes[10]
    assert answer.inputs["turn"] == 1  # still the second turn; no third one is started
    assert answer.kind == Node.Kind.LLM and answer.total_tokens > 0
    assert len(provider.chat_requests) == before + 1
    # The first visit of decide_mode is untouched: only the second was forked.
    assert nodes[3].output == {"mode": "answer_question"}
    assert nodes[3].output_sha256 == step(parent, "decide_mode").output_sha256

    diff = diff_runs(parent, child)
    assert diff.first_divergence["node"] == "decide_mode"
    assert diff.first_divergence["sequence_id"] == 9
    layout = aligned(diff)
    assert ("generate_code", True, False) in layout
    assert layout.count(("answer_question", True, True)) == 1
    assert ("answer_question", False, True) in layout  # its second visit, in the fork only


# --- 6. the async streaming app ---------------------------------------------------------------


def _deltas(entry: LLMCacheEntry) -> list[str]:
    """The content deltas of a stored ``text/event-stream`` chat answer."""
    pieces = []
    for line in entry.response["text"].splitlines():
        if line.startswith("data:") and line[5:].strip() not in {"", "[DONE]"}:
            for choice in json.loads(line[5:])["choices"]:
                content = (choice.get("delta") or {}).get("content")
                if content:
                    pieces.append(content)
    return pieces


def test_async_streaming_app_runs_and_replays_the_same_stream(provider, monkeypatch):
    terminal = importlib.import_module(STREAMING).TERMINAL_ACTIONS
    assert registry.get_pipeline("streaming").is_async
    simulator = provider.start()

    parent = completed(run("streaming", {"prompt": QUESTION}, halt_after=terminal))

    assert names(parent) == ["prompt", "check_safety", "decide_mode", "answer_question"]
    kinds = [n.kind for n in steps(parent)]
    assert kinds == [Node.Kind.CODE, Node.Kind.CODE, Node.Kind.LLM, Node.Kind.LLM]
    assert step(parent, "decide_mode").total_tokens > 0
    answer = step(parent, "answer_question")
    assert answer.cache_source == Node.CacheSource.LIVE
    assert [c["endpoint"] for c in answer.calls] == ["chat/completions"]
    assert simulator.requests[-1]["stream"] is True
    entry = LLMCacheEntry.objects.get(pk=int(answer.cache_entries[0].split(":")[1]))
    assert entry.response["headers"]["content-type"].startswith("text/event-stream")
    chunks = _deltas(entry)
    assert len(chunks) > 1  # really streamed, in pieces
    content = answer.output["response"]["content"]
    assert "".join(chunks) == content and content

    provider.stop()
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    again, verdict = replay(parent)

    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0
    replayed = step(again, "answer_question")
    assert replayed.cache_source == Node.CacheSource.CACHE
    assert replayed.cache_entries == answer.cache_entries  # the same stored chunks
    assert replayed.output["response"]["content"] == content  # the answer, exactly
    assert replayed.output_sha256 == answer.output_sha256
    assert len(simulator.requests) == 2


def test_async_app_http_call_that_is_not_an_llm_is_a_cached_tool_call(provider):
    provider.start()

    parent = completed(run("models"))

    listed = step(parent, "list_models")
    assert listed.kind == Node.Kind.TOOL
    assert listed.total_tokens == 0
    assert [(c["kind"], c["endpoint"]) for c in listed.calls] == [("tool", "/v1/models")]
    assert listed.output == {"models": ["rewind-sim-1"]}
    assert step(parent, "count_models").kind == Node.Kind.CODE

    provider.stop()
    again, verdict = replay(parent)

    assert verdict.verdict == "identical", verdict
    assert step(again, "list_models").cache_source == Node.CacheSource.TOOL_CACHE


# --- 7. non-determinism is named ----------------------------------------------------------------


def test_a_nondeterministic_action_is_named_with_its_keys(apps):
    parent = completed(run("jitter"))
    assert names(parent) == ["add_up", "stamp", "summarise", "receipt"]
    assert {n.kind for n in steps(parent)} == {Node.Kind.CODE}

    again, verdict = replay(parent)

    assert verdict.verdict == "diverged"
    assert verdict.total_tokens == 0
    assert verdict.first_divergence["node"] == "stamp"
    named = {entry["node"]: entry for entry in verdict.nondeterministic}
    assert set(named) == {"stamp"}  # add_up and summarise are deterministic; receipt only
    assert named["stamp"]["keys"] == ["nonce", "stamped_at"]  # read what stamp wrote
    assert named["stamp"]["sequence_id"] == 1
    assert step(again, "add_up").output_sha256 == step(parent, "add_up").output_sha256
    assert step(again, "summarise").output_sha256 == step(parent, "summarise").output_sha256
    assert step(again, "receipt").output_sha256 != step(parent, "receipt").output_sha256


# --- 8. bad input is refused before anything is written ----------------------------------------


def _nothing_written(action: Callable[[], Any], error: type[Exception], *words: str) -> str:
    runs, nodes = Run.objects.count(), Node.objects.count()
    with pytest.raises(error) as caught:
        action()
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert (Run.objects.count(), Node.objects.count()) == (runs, nodes)
    return message


def test_bad_runtime_input_and_halts_are_refused_before_anything_is_written(apps):
    _nothing_written(
        lambda: create_run("chatbot", {"colour": "red"}, halt_after=["response"]),
        InputError,
        "'colour'",
        "prompt",
    )
    _nothing_written(
        lambda: create_run(
            "chatbot", {"prompt": QUESTION}, turns=[{"promt": "typo"}], halt_after=["response"]
        ),
        InputError,
        "'promt'",
    )
    _nothing_written(
        lambda: create_run("chatbot", {"prompt": QUESTION}, halt_after=["respond"]),
        InputError,
        "'respond'",
        "response",
    )
    _nothing_written(
        lambda: create_run("chatbot", {"prompt": QUESTION}, halt_before=["nowhere"]),
        InputError,
        "'nowhere'",
    )
    _nothing_written(
        lambda: create_run("chatbot", {"prompt": QUESTION}, turns=[{"prompt": "again"}]),
        InputError,
        "halt",
    )
    # The app's client names its own model and temperature: a run-wide one is refused.
    _nothing_written(
        lambda: create_run("chatbot", {"prompt": QUESTION}, model="gpt-4o"),
        InputError,
        "llm.model",
    )
    _nothing_written(
        lambda: create_run("chatbot", {"prompt": QUESTION}, temperature="0.3"),
        InputError,
        "llm.temperature",
    )


def test_overrides_a_step_does_not_consume_are_refused_with_the_list(chat):
    parent = chat(QUESTION)

    message = _nothing_written(
        lambda: create_fork(parent, "decide_mode", "state.chat_history", "[]"),
        OverrideError,
        "'state.chat_history'",
    )
    for field in ("state.prompt", "writes.mode", "llm.model", "llm.temperature"):
        assert field in message, message
    _nothing_written(
        lambda: create_fork(parent, "decide_mode", "input.prompt", "hi"),
        OverrideError,
        "'input.prompt'",
    )
    _nothing_written(
        lambda: create_fork(parent, "check_safety", "llm.model", "gpt-4o"),  # a code step
        OverrideError,
        "'llm.model'",
        "state.prompt",
    )
    _nothing_written(
        lambda: create_fork(parent, "decide_mode", "llm.temperature", "9"),
        OverrideError,
        "temperature",
        "between 0 and 2",
    )
    _nothing_written(
        lambda: create_fork(parent, "decide_mode", "prompt", "a declared node's field"),
        OverrideError,
        "'prompt'",
    )


def test_llm_overrides_rewrite_the_call_the_step_makes(chat, provider):
    parent = chat(QUESTION)
    before = len(provider.chat_requests)

    child = completed(fork(parent, "decide_mode", "llm.model", "gpt-4.1-nano"))
    warmer = completed(fork(parent, "decide_mode", "llm.temperature", "0.5"))

    assert provider.chat_requests[before]["model"] == "gpt-4.1-nano"
    assert step(child, "decide_mode").model_requested == "gpt-4.1-nano"
    assert step(child, "decide_mode").cache_source == Node.CacheSource.LIVE
    assert step(child, "decide_mode").total_tokens > 0
    requested = [r for r in provider.chat_requests[before:] if r.get("temperature") == 0.5]
    assert requested and requested[0]["model"] == "gpt-4o"
    assert step(warmer, "decide_mode").temperature == 0.5


# --- 9. the command line ------------------------------------------------------------------------


def test_rewind_run_json_offers_the_generic_fields(provider):
    provider.start()
    out = io.StringIO()

    call_command(
        "rewind_run",
        "--pipeline", "chatbot",
        "--input", f"prompt={QUESTION}",
        "--input", "model=gpt-4o-mini",  # a runtime input of answer_question (its model)
        "--halt-after", "response",
        "--turn", f"prompt={CODE_REQUEST}",
        "--json",
        stdout=out,
    )  # fmt: skip

    data = json.loads(out.getvalue())
    assert data["status"] == "completed"
    assert data["pipeline"] == "chatbot"
    assert data["fork"] is None
    assert [n["name"] for n in data["nodes"]] == TURN_1 + TURN_2
    assert data["totals"]["total_tokens"] > 0
    assert data["totals"]["live_nodes"] == 4
    by_name = {n["name"]: n for n in data["nodes"]}  # the last visit of each
    answer = next(n for n in data["nodes"] if n["name"] == "answer_question")
    assert answer["kind"] == "llm"
    assert answer["fields"]["input.model"] == "gpt-4o-mini"
    assert answer["fields"]["state.prompt"] == QUESTION
    assert answer["fields"]["state.mode"] == "answer_question"
    assert set(answer["fields"]) >= {
        "state.prompt", "state.chat_history", "state.mode", "input.model",
        "writes.response", "llm.model", "llm.temperature",
    }  # fmt: skip
    assert answer["fields"]["llm.model"] == "gpt-4o-mini"
    decide = by_name["decide_mode"]
    assert set(decide["fields"]) == {"state.prompt", "writes.mode", "llm.model", "llm.temperature"}
    assert decide["fields"]["writes.mode"] == "generate_code"  # the second turn's visit
    assert decide["fields"]["llm.model"] == "gpt-4o"
    prompt = by_name["prompt"]
    assert prompt["kind"] == "code"
    assert prompt["fields"]["input.prompt"] == CODE_REQUEST
    assert not any(f.startswith("llm.") for f in prompt["fields"])


# --- 10. a registry entry that is not an app ----------------------------------------------------


def test_a_registry_entry_that_is_not_an_app_is_a_clear_pipeline_error(apps):
    with pytest.raises(PipelineError) as caught:
        registry.get_pipeline("not_an_app")
    message = str(caught.value)
    assert "runs.tests.helpers.burr_apps.NOT_AN_APP" in message
    assert "int" in message
    assert "Application" in message and "ApplicationBuilder" in message and "Graph" in message

    runs = Run.objects.count()
    with pytest.raises(PipelineError):
        create_run("not_an_app", {})
    assert Run.objects.count() == runs


def test_a_factory_that_fails_is_a_clear_pipeline_error(apps):
    with pytest.raises(PipelineError) as caught:
        registry.get_pipeline("broken")
    message = str(caught.value)
    assert "runs.tests.helpers.burr_apps.broken_application" in message
    assert "RuntimeError" in message and "no config file" in message


def test_a_missing_module_is_a_clear_pipeline_error(apps, settings):
    settings.REWIND_PIPELINES = {**settings.REWIND_PIPELINES, "gone": "burr.examples.nope.app"}
    with pytest.raises(PipelineError) as caught:
        registry.get_pipeline("gone")
    assert "burr.examples.nope.app" in str(caught.value)


# --- registry forms -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["jitter", "jitter_app", "jitter_builder"])
def test_an_application_a_builder_or_a_factory_registers_alike(apps, name):
    parent = completed(run(name))
    assert names(parent) == ["add_up", "stamp", "summarise", "receipt"]
    assert step(parent, "add_up").output == {"total": 6}


def test_a_graph_registers_and_runs_from_its_first_action(provider):
    provider.start()
    parent = completed(run("chatbot_graph", {"prompt": QUESTION}, halt_after=["response"]))
    assert names(parent) == TURN_1
    assert step(parent, "decide_mode").kind == Node.Kind.LLM


# --- the email assistant: runtime inputs over turns, expr() branches ------------------------------

EMAIL_STEPS = [
    "process_input", "determine_clarifications", "clarify_instructions",
    "formulate_draft", "process_feedback", "final_result",
]  # fmt: skip


@pytest.fixture
def email_run(provider) -> Iterator[Run]:
    """A completed run of the email assistant over three turns: the email and instructions,
    the answers to its clarifying questions, then no feedback."""
    # The example keeps one openai client for the life of the process (functools.lru_cache),
    # made with the endpoint of the moment: clear it around the test so no client outlives
    # the simulator it was made for.
    email = importlib.import_module("burr.examples.email-assistant.application")
    email._get_openai_client.cache_clear()
    provider.start()
    first = {
        "email_to_respond": "Can we move our Tuesday meeting to Thursday at 3pm?",
        "response_instructions": "Accept, but ask to keep it to 30 minutes.",
    }
    turns = [{"clarification_inputs": ["Thursday works", "Keep it short"]}, {"feedback": ""}]
    try:
        yield completed(
            run(
                "email",
                first,
                turns=turns,
                halt_before=["clarify_instructions", "process_feedback"],
            )
        )
    finally:
        email._get_openai_client.cache_clear()


def test_email_assistant_runs_over_turns_and_replays_without_provider(email_run, provider):
    parent = email_run
    assert names(parent) == EMAIL_STEPS
    assert step(parent, "determine_clarifications").output["clarification_questions"]
    assert step(parent, "clarify_instructions").inputs["turn"] == 1
    assert step(parent, "clarify_instructions").output == {
        "clarification_answers": ["Thursday works", "Keep it short"]
    }
    assert step(parent, "process_feedback").inputs["inputs"] == {"feedback": ""}
    assert step(parent, "process_feedback").inputs["turn"] == 2
    kinds = {n.name: n.kind for n in steps(parent)}
    assert kinds["determine_clarifications"] == kinds["formulate_draft"] == Node.Kind.LLM
    assert kinds["process_input"] == kinds["final_result"] == Node.Kind.CODE
    assert step(parent, "final_result").output["final_draft"]

    provider.stop()
    again, verdict = replay(parent)

    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0
    assert step(again, "clarify_instructions").inputs == step(parent, "clarify_instructions").inputs


def test_email_input_override_loops_back_to_the_draft(email_run, provider):
    parent = email_run
    before = len(provider.chat_requests)

    child = completed(fork(parent, "process_feedback", "input.feedback", "Make it friendlier"))

    assert names(child) == [*EMAIL_STEPS[:5], "formulate_draft"]
    assert step(child, "process_feedback").inputs["inputs"] == {"feedback": "Make it friendlier"}
    redraft = step(child, "formulate_draft", 2)
    assert redraft.cache_source == Node.CacheSource.LIVE and redraft.total_tokens > 0
    assert "Make it friendlier" in json.dumps(provider.chat_requests[before]["messages"])
    diff = diff_runs(parent, child)
    assert diff.first_divergence["node"] == "process_feedback"
    assert {"path": "feedback", "a": "", "b": "Make it friendlier"} in diff.first_divergence[
        "fields"
    ]


def test_email_writes_override_skipping_a_turn_still_feeds_each_step_its_inputs(
    email_run, provider
):
    parent = email_run

    child = completed(
        fork(parent, "determine_clarifications", "writes.clarification_questions", "[]")
    )

    assert names(child) == [n for n in EMAIL_STEPS if n != "clarify_instructions"]
    assert step(child, "process_feedback").inputs["inputs"] == {"feedback": ""}
    diff = diff_runs(parent, child)
    assert diff.first_divergence["node"] == "determine_clarifications"
    assert ("clarify_instructions", True, False) in aligned(diff)


# --- forks of every kind replay exactly; forks at a first step; an async fork ---------------------


def test_forks_with_each_kind_of_override_replay_identically_without_provider(chat, provider):
    parent = chat(QUESTION)
    forks = [
        completed(fork(parent, "decide_mode", "writes.mode", "generate_code")),
        completed(fork(parent, "check_safety", "state.prompt", "say something unsafe")),
        completed(fork(parent, "decide_mode", "llm.model", "gpt-4.1-nano")),
        completed(fork(parent, "prompt", "input.prompt", CODE_REQUEST)),  # the very first step
    ]
    provider.stop()

    for child in forks:
        again, verdict = replay(child)
        assert verdict.verdict == "identical", (child.override, verdict)
        assert verdict.total_tokens == 0
        assert again.override == child.override  # the replay carries the fork's one change
        assert names(again) == names(child)


def test_a_fork_of_the_first_step_takes_the_new_input(chat, provider):
    parent = chat(QUESTION)

    child = completed(fork(parent, "prompt", "input.prompt", CODE_REQUEST))

    assert names(child) == [*TURN_1[:4], "generate_code", "response"]
    assert not child.nodes.filter(cache_source=Node.CacheSource.INHERITED).exists()
    assert step(child, "prompt").inputs["inputs"] == {"prompt": CODE_REQUEST}
    assert step(child, "decide_mode").output == {"mode": "generate_code"}


def test_a_fork_of_a_fork_resolves_to_the_runs_that_executed(chat, provider):
    parent = chat(QUESTION)
    child = completed(fork(parent, "decide_mode", "writes.mode", "generate_code"))

    grandchild = completed(fork(child, "response"))

    src = {n.name: n.src_run_id for n in steps(grandchild)}
    assert src["prompt"] == src["check_safety"] == parent.pk
    assert src["decide_mode"] == src["generate_code"] == child.pk
    assert src["response"] == grandchild.pk
    assert grandchild.trajectory_sha256 == child.trajectory_sha256


def test_async_app_fork_flips_the_branch_and_replays(provider):
    terminal = importlib.import_module(STREAMING).TERMINAL_ACTIONS
    simulator = provider.start()
    parent = completed(
        run(
            "streaming",
            {"prompt": QUESTION},
            halt_after=terminal,
            turns=[{"prompt": "Write a poem about the sea"}],
        )
    )
    assert names(parent) == [
        "prompt", "check_safety", "decide_mode", "answer_question",
        "prompt", "check_safety", "decide_mode", "generate_poem",
    ]  # fmt: skip
    before = len(simulator.requests)

    child = completed(fork(parent, "decide_mode", "writes.mode", "generate_code"))

    assert names(child) == [
        "prompt", "check_safety", "decide_mode", "generate_code",
        "prompt", "check_safety", "decide_mode", "generate_poem",
    ]  # fmt: skip
    assert step(child, "decide_mode").cache_source == Node.CacheSource.OVERRIDE
    assert step(child, "generate_code").cache_source == Node.CacheSource.LIVE
    assert step(child, "decide_mode", 2).cache_source == Node.CacheSource.CACHE  # same prompt
    # The poem is asked after a different first answer: its chat history changed, so it is new.
    assert step(child, "generate_poem").cache_source == Node.CacheSource.LIVE
    assert len(simulator.requests) == before + 2
    assert diff_runs(parent, child).first_divergence["node"] == "decide_mode"

    provider.stop()
    for source in (parent, child):
        again, verdict = replay(source)
        assert verdict.verdict == "identical", verdict
        assert verdict.total_tokens == 0


def test_rewind_fork_sets_a_generic_field_from_the_command_line(chat):
    parent = chat(QUESTION, CODE_REQUEST)
    out = io.StringIO()

    call_command(
        "rewind_fork", str(parent.pk), "--node", "decide_mode#2",
        "--set", "writes.mode=answer_question", "--json", stdout=out,
    )  # fmt: skip

    data = json.loads(out.getvalue())
    assert data["status"] == "completed"
    assert data["fork"] == {
        "node": "decide_mode",
        "field": "writes.mode",
        "value": "answer_question",
    }
    assert [n["name"] for n in data["nodes"]][-2:] == ["answer_question", "response"]
    assert data["nodes"][9]["cache_source"] == "override"


def test_rewind_replay_json_names_the_nondeterministic_step(apps):
    parent = completed(run("jitter"))
    out = io.StringIO()

    with pytest.raises(CommandError):  # diverged: exit 1
        call_command("rewind_replay", str(parent.pk), "--json", stdout=out)

    [result] = json.loads(out.getvalue())["results"]
    assert result["verdict"] == "diverged"
    assert [(n["node"], n["keys"]) for n in result["nondeterministic"]] == [
        ("stamp", ["nonce", "stamped_at"])
    ]


def test_rewind_replay_table_names_the_nondeterministic_step(apps):
    parent = completed(run("jitter"))
    out = io.StringIO()

    with pytest.raises(CommandError):
        call_command("rewind_replay", str(parent.pk), stdout=out)

    text = out.getvalue()
    assert "non-deterministic" in text or "nondeterministic" in text, text
    assert "stamped_at" in text and "nonce" in text, text


# --- fork previews of a Burr app ------------------------------------------------------------------


def test_preview_of_a_writes_fork_says_the_step_does_not_execute(chat):
    from runs.engine.forking.forks import preview_fork

    parent = chat(QUESTION)

    plan = preview_fork(resolve_fork(parent, "decide_mode", "writes.mode", "generate_code"))

    first = plan["steps"][0]
    assert first["name"] == "decide_mode"
    assert first["will_be"] == "override", plan
    assert first["projected_tokens"] == 0, plan


def test_preview_of_an_unchanged_fork_expects_the_cache(chat):
    from runs.engine.forking.forks import preview_fork

    parent = chat(QUESTION)

    plan = preview_fork(resolve_fork(parent, "decide_mode"))

    assert plan["projected_tokens"] == 0, plan
    llm = [s for s in plan["steps"] if s["kind"] == "llm"]
    assert llm and all(s["will_be"] == "cache" for s in llm), plan


# --- a streamed answer without usage ---------------------------------------------------------------


def test_a_live_stream_without_usage_has_its_tokens_counted_and_marked(provider):
    """Burr's streaming example asks for no usage in its stream: Rewind counts the tokens (never
    a silent 0) and says they were counted, not reported (issue 42)."""
    terminal = importlib.import_module(STREAMING).TERMINAL_ACTIONS
    provider.start()

    parent = completed(run("streaming", {"prompt": QUESTION}, halt_after=terminal))

    answer = step(parent, "answer_question")
    call = answer.calls[0]
    assert answer.cache_source == Node.CacheSource.LIVE
    assert call["tokens_counted"] is True, call
    assert call["total_tokens"] > 0 and answer.total_tokens >= call["total_tokens"]
    assert call["cost_usd"] is not None and float(call["cost_usd"]) > 0


def test_load_all_imports_every_registered_pipeline_and_names_the_broken_ones(rewind_settings):
    """rewind_serve's supervisor imports the registered apps beside the server, so the first run
    page after a restart does not pay for a Burr app's imports (issue 16, also noticed)."""
    from runs.engine.apps import registry

    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "chatbot": "burr.examples.multi-modal-chatbot.application.application",
        "broken": "no.such.module.app",
    }
    registry._load.cache_clear()

    failed = registry.load_all()

    assert list(failed) == ["broken"] and "cannot be imported" in failed["broken"]
    loaded = registry._load.cache_info().currsize
    assert loaded == len(rewind_settings.REWIND_PIPELINES) - 1
    registry._load.cache_clear()
