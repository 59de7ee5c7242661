"""A replayed call with no entry always says why (issue 29, item 7): when its request equals a
recorded one, the list of differing fields would be empty, so the miss names what does differ —
the time of asking it at which the recorded step kept no answer: the step asks more often
than it did when recorded.
"""

from __future__ import annotations

import os

import openai
import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.calls.capture import misses
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay
from runs.models import Run
from runs.tests.conftest import LoopbackProvider, closed_port_url

REQUEST = {"method": "POST", "endpoint": "chat/completions", "body": {"model": "m"}}


def test_a_request_equal_to_a_kept_one_names_the_time_of_asking_that_kept_none():
    text = misses.explain(REQUEST, [object()], occurrence=0, kept=[1])
    assert "kept its answer at time 2 of asking it, not at time 1" in text
    assert "got no answer when recorded" in text and "differs in" not in text


def test_a_request_equal_to_a_recorded_one_under_another_key_says_so():
    class Entry:
        request = REQUEST

    text = misses.explain(REQUEST, [Entry()])
    assert "made this same request" in text and "does not serve this call" in text
    assert "differs in" not in text


def test_a_different_request_still_names_the_fields_that_differ():
    class Entry:
        request = {**REQUEST, "body": {"model": "other"}}

    text = misses.explain(REQUEST, [Entry()])
    assert 'differs in body.model: "other" → "m"' in text


ASKED = {"times": 1}  # how many times the step asks; the test raises it between runs


@action(reads=[], writes=["answer"])
def ask(state: State) -> State:
    client = openai.OpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-0000", max_retries=0
    )
    answers = [
        client.chat.completions.create(
            model="rewind-sim-1", temperature=0, messages=[{"role": "user", "content": "Which?"}]
        )
        .choices[0]
        .message.content
        for _ in range(ASKED["times"])
    ]
    return state.update(answer=answers[-1])


def asking_application():
    return ApplicationBuilder().with_actions(ask=ask).with_entrypoint("ask").build()


@pytest.fixture
def recorded(rewind_settings, monkeypatch, db):
    name = "asking_chat"
    path = f"{__name__}.asking_application"
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, name: path}
    registry._load.cache_clear()
    ASKED["times"] = 1
    provider = LoopbackProvider()
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = execute_run(create_run(name, {}).pk)
    yield source
    ASKED["times"] = 1
    registry._load.cache_clear()


def test_a_replay_that_asks_more_often_never_names_an_empty_difference(recorded, monkeypatch):
    assert recorded.status == Run.Status.COMPLETED, recorded.error
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())  # the provider is gone
    ASKED["times"] = 2  # the step's code now asks the same question twice
    replay = execute_run(create_replay(recorded).pk)
    assert replay.status == Run.Status.FAILED
    step = replay.nodes.get(name="ask")
    assert "differs in" not in step.error, step.error
    assert "kept its answer at time 1 of asking it, not at time 2" in step.error, step.error
    assert step.calls[-1]["error"] == step.error  # the call says it too (the inspector lists it)
