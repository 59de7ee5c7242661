"""Provider faults, each injected against the simulator served on loopback (issue 4, part 5).

Every test drives the real transport path: ``REWIND_LLM_BASE_URL`` points at an HTTP server on
127.0.0.1 that is either the simulator itself or a scripted wrapper of it. What the engine
must do (DESIGN.md, Failing loudly): a transport error fails the node at once with the error
attached; 429/5xx get a bounded, logged retry with backoff and a final failure keeps the
provider's message; a 400 naming ``response_format`` is retried once without it; unusable
output fails the node with the raw output attached and is never cached; a substitution is
recorded and flagged; a fully cached run completes with the provider down.
"""

from __future__ import annotations

import json
import logging
import time

import pytest

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.providers.client import ChatClient, ChatRequest, ProviderError
from runs.engine.providers.simulator import SIMULATOR_MODEL
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import LoopbackCall, closed_port_url

pytestmark = pytest.mark.django_db

LLM_NODES = ("plan", "critique", "revise", "compose")


@pytest.fixture
def policy(rewind_settings):
    """A fast, explicit retry policy: 2 retries, 10 ms base backoff, a 5 s timeout."""
    rewind_settings.REWIND_LLM_RETRIES = 2
    rewind_settings.REWIND_LLM_BACKOFF = 0.01
    rewind_settings.REWIND_LLM_TIMEOUT = 5.0
    return rewind_settings


def run_research(**inputs) -> Run:
    return execute_run(create_run("research", inputs or None).pk)


def failed_node(run: Run) -> Node:
    (node,) = run.nodes.filter(status=Node.Status.FAILED)
    return node


def provider_warnings(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "rewind.provider" and r.levelno == logging.WARNING
    ]


# --- transport: refused, timeout ----------------------------------------------------------


def test_connection_refused_fails_the_node_at_once_with_the_transport_error(policy):
    policy.REWIND_LLM_BASE_URL = closed_port_url()
    policy.REWIND_LLM_MODEL = SIMULATOR_MODEL

    started = time.monotonic()
    run = run_research()
    elapsed = time.monotonic() - started

    assert elapsed < 2.0
    assert run.status == Run.Status.FAILED
    node = failed_node(run)
    assert (node.name, node.sequence_id) == ("plan", 0)
    assert "connection refused" in node.error
    assert policy.REWIND_LLM_BASE_URL.removesuffix("/v1") in node.error
    assert run.error.startswith("plan: provider error: cannot reach")
    assert run.nodes.count() == 1  # nothing after the failed step ran
    assert LLMCacheEntry.objects.count() == 0


@pytest.mark.parametrize("timeout", [0.3, 0.8])
def test_a_provider_that_never_answers_times_out_after_the_configured_bound(
    policy, loopback_provider, timeout
):
    policy.REWIND_LLM_TIMEOUT = timeout

    def sleepy(call: LoopbackCall):
        time.sleep(3)
        return 200, {}

    provider = loopback_provider(sleepy)

    started = time.monotonic()
    run = run_research()
    elapsed = time.monotonic() - started

    assert timeout <= elapsed < timeout + 2.0  # bounded by the setting, well under 5 s
    assert run.status == Run.Status.FAILED
    node = failed_node(run)
    assert node.name == "plan"
    assert f"timed out after {timeout:g}s" in node.error
    assert len(provider.chat_calls()) == 1  # a transport error is not retried


# --- 5xx and 429: bounded, logged retries with backoff ------------------------------------


@pytest.mark.parametrize(
    ("status", "retries", "message"),
    [
        (500, 2, "simulated provider failure (HTTP 500)"),
        (503, 0, "simulated provider failure (HTTP 503)"),
        (500, 4, "simulated provider failure (HTTP 500)"),
        (429, 2, "rate limit exceeded (simulated)"),
        (429, 3, "rate limit exceeded (simulated)"),
    ],
)
def test_overload_and_server_errors_are_retried_a_bounded_number_of_times_then_fail(
    policy, serve_simulator, caplog, status, retries, message
):
    policy.REWIND_LLM_RETRIES = retries
    simulator = serve_simulator(status=status)
    caplog.set_level(logging.WARNING, logger="rewind.provider")

    run = run_research()

    assert len(simulator.requests) == retries + 1
    assert run.status == Run.Status.FAILED
    node = failed_node(run)
    assert node.name == "plan"
    assert f"HTTP {status}" in node.error
    assert message in node.error  # the provider's own message is recorded
    assert message in run.error
    warnings = provider_warnings(caplog)
    assert len(warnings) == retries  # one warning per retry
    for attempt, text in enumerate(warnings, start=1):
        assert f"HTTP {status}" in text
        assert f"retry {attempt} of {retries}" in text
    assert LLMCacheEntry.objects.count() == 0  # errors are never cached


