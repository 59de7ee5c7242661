"""Failing loudly, over the real transport (DESIGN.md, Failing loudly): runs of the demo
``research`` pipeline against the simulator served on loopback with a fault. Unusable or NUL
output fails the step and is never cached; a 400 naming ``response_format`` is retried once
without it; a substituted model is recorded and flagged; with the provider dead, cached runs
still replay and a miss fails at once. The client's own handling of each fault is tested in
``test_provider_faults.py``.
"""

from __future__ import annotations

import json
import time

import pytest

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.providers.simulator import Simulator
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import closed_port_url
from runs.tests.helpers.research_runs import (
    LLM_NODES,
    TOOL_NODES,
    assert_unchanged_replay,
    step,
)

pytestmark = pytest.mark.django_db


# --- failing loudly, over the real transport ------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [("garbage", "not JSON"), ("empty", "empty output")],
)
def test_unusable_model_output_fails_the_run_and_is_never_cached(
    serve_simulator, rewind_settings, option, message
):
    serve_simulator(**{option: True})
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED
    assert run.error.startswith("plan:") and message in run.error
    plan = step(run, "plan")
    assert plan.status == Node.Status.FAILED and message in plan.error
    assert not plan.output_sha256 and plan.output is None
    if option == "garbage":
        assert plan.raw_output.startswith("<<garbled output>>")
    else:
        assert plan.raw_output == ""
    assert Node.objects.filter(run=run).count() == 1
    assert LLMCacheEntry.objects.count() == 0
    assert not run.trajectory_sha256 and not run.artifact_path
    # Nothing was cached, so a healthy provider answers the same request afresh.
    rewind_settings.REWIND_LLM_BASE_URL = ""
    rewind_settings.REWIND_LLM_MODEL = ""
    again = execute_run(create_run("research").pk)
    assert again.status == Run.Status.COMPLETED, again.error
    assert step(again, "plan").cache_source == "live"


def test_nul_in_model_output_fails_the_node_alike_on_every_database(serve_simulator):
    simulator = serve_simulator()
    answer = json.dumps({"objective": "cut costs\x00", "steps": ["count"], "metric": "cost"})

    def respond(body: dict) -> tuple[int, dict]:
        status, response = Simulator.respond(simulator, body)
        response["choices"][0]["message"]["content"] = answer
        return status, response

    simulator.respond = respond
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.FAILED
    plan = step(run, "plan")
    assert plan is not None and plan.status == Node.Status.FAILED
    assert "NUL" in plan.error
    assert LLMCacheEntry.objects.count() == 0


def test_a_400_naming_response_format_is_retried_once_without_it(serve_simulator):
    simulator = serve_simulator(reject_response_format=True)
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    for name in LLM_NODES:
        assert "retried once without it" in step(run, name).cache_note, name
    assert len(simulator.requests) == 2 * len(LLM_NODES)
    assert [("response_format" in body) for body in simulator.requests] == [True, False] * 4


def test_a_substituted_model_is_recorded_and_flagged(serve_simulator):
    serve_simulator(substitute_model="other-model")
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    for name in LLM_NODES:
        node = step(run, name)
        assert node.model_requested == "rewind-sim-1"
        assert node.model_answered == "other-model"
        assert node.model_substituted is True
    for name in TOOL_NODES:
        assert step(run, name).model_substituted is False


def test_a_dead_provider_replays_cached_runs_and_fails_misses_at_once(
    research_run, run_fork, rewind_settings
):
    rewind_settings.REWIND_LLM_BASE_URL = closed_port_url()
    rewind_settings.REWIND_LLM_MODEL = "rewind-sim-1"
    assert_unchanged_replay(research_run, run_fork(research_run, "plan"))

    started = time.monotonic()
    # The run was the simulator's: the dead endpoint is asked only when the fork says so.
    fork = run_fork(
        research_run, "plan", "prompt", "Plan a study of phone outreach costs.", provider="endpoint"
    )
    assert time.monotonic() - started < 5
    assert fork.status == Run.Status.FAILED
    plan = step(fork, "plan")
    assert plan.status == Node.Status.FAILED
    assert "cannot reach" in plan.error and "connection refused" in plan.error
    assert "the base URL comes from REWIND_LLM_BASE_URL" in plan.error  # where it was set
    assert fork.error.startswith("plan:")
    assert Node.objects.filter(run=fork).count() == 1
