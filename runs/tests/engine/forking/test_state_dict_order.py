"""A fork hands the app its state as the app built it, dict order included (issue 40, item 6).

State, inputs and outputs are stored in the order the app's dicts held them (canonical JSON
is for hashes only), so a forked step that builds its prompt by iterating a dict asks what
the recorded step asked: its call is answered from the cache, and the fork is identical.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.lib.hashing import canonical_json, content_sha256
from runs.models import Blob, BurrState, Node, Run
from runs.tests.helpers.dict_order_apps import FACTS, key_order

APP = "dict_order"


@pytest.fixture
def app(rewind_settings, serve_simulator, monkeypatch, db) -> Iterator:
    simulator = serve_simulator()
    monkeypatch.setenv("OPENAI_BASE_URL", rewind_settings.REWIND_LLM_BASE_URL)
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        APP: "runs.tests.helpers.dict_order_apps.application",
    }
    registry._load.cache_clear()
    yield simulator
    registry._load.cache_clear()


def recorded() -> Run:
    run = execute_run(create_run(APP, {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def test_a_fork_reads_its_state_in_the_order_the_app_built_it_and_hits_the_cache(app):
    source = recorded()
    assert len(app.requests) == 1
    asked = source.nodes.get(name="ask")
    assert asked.cache_source == "live" and asked.output["seen"] == key_order(FACTS)

    # The state row of ``gather`` keeps the app's order, nested dicts too.
    row = BurrState.objects.get(app_id=str(source.pk), sequence_id=0)
    assert key_order(json.loads(row.state)["facts"]) == key_order(FACTS)

    fork = execute_run(create_fork(source, "ask").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    step = fork.nodes.get(name="ask")
    assert step.output["seen"] == key_order(FACTS), "the forked step read another dict order"
    assert (step.cache_source, step.total_tokens) == ("cache", 0), step.calls
    assert len(app.requests) == 1, "the fork's call went out to the provider"
    assert step.prompt == asked.prompt
    assert replay_verdict(source, fork).verdict == "identical"


def test_an_unchanged_replay_shares_its_parents_blobs(app):
    source = recorded()
    replay = execute_run(create_replay(source).pk)
    assert replay_verdict(source, replay).verdict == "identical"
    assert len(app.requests) == 1

    def blobs(run: Run) -> list[tuple]:
        steps = run.nodes.order_by("sequence_id")
        return list(steps.values_list("inputs_blob_id", "output_blob_id", "prompt_blob_id"))

    def states(run: Run) -> list[str]:
        rows = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
        return list(rows.values_list("state_blob_id", flat=True))

    assert blobs(replay) == blobs(source)
    assert states(replay) == states(source)


def test_values_differing_only_in_order_are_two_blobs_with_one_output_hash(db):
    ordered = {"zeta": 1, "alpha": {"yankee": 2, "bravo": 3}}
    sorted_ = {"alpha": {"bravo": 3, "yankee": 2}, "zeta": 1}
    first, second = Node(output=ordered), Node(output=sorted_)
    assert first.output_blob_id != second.output_blob_id
    assert content_sha256(ordered) == content_sha256(sorted_)
    for node in (first, second):
        new = node.take_new_blobs()
        Blob.objects.store(new)
        # Each blob is stored under the sha256 of its own text, and reads back in its order.
        ((sha, text),) = new.items()
        assert sha == Blob.key(text) == node.output_blob_id
    for node, value in ((first, ordered), (second, sorted_)):
        body = Blob.objects.get(pk=node.output_blob_id).body
        assert key_order(json.loads(body)) == key_order(value)
    # A row stored before (canonical text under its own hash) reads back as it is.
    assert second.output_blob_id == Blob.key(canonical_json(sorted_))
