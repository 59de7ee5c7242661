"""Burr's shipped ``deep-researcher`` example, unchanged, run, replayed and forked by Rewind.

The example (``burr/examples/deep-researcher`` in the installed ``apache-burr`` package) asks
OpenAI for a search query, searches the web with tavily-python, summarises the results, reflects
on the summary for a follow-up query, and loops ``web_research → summarize_sources →
reflect_on_summary`` until ``research_loop_count == 2``, then ``finalize_summary`` (which loops
back to ``generate_query``: a halt ends the run). Nothing of it is edited: both of its clients
are pointed at loopback services by the environment alone —

* ``openai.Client()`` reads ``OPENAI_BASE_URL``/``OPENAI_API_KEY``: Rewind's simulator;
* ``TavilyClient()`` has no base-URL variable, only ``TAVILY_HTTPS_PROXY``: the proxy of
  ``runs.tests.helpers.tavily_stub``, which tunnels ``CONNECT api.tavily.com:443`` into its own TLS
  endpoint, certified by a ``trustme`` test CA that ``requests`` trusts through
  ``REQUESTS_CA_BUNDLE``; it answers ``/search`` with results derived from the query.

``HOME`` and the working directory are the test's temp directory (the factory makes a Burr
``LocalTrackingClient``, which writes ``~/.burr``). A guard refuses any connection beyond
loopback.
"""

from __future__ import annotations

import importlib
import json
import socket
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
import requests

from runs.engine.analysis.diff import diff_runs
from runs.engine.apps import registry
from runs.engine.apps.burr import BurrApp
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork, find_node
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.engine.providers.simulator import Simulator
from runs.models import Node, Run, ToolCacheEntry
from runs.tests.conftest import closed_port_url, everything_stored
from runs.tests.helpers.tavily_stub import TAVILY_HOST, TUNNEL, TavilyStub, search_response

EXAMPLE = "burr.examples.deep-researcher"
APPS = {"deep": f"{EXAMPLE}.application.application"}  # the example's own factory

TOPIC = "getting a job in datascience"  # the example's own __main__ topic
OTHER_QUERY = "a different query"
TAVILY_KEY = "tvly-canary-0123456789abcdef"
OPENAI_KEY = "sk-canary-deep-researcher-9876543210fedcba"

# One turn, halted after finalize_summary: generate_query, then two research loops.
STEPS = [
    "generate_query",
    "web_research", "summarize_sources", "reflect_on_summary",
    "web_research", "summarize_sources", "reflect_on_summary",
    "finalize_summary",
]  # fmt: skip
LLM_STEPS = {"generate_query", "summarize_sources", "reflect_on_summary"}

PROXY_VARIABLES = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
    "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "TAVILY_HTTP_PROXY", "CURL_CA_BUNDLE", "TAVILY_PROJECT", "TAVILY_ORG_ID",
)  # fmt: skip


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _loopback(loopback_only) -> None:
    """Every test here: no connection beyond loopback (conftest's ``loopback_only``)."""


def _openai_client_cache_clear() -> None:
    """The example keeps one openai client per process (``functools.lru_cache``), made with
    the endpoint of the moment: cleared whenever the simulator moves, so no client outlives
    the simulator it was made for."""
    importlib.import_module(f"{EXAMPLE}.application")._get_openai_client.cache_clear()