def test_a_429_that_recovers_on_the_second_attempt_completes(policy, loopback_provider, caplog):
    caplog.set_level(logging.WARNING, logger="rewind.provider")
    attempts = {"n": 0}

    def flaky(call: LoopbackCall):
        attempts["n"] += 1
        if attempts["n"] == 1:
            return 429, {"error": {"message": "slow down", "type": "rate_limit_error"}}
        return provider.simulate(call)

    provider = loopback_provider(flaky)

    run = run_research()

    assert run.status == Run.Status.COMPLETED, run.error
    assert len(provider.chat_calls()) == len(LLM_NODES) + 1  # plan asked twice
    warnings = provider_warnings(caplog)
    assert len(warnings) == 1
    assert "HTTP 429" in warnings[0] and "retry 1 of 2" in warnings[0]
    assert run.nodes.get(name="plan").cache_source == Node.CacheSource.LIVE


def test_retries_back_off_exponentially_and_stay_bounded(loopback_provider):
    """The client waits backoff, 2×backoff, 4×backoff… between retries (and nothing after the
    last one), so a failing provider costs a bounded, known time."""
    provider = loopback_provider(lambda call: (503, {"error": {"message": "overloaded"}}))
    slept: list[float] = []
    client = ChatClient(provider.url, retries=3, backoff=0.25, timeout=5, sleep=slept.append)

    with pytest.raises(ProviderError) as caught:
        client.complete(ChatRequest(SIMULATOR_MODEL, [{"role": "user", "content": "hi"}], 0.0))

    assert slept == [0.25, 0.5, 1.0]
    assert len(provider.chat_calls()) == 4
    assert caught.value.status_code == 503
    assert "overloaded" in str(caught.value)


def test_other_4xx_answers_are_not_retried(policy, loopback_provider, caplog):
    caplog.set_level(logging.WARNING, logger="rewind.provider")
    provider = loopback_provider(lambda call: (404, {"error": {"message": "no such model"}}))

    run = run_research()

    assert len(provider.chat_calls()) == 1
    assert "HTTP 404" in failed_node(run).error and "no such model" in failed_node(run).error
    assert provider_warnings(caplog) == []


# --- 400 naming response_format: exactly one retry without it -----------------------------


def test_a_400_naming_response_format_is_retried_once_without_it_and_completes(
    policy, serve_simulator
):
    simulator = serve_simulator(reject_response_format=True)

    run = run_research()

    assert run.status == Run.Status.COMPLETED, run.error
    assert len(simulator.requests) == 2 * len(LLM_NODES)
    with_format = [r for r in simulator.requests if "response_format" in r]
    assert len(with_format) == len(LLM_NODES)  # one refused attempt per node, then without
    for name in LLM_NODES:
        assert "retried once without it" in run.nodes.get(name=name).cache_note


def test_a_400_naming_response_format_twice_is_not_retried_again(policy, loopback_provider):
    provider = loopback_provider(
        lambda call: (400, {"error": {"message": "response_format is not supported"}})
    )

    run = run_research()

    assert len(provider.chat_calls()) == 2  # the one allowed retry, no more
    assert "response_format" in provider.chat_calls()[0].json
    assert "response_format" not in provider.chat_calls()[1].json
    node = failed_node(run)
    assert "HTTP 400" in node.error and "response_format is not supported" in node.error


# --- unusable output: garbage, empty, truncated ------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "raw"),
    [
        ({"garbage": True}, "not JSON", "<<garbled output>>"),
        ({"empty": True}, "empty output", ""),
    ],
    ids=["garbage", "empty"],
)
def test_unusable_content_fails_the_node_with_the_raw_output_and_is_not_cached(
    policy, serve_simulator, options, error, raw
):
    simulator = serve_simulator(**options)

    run = run_research()

    assert len(simulator.requests) == 1  # no retry loop that manufactures an answer
    assert run.status == Run.Status.FAILED
    node = failed_node(run)
    assert node.name == "plan"
    assert error in node.error
    assert raw in node.raw_output
    if raw:
        assert node.raw_output.startswith(raw)
    assert node.output is None and node.output_sha256 == ""
    assert LLMCacheEntry.objects.count() == 0


