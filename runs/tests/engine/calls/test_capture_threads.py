"""Calls a step makes from threads it starts belong to it (issue 15): a Burr ``MapStates``
fan-out whose three calls leave and finish in a shuffled order is recorded as one step with
three LLM calls, and replays identical ten times with the provider stopped — even when the
three requests are identical and their answers differ. A ``ThreadPoolExecutor`` or a
``threading.Thread`` inside an action is captured the same way.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import httpx
import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Run
from runs.tests.conftest import LoopbackProvider, closed_port_url


def numbered(provider: LoopbackProvider):
    """The simulator's answer, numbered in the order the requests arrived: identical requests
    get different answers, whatever the jitter (which can repeat itself)."""
    arrived = itertools.count(1)

    def answer(call):
        status, body = provider.simulate(call)
        if isinstance(body, dict) and body.get("choices"):
            body["choices"][0]["message"]["content"] += f" (answer {next(arrived)})"
        return status, body

    return answer


@pytest.fixture
def provider(rewind_settings, monkeypatch, transactional_db) -> Iterator[ExitStack]:
    """The fan-out apps registered, a provider on loopback whose answers are numbered in the
    order they are made. Committed rows: the threads' cache writes go through connections of
    their own."""
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "fanout_distinct": "runs.tests.helpers.fanout_apps.distinct",
        "fanout_identical": "runs.tests.helpers.fanout_apps.identical",
        "pool": "runs.tests.engine.calls.test_capture_threads.pool_application",
    }
    registry._load.cache_clear()
    served = LoopbackProvider()
    served.answer = numbered(served)
    with ExitStack() as stack:
        monkeypatch.setenv("OPENAI_BASE_URL", stack.enter_context(served.serve()))
        yield stack
    registry._load.cache_clear()


@pytest.mark.parametrize("name", ["fanout_distinct", "fanout_identical"])
def test_a_mapstates_fan_out_replays_identical_ten_times_however_the_threads_interleave(
    provider, name
):
    # Live: identical calls in flight are not merged into one (they would be in cache mode),
    # so the identical questions get three answers of their own.
    source = execute_run(create_run(name, {}, live=True).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    fan = source.nodes.get(name="ask_all")
    assert fan.kind == "llm"
    assert [c["kind"] for c in fan.calls] == ["llm", "llm", "llm"]
    assert sorted(c["branch"] for c in fan.calls) == [[0], [1], [2]]
    assert fan.total_tokens == sum(c["total_tokens"] for c in fan.calls) > 0
    if name == "fanout_identical":  # three identical requests, three different answers
        assert len(set(fan.output["answers"])) == 3, fan.output

    provider.close()  # the provider is gone: every answer must come from the cache
    for _ in range(10):
        replay = execute_run(create_replay(source).pk)
        assert replay.status == Run.Status.COMPLETED, replay.error
        assert replay_verdict(source, replay).verdict == "identical"
        again = replay.nodes.get(name="ask_all")
        assert again.output == fan.output and again.total_tokens == 0


def _get(url: str) -> str:
    return httpx.get(url, timeout=5).json()["data"][0]["id"]


@action(reads=[], writes=["pooled", "threaded"])
def fetch(state: State) -> State:
    import os

    url = os.environ["OPENAI_BASE_URL"] + "/models"
    with ThreadPoolExecutor(max_workers=2) as pool:
        pooled = list(pool.map(_get, [url, url + "?limit=1"]))
    got: list[str] = []
    worker = threading.Thread(target=lambda: got.append(_get(url)))
    worker.start()
    worker.join()
    return state.update(pooled=pooled, threaded=got)


def pool_application():
    return ApplicationBuilder().with_actions(fetch=fetch).with_entrypoint("fetch").build()


def test_calls_from_a_pool_and_a_thread_inside_an_action_are_the_steps(provider):
    source = execute_run(create_run("pool", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="fetch")
    assert step.kind == "tool" and len(step.calls) == 3
    assert sorted(c["branch"] for c in step.calls) == [[0], [1], [2]]

    provider.close()
    replay = execute_run(create_replay(source).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(source, replay).verdict == "identical"
    assert {c["cache_source"] for c in replay.nodes.get(name="fetch").calls} == {"tool-cache"}


def test_outside_a_step_a_pool_is_left_alone():
    from runs.engine.calls import capture

    capture.install()
    seen = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(lambda: seen.append(capture.current())).result()
    assert seen == [None]


async def _ask_later(client: httpx.AsyncClient, url: str, question: str) -> str:
    await asyncio.sleep(random.uniform(0, 0.03))  # deliberately shuffled
    body = {"model": "rewind-sim-1", "messages": [{"role": "user", "content": question}]}
    reply = await client.post(url, json=body)
    return reply.json()["choices"][0]["message"]["content"]


@action(reads=[], writes=["answers"])
async def gather(state: State) -> State:
    import os

    url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
    async with httpx.AsyncClient(timeout=5) as client:
        answers = await asyncio.gather(
            *(_ask_later(client, url, q) for q in ("one?", "two?", "three?"))
        )
    return state.update(answers=list(answers))


def gather_application():
    return ApplicationBuilder().with_actions(gather=gather).with_entrypoint("gather").build()


def test_calls_from_asyncio_gather_are_the_steps_and_replay_identical(provider, rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "gather": "runs.tests.engine.calls.test_capture_threads.gather_application",
    }
    registry._load.cache_clear()
    source = execute_run(create_run("gather", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    step = source.nodes.get(name="gather")
    assert step.kind == "llm" and len(step.calls) == 3 and step.total_tokens > 0

    provider.close()
    for _ in range(3):
        replay = execute_run(create_replay(source).pk)
        assert replay_verdict(source, replay).verdict == "identical", replay.error