class Services:
    """The simulator (as OpenAI) and the Tavily stub (as Tavily's HTTPS proxy), on loopback.
    ``stop()`` leaves both variables naming the now dead ports."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, stub: TavilyStub) -> None:
        self.monkeypatch = monkeypatch
        self.stub = stub
        self.stack = ExitStack()
        self.simulator: Simulator | None = None
        self.openai_url = ""
        self.proxy_url = ""
        self.chat_requests: list[dict] = []  # over every start

    def start(self) -> None:
        self.stop()
        self.simulator = Simulator()
        self.openai_url = self.stack.enter_context(self.simulator.serve())
        self.proxy_url = self.stack.enter_context(self.stub.serve())
        self.monkeypatch.setenv("OPENAI_BASE_URL", self.openai_url)
        self.monkeypatch.setenv("TAVILY_HTTPS_PROXY", self.proxy_url)
        _openai_client_cache_clear()

    def stop(self) -> None:
        if self.simulator is None:
            return
        self.chat_requests += self.simulator.requests
        self.simulator = None
        self.stack.close()
        self.stack = ExitStack()
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{self.openai_url}/models", timeout=2)
        host, port = self.proxy_url.removeprefix("http://").split(":")
        with pytest.raises(ConnectionRefusedError), socket.create_connection((host, int(port)), 2):
            pass

    @property
    def llm_requests(self) -> list[dict]:
        return self.chat_requests + (list(self.simulator.requests) if self.simulator else [])


@pytest.fixture
def stub(tmp_path) -> TavilyStub:
    return TavilyStub(tmp_path)


@pytest.fixture
def services(rewind_settings, monkeypatch, tmp_path, db, stub) -> Iterator[Services]:
    """The example registered by dotted path; its clients configured from the environment
    (test keys; both endpoints dead until ``services.start()``)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    for name in (*PROXY_VARIABLES, "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_ORGANIZATION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    monkeypatch.setenv("TAVILY_API_KEY", TAVILY_KEY)
    monkeypatch.setenv("TAVILY_HTTPS_PROXY", closed_port_url().removesuffix("/v1"))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(stub.ca_path))
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    _openai_client_cache_clear()
    served = Services(monkeypatch, stub)
    try:
        yield served
    finally:
        served.stop()
        registry._load.cache_clear()
        _openai_client_cache_clear()


def steps(run: Run) -> list[Node]:
    return list(run.nodes.order_by("sequence_id"))


def names(run: Run) -> list[str]:
    return [n.name for n in steps(run)]


def step(run: Run, name: str, occurrence: int = 1) -> Node:
    return [n for n in steps(run) if n.name == name][occurrence - 1]


def completed(run: Run) -> Run:
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


def replay(source: Run) -> tuple[Run, dict[str, Any]]:
    again = execute_run(create_replay(source).pk)
    return again, replay_verdict(source, again)


def search_calls(node: Node) -> list[tuple[str, str, str, str]]:
    return [(c["kind"], c["method"], c["endpoint"], c["library"]) for c in node.calls]


@pytest.fixture
def researched(services) -> Run:
    """A completed run of the deep researcher on ``TOPIC``, halted after ``finalize_summary``."""
    services.start()
    run = create_run("deep", {"research_topic": TOPIC}, halt_after=["finalize_summary"])
    return completed(execute_run(run.pk))


# --- what the example needs of its services ----------------------------------------------------