def test_truncated_json_content_fails_the_node_with_the_raw_output(policy, loopback_provider):
    """The model's answer itself is cut off (max_tokens reached mid-object)."""
    cut = '{"objective": "Find the cheapest policy", "steps": ["load the da'

    def truncated_content(call: LoopbackCall):
        status, body = provider.simulate(call)
        body["choices"][0]["message"]["content"] = cut
        body["choices"][0]["finish_reason"] = "length"
        return status, body

    provider = loopback_provider(truncated_content)

    run = run_research()

    node = failed_node(run)
    assert "not JSON" in node.error
    assert node.raw_output == cut
    assert LLMCacheEntry.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [b'{"id": "chatcmpl-1", "choices": [{"message": {"role": "assistant", "cont', b""],
    ids=["truncated-body", "empty-body"],
)
def test_a_response_body_that_is_not_json_fails_the_node_with_the_raw_body(
    policy, loopback_provider, body
):
    """The HTTP body itself is cut off: the server wrote half a JSON document."""
    loopback_provider(lambda call: (200, body))

    run = run_research()

    assert run.status == Run.Status.FAILED
    node = failed_node(run)
    assert node.name == "plan"
    assert "not JSON" in node.error
    assert node.raw_output == body.decode()
    assert LLMCacheEntry.objects.count() == 0


def test_a_truncated_real_answer_keeps_its_exact_raw_prefix(policy, loopback_provider):
    def half(call: LoopbackCall):
        status, answer = provider.simulate(call)
        data = json.dumps(answer).encode()
        return status, data[: len(data) // 2]

    provider = loopback_provider(half)

    run = run_research()

    node = failed_node(run)
    assert "not JSON" in node.error
    assert node.raw_output and node.raw_output.startswith('{"id": "chatcmpl-sim-')


# --- substitution, and a dead provider for a fully cached run -----------------------------


def test_model_substitution_is_recorded_and_flagged(policy, serve_simulator, client, admin_user):
    serve_simulator(substitute_model="gpt-cheaper-mini")

    run = run_research()

    assert run.status == Run.Status.COMPLETED, run.error
    for name in LLM_NODES:
        node = run.nodes.get(name=name)
        assert node.model_requested == SIMULATOR_MODEL
        assert node.model_answered == "gpt-cheaper-mini"
        assert node.model_substituted
    client.force_login(admin_user)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert "⚠ model gpt-cheaper-mini" in page
    plan = run.nodes.get(name="plan")
    inspector = client.get(f"/runs/{run.pk}/nodes/{plan.sequence_id}/").content.decode()
    assert "substituted the model" in inspector


def test_a_fully_cached_run_completes_with_the_provider_down(policy, serve_simulator):
    simulator = serve_simulator()
    first = run_research()
    assert first.status == Run.Status.COMPLETED, first.error
    calls = len(simulator.requests)

    policy.REWIND_LLM_BASE_URL = closed_port_url()  # the provider is gone
    again = run_research()
    replay = execute_run(create_fork(first, "plan").pk)

    for run in (again, replay):
        assert run.status == Run.Status.COMPLETED, run.error
        assert run.trajectory_sha256 == first.trajectory_sha256
        assert {n.cache_source for n in run.nodes.filter(kind="llm")} == {"cache"}
        assert sum(n.total_tokens for n in run.nodes.all()) == 0
    assert len(simulator.requests) == calls

    # A step whose input changed is a miss, and fails at once against the dead provider.
    started = time.monotonic()
    changed = execute_run(create_fork(first, "analyse", "args.cost_scale", "1.5").pk)
    assert time.monotonic() - started < 2.0
    assert changed.status == Run.Status.FAILED
    assert failed_node(changed).name == "critique"
    assert "connection refused" in failed_node(changed).error


def test_a_provider_fault_mid_run_keeps_the_completed_steps(policy, loopback_provider):
    """A fault at a later step fails that node only; what completed before stays, and the run
    can be forked from it once the provider is back."""
    broken = {"on": True}

    def fail_critique(call: LoopbackCall):
        if broken["on"] and "critique step" in call.system:
            return 500, {"error": {"message": "critique backend down"}}
        return provider.simulate(call)

    provider = loopback_provider(fail_critique)
    run = run_research()

    assert run.status == Run.Status.FAILED
    assert [(n.name, n.status) for n in run.nodes.order_by("sequence_id")] == [
        ("plan", "completed"),
        ("research", "completed"),
        ("analyse", "completed"),
        ("critique", "failed"),
    ]
    assert "critique backend down" in run.error

    broken["on"] = False
    retry = execute_run(create_fork(run, "critique").pk)
    assert retry.status == Run.Status.COMPLETED, retry.error
    assert retry.nodes.count() == 8
