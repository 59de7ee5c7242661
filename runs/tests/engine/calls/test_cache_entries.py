"""The cache keeps an entry per answer: the same call twice in one run (the ``loop`` pipeline of
``helpers/pipelines.py``) is stored per occurrence and replayed in that order, an override of one
occurrence leaves the other's call alone; a different answer to the same call is kept beside the
first, and a lookup reads the pinned entry or the first.
"""

from __future__ import annotations

import json

import pytest

from runs.engine.calls import cache
from runs.engine.calls.keys import llm_cache_key
from runs.models import Edge, LLMCacheEntry, Run
from runs.tests.helpers.research_runs import step, steps

pytestmark = pytest.mark.django_db


# --- the same call twice in one run ---------------------------------------------------------


@pytest.fixture
def loop_pipeline(rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "loop": "runs.tests.helpers.pipelines.loop",
    }
    return "loop"


def test_the_same_call_twice_in_one_run_is_stored_per_occurrence(loop_pipeline, run_pipeline):
    run = run_pipeline(loop_pipeline, temperature="0.9")
    assert run.status == Run.Status.COMPLETED, run.error
    nodes = steps(run)
    assert [n.name for n in nodes] == ["ask", "tick", "ask", "tick", "done"]
    edges = list(Edge.objects.filter(run=run).order_by("sequence_id"))
    assert [(e.from_node, e.to_node, e.condition) for e in edges] == [
        ("ask", "tick", "default"),
        ("tick", "ask", "tick < 2"),
        ("ask", "tick", "default"),
        ("tick", "done", "default"),
    ]
    first, second = nodes[0], nodes[2]
    assert first.cache_key == second.cache_key
    assert first.cache_source == second.cache_source == "live"
    assert second.cache_note == "same request, new occurrence in this run"
    entries = LLMCacheEntry.objects.filter(key=first.cache_key).order_by("occurrence")
    assert [e.occurrence for e in entries] == [0, 1]
    assert [json.loads(e.response["content"]) for e in entries] == [first.output, second.output]


def test_a_replay_gives_back_the_first_answer_first_and_the_second_second(
    loop_pipeline, run_pipeline, run_fork
):
    parent = run_pipeline(loop_pipeline, temperature="0.9")
    first, second = step(parent, "ask"), steps(parent)[2]
    assert first.output != second.output  # jitter at temperature 0.9
    replay = run_fork(parent, "ask")
    assert replay.status == Run.Status.COMPLETED, replay.error
    asks = [n for n in steps(replay) if n.name == "ask"]
    assert [n.cache_source for n in asks] == ["cache", "cache"]
    assert [n.output for n in asks] == [first.output, second.output]
    assert replay.trajectory_sha256 == parent.trajectory_sha256
    # Forking the second occurrence counts the inherited first one: it gets answer #2.
    at_second = run_fork(parent, "ask#2")
    assert at_second.fork_sequence_id == 2
    assert [n.cache_source for n in steps(at_second)] == [
        "inherited",
        "inherited",
        "cache",
        "tool-cache",
        "render-cache",
    ]
    assert steps(at_second)[2].output == second.output
    assert at_second.trajectory_sha256 == parent.trajectory_sha256


@pytest.mark.parametrize(
    ("field", "value"),
    [("output", '{"answer": "overridden", "points": []}'), ("prompt", "Topic: wave power.")],
)
def test_an_override_changes_only_the_forked_step_of_a_loop(
    loop_pipeline, run_pipeline, run_fork, field, value
):
    parent = run_pipeline(loop_pipeline)
    fork = run_fork(parent, "ask", field, value)  # the first occurrence, sequence id 0
    assert fork.status == Run.Status.COMPLETED, fork.error
    first, second = (n for n in steps(fork) if n.name == "ask")
    assert first.cache_source in {"override", "live"}
    # The second occurrence reads nothing the override changed: it is the parent's call.
    assert second.cache_source == "cache"
    assert second.prompt == steps(parent)[2].prompt
    assert second.output_sha256 == steps(parent)[2].output_sha256


# --- an entry per answer --------------------------------------------------------------------


def test_cache_entries_are_per_answer_and_a_lookup_reads_the_pinned_or_the_first():
    key = llm_cache_key({"model": "m", "messages": [{"role": "user", "content": "q"}]})
    fields = {
        "node_name": "ask",
        "model_requested": "m",
        "model_answered": "m",
        "request": {"model": "m"},
        "usage": {},
    }
    first = cache.put_llm(key=key, occurrence=0, response={"content": "first"}, **fields)
    assert cache.get_llm(key, 1) is None
    assert cache.get_llm(key, 0).response == {"content": "first"}
    later = cache.put_llm(key=key, occurrence=0, response={"content": "a later answer"}, **fields)
    again = cache.put_llm(key=key, occurrence=0, response={"content": "first"}, **fields)
    cache.put_llm(key=key, occurrence=1, response={"content": "second"}, **fields)
    assert again.pk == first.pk  # the same answer is one entry
    assert later.pk != first.pk  # a different one is kept beside it, never over it
    assert cache.get_llm(key, 0).response == {"content": "first"}
    assert cache.get_llm(key, 0, pinned=later).response == {"content": "a later answer"}
    assert cache.get_llm(key, 1, pinned=later).response == {"content": "second"}  # not this call's
    assert cache.get_llm(key, 1).response == {"content": "second"}
    assert LLMCacheEntry.objects.filter(key=key).count() == 3
    # A read writes nothing: a run counts its hits once, at its end (cache.count_hits).
    assert LLMCacheEntry.objects.get(pk=first.pk).hit_count == 0