def test_the_simulator_answers_the_examples_json_prompts_as_it_parses_them():
    """``generate_query`` does ``json.loads(answer)["query"]`` and ``reflect_on_summary``
    ``json.loads(answer).get("follow_up_query")``: the simulator fills the keys their system
    prompts name ("a json object with … these exact keys")."""
    prompts = importlib.import_module(f"{EXAMPLE}.prompts")
    simulator = Simulator()

    def answer(system: str, user: str) -> str:
        body = {
            "model": "gpt-4o-mini",
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        status, reply = simulator.dispatch(
            "POST", "/v1/chat/completions", json.dumps(body).encode()
        )
        assert status == 200, reply
        return reply["choices"][0]["message"]["content"]

    query = json.loads(
        answer(
            prompts.query_writer_instructions.format(research_topic=TOPIC),
            "Generate a query for web search:",
        )
    )
    assert set(query) == {"query", "aspect", "rationale"}
    assert isinstance(query["query"], str) and query["query"].strip()

    reflection = json.loads(
        answer(
            prompts.reflection_instructions.format(research_topic=TOPIC),
            "Identify a knowledge gap and generate a follow-up web search query based on our "
            "existing knowledge: Data science roles ask for Python and statistics.",
        )
    )
    assert set(reflection) == {"knowledge_gap", "follow_up_query"}
    assert isinstance(reflection["follow_up_query"], str) and reflection["follow_up_query"].strip()


def test_tavily_reaches_the_stub_by_proxy_and_trusts_it_by_the_environment(services, stub):
    """What redirects tavily-python without touching it: its proxy variable, and ``requests``
    reading ``REQUESTS_CA_BUNDLE`` because its session trusts the environment."""
    from tavily import TavilyClient

    session = requests.Session()
    assert session.trust_env
    url = f"https://{TAVILY_HOST}/search"
    assert session.merge_environment_settings(url, {}, None, None, None)["verify"] == str(
        stub.ca_path
    )
    services.start()

    client = TavilyClient()
    assert client.proxies == {"https": services.proxy_url}
    answer = client.search("remote data science jobs", max_results=1, include_raw_content=True)

    assert answer == search_response("remote data science jobs", 1, True)
    assert stub.connects == [TUNNEL]
    [request] = stub.requests
    assert (request.method, request.path) == ("POST", "/search")
    assert request.headers["Host"] == TAVILY_HOST
    assert request.headers["Authorization"] == f"Bearer {TAVILY_KEY}"
    assert request.body == {
        "query": "remote data science jobs",
        "include_raw_content": True,
        "max_results": 1,
    }
    assert (
        search_response("another query")["results"]
        != search_response("remote data science jobs")["results"]
    )

    # Without the test CA the tunnel is not trusted: nothing but the environment makes it so.
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("REQUESTS_CA_BUNDLE")
        with pytest.raises(requests.exceptions.SSLError):
            TavilyClient().search("untrusted", max_results=1)
    assert stub.queries == ["remote data science jobs"]  # the untrusted one never got through


def test_the_factory_registers_as_a_burr_app(services):
    app = registry.get_pipeline("deep")
    assert isinstance(app, BurrApp)
    assert app.entrypoint == "generate_query"
    assert dict(app.state) == {"research_loop_count": 0, "running_summary": None}
    assert app.node("generate_query").inputs == ("research_topic",)
    assert app.node("web_research").inputs == ()
    assert (services.stub.requests, services.llm_requests) == ([], [])  # loading calls nothing


# --- 1. a run ------------------------------------------------------------------------------------


def test_deep_researcher_runs_with_tool_and_llm_steps_and_stores_no_key(researched, services, stub):
    parent = researched

    assert names(parent) == STEPS
    assert parent.warnings == []  # every connection a step opened went through the capture
    for node in steps(parent):
        assert node.status == Node.Status.COMPLETED, node.name
        assert node.cache_source == Node.CacheSource.LIVE, node.name
        if node.name in LLM_STEPS:
            assert node.kind == Node.Kind.LLM, node.name
            assert node.total_tokens > 0, node.name
            assert node.prompt_tokens > 0 and node.completion_tokens > 0, node.name
            assert [(c["kind"], c["endpoint"], c["library"]) for c in node.calls] == [
                ("llm", "chat/completions", "httpx2")
            ], node.name
            assert node.model_requested == "gpt-4o-mini", node.name
        elif node.name == "web_research":
            assert node.kind == Node.Kind.TOOL, node.name
            assert node.total_tokens == 0
            assert search_calls(node) == [("tool", "POST", "/search", "urllib3")], node.calls
            assert node.calls[0]["cache_source"] == "live"
        else:
            assert node.name == "finalize_summary"
            assert node.kind == Node.Kind.CODE
            assert not node.calls and node.total_tokens == 0

    # Each search asked the stub for the query the step read, and its results are in state.
    first_query = step(parent, "generate_query").output["search_query"]
    follow_up = step(parent, "reflect_on_summary").output["search_query"]
    assert first_query and follow_up
    assert step(parent, "web_research").inputs["reads"]["search_query"] == first_query
    assert step(parent, "web_research", 2).inputs["reads"]["search_query"] == follow_up
    assert stub.queries == [first_query, follow_up]
    assert stub.connects == [TUNNEL, TUNNEL]
    assert all(r.headers["Authorization"] == f"Bearer {TAVILY_KEY}" for r in stub.requests)
    assert [r.body for r in stub.requests] == [
        {"query": q, "include_raw_content": True, "max_results": 1}
        for q in (first_query, follow_up)
    ]
    researched_output = step(parent, "web_research", 2).output
    assert researched_output["research_loop_count"] == 2
    assert len(researched_output["sources_gathered"]) == 2
    expected_url = search_response(follow_up, 1, True)["results"][0]["url"]
    assert expected_url in researched_output["sources_gathered"][1]
    assert expected_url in researched_output["web_research_results"][1]
    summary = step(parent, "finalize_summary").output["running_summary"]
    assert summary.startswith("## Summary") and expected_url in summary
    assert len(services.llm_requests) == 5  # generate_query + 2 × (summarize, reflect)

    # The search is a cached tool call keyed by its body: no host, no credential.
    tools = ToolCacheEntry.objects.order_by("pk")
    assert [t.args["body"]["query"] for t in tools] == [first_query, follow_up]
    assert all(t.args["endpoint"] == "/search" for t in tools)

    # Neither key reached the database, though the Tavily key travelled in every search.
    stored = everything_stored()
    assert TAVILY_KEY not in stored
    assert OPENAI_KEY not in stored
    assert "tvly-canary" not in stored and "canary-deep-researcher" not in stored


# --- 2. an unchanged replay with both services stopped ------------------------------------------


def test_unchanged_replay_with_both_services_stopped_is_identical_at_zero_tokens(
    researched, services, stub
):
    parent = researched
    searches, asked = len(stub.requests), len(services.llm_requests)
    services.stop()

    again, verdict = replay(parent)

    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0
    assert verdict.live_nodes == []
    assert verdict.nondeterministic == []
    completed(again)
    assert again.trajectory_sha256 == parent.trajectory_sha256
    assert names(again) == STEPS
    for before, after in zip(steps(parent), steps(again), strict=True):
        assert after.output_sha256 == before.output_sha256, after.name
        assert after.total_tokens == 0, after.name
        if after.name in LLM_STEPS:
            assert after.cache_source == Node.CacheSource.CACHE, after.name
        elif after.name == "web_research":
            assert after.cache_source == Node.CacheSource.TOOL_CACHE, after.name
            assert [c["cache_source"] for c in after.calls] == ["tool-cache"]
            assert search_calls(after) == search_calls(before)
        else:
            assert after.cache_source == Node.CacheSource.LIVE  # code re-executes
        assert after.cache_entries == before.cache_entries, after.name  # the very same answers
    assert len(stub.requests) == searches  # the stub got nothing new …
    assert len(services.llm_requests) == asked  # … nor did the simulator
    assert TAVILY_KEY not in everything_stored()


# --- 3. a fork at the first web_research with another query -------------------------------------


def test_fork_at_web_research_with_another_query_searches_live(researched, services, stub):
    parent = researched
    assert find_node(parent, "web_research").sequence_id == 1
    assert find_node(parent, "web_research#1").sequence_id == 1
    assert find_node(parent, "web_research#2").sequence_id == 4
    services.stop()
    services.start()  # running again, on new ports
    searches = len(stub.requests)

    child = completed(
        execute_run(create_fork(parent, "web_research", "state.search_query", OTHER_QUERY).pk)
    )

    assert names(child) == STEPS
    assert child.warnings == []
    nodes = steps(child)
    assert nodes[0].cache_source == Node.CacheSource.INHERITED  # generate_query
    searched = nodes[1]
    assert searched.name == "web_research"
    assert searched.cache_source == Node.CacheSource.LIVE
    assert searched.kind == Node.Kind.TOOL
    assert searched.inputs["reads"]["search_query"] == OTHER_QUERY
    assert search_calls(searched) == [("tool", "POST", "/search", "urllib3")]
    assert searched.calls[0]["cache_source"] == "live"
    assert stub.queries[searches] == OTHER_QUERY  # the new query went to the stub
    other_url = search_response(OTHER_QUERY, 1, True)["results"][0]["url"]
    assert other_url in searched.output["sources_gathered"][0]
    # The summary of other results is a new prompt: asked live.
    summarized = nodes[2]
    assert summarized.cache_source == Node.CacheSource.LIVE and summarized.total_tokens > 0
    assert other_url in summarized.inputs["reads"]["web_research_results"][0]
    assert other_url in step(child, "finalize_summary").output["running_summary"]

    diff = diff_runs(parent, child)
    divergence = diff.first_divergence
    assert divergence is not None
    assert divergence["sequence_id"] >= 1
    assert divergence["node"] in set(STEPS[1:])
    assert divergence["node"] == "web_research" and divergence["sequence_id"] == 1, divergence
    assert {f["path"] for f in divergence["fields"]} == {
        "sources_gathered[0]",
        "web_research_results[0]",
    }

    # The fork replays identically with both services stopped, its one change carried.
    services.stop()
    searches = len(stub.requests)
    again, verdict = replay(child)
    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0
    assert again.override == child.override
    assert len(stub.requests) == searches
