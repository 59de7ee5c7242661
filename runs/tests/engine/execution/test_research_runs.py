"""A fresh run of the demo ``research`` pipeline (DESIGN.md, the determinism rules), against the
offline simulator: eight hashed steps, an artifact and seven edges; Burr's state rows hold no
telemetry; a second identical run is served from the cache; a run is executed once, and the cache
hits it read are counted once, at its end.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from runs.engine.errors import RewindError
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.lib.hashing import content_sha256, trajectory_sha256
from runs.models import Edge, LLMCacheEntry, Node, Run
from runs.pipelines.research import ORDER
from runs.tests.helpers.research_runs import LLM_NODES, artifact_bytes, state_rows, step, steps

pytestmark = pytest.mark.django_db

FRAMEWORK_KEYS = {"__SEQUENCE_ID", "__PRIOR_STEP"}
HEX64 = re.compile(r"^[0-9a-f]{64}$")
RESEARCH_INPUTS = {"question", "region"}


# --- helpers --------------------------------------------------------------------------------


def all_keys(value: Any) -> list[str]:
    """Every dict key anywhere inside a JSON value."""
    if isinstance(value, dict):
        return [*value, *(k for v in value.values() for k in all_keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in all_keys(v)]
    return []


# --- a fresh run ----------------------------------------------------------------------------


def test_fresh_run_completes_with_eight_hashed_nodes_an_artifact_and_seven_edges(research_run):
    run = research_run
    nodes = steps(run)
    assert [n.name for n in nodes] == list(ORDER)
    assert [n.sequence_id for n in nodes] == list(range(8))
    for node in nodes:
        assert node.kind == ("llm" if node.name in LLM_NODES else "tool"), node.name
        assert node.status == Node.Status.COMPLETED
        assert node.cache_source == "live"
        assert HEX64.match(node.output_sha256), node.name
        assert node.output_sha256 == content_sha256(node.output), node.name
        assert node.src_run_id == run.pk and node.src_sequence_id == node.sequence_id
        if node.kind == "llm":
            assert node.total_tokens > 0 and node.prompt_tokens > 0, node.name
            assert node.total_tokens == node.prompt_tokens + node.completion_tokens
            assert node.model_requested == node.model_answered == "rewind-sim-1"
            assert node.prompt[0]["role"] == "system" and node.prompt[1]["role"] == "user"
            assert HEX64.match(node.cache_key)
        else:
            assert node.total_tokens == 0 and node.prompt_tokens == 0, node.name
            assert node.prompt is None
    assert run.provider["simulator"] is True
    assert run.trajectory_sha256 == trajectory_sha256([n.output_sha256 for n in nodes])
    path = Path(run.artifact_path)
    assert path.is_file() and path.name == f"{run.pk}.md"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == run.artifact_sha256
    assert path.read_text(encoding="utf-8") == step(run, "publish").output
    edges = list(Edge.objects.filter(run=run).order_by("sequence_id"))
    assert [(e.from_node, e.to_node) for e in edges] == list(zip(ORDER, ORDER[1:], strict=False))
    assert [e.sequence_id for e in edges] == list(range(1, 8))
    assert {e.condition for e in edges} == {"default"}


def test_burr_state_holds_no_telemetry_and_only_inputs_and_executed_nodes(research_run, tmp_path):
    rows = state_rows(research_run)
    assert sorted(rows) == list(range(8))
    nodes = {n.sequence_id: n for n in steps(research_run)}
    for sequence_id, row in rows.items():
        assert row.status == "completed" and row.position == ORDER[sequence_id]
        state = json.loads(row.state)
        assert {k for k in state if k.startswith("__")} <= FRAMEWORK_KEYS
        semantic = {k for k in state if not k.startswith("__")}
        assert semantic == RESEARCH_INPUTS | set(ORDER[: sequence_id + 1]), sequence_id
        # Rule 1: latency, tokens, costs, run ids never enter state, at any depth.
        for key in all_keys(state):
            low = key.lower()
            assert not any(
                word in low
                for word in ("latency", "token", "telemetry", "run_id", "elapsed", "timestamp")
            ), key
        assert not any("cost_usd" in k or "cost" == k for k in state), sorted(state)
        for text in ("latency_ms", "total_tokens", "cache_source", str(tmp_path)):
            assert text not in row.state
        # What a step produced is in state under its own name, equal to its node's output.
        assert state[ORDER[sequence_id]] == nodes[sequence_id].output


def test_second_identical_fresh_run_is_served_from_cache(research_run, run_pipeline):
    second = run_pipeline("research")
    assert second.status == Run.Status.COMPLETED, second.error
    assert second.parent_id is None and second.root_id == second.pk
    for node in steps(second):
        expected = {"cache"} if node.kind == "llm" else {"tool-cache", "render-cache"}
        assert node.cache_source in expected, node.name
        assert node.total_tokens == 0
    assert second.trajectory_sha256 == research_run.trajectory_sha256
    assert artifact_bytes(second) == artifact_bytes(research_run)


# --- executed once, its cache hits counted once ---------------------------------------------


def test_a_run_is_never_executed_twice(research_run):
    with pytest.raises(RewindError, match="not queued"):
        execute_run(research_run.pk)


def test_cache_hits_are_counted_once_at_the_end_of_a_run_not_per_step(research_run):
    """Issue 10: a step's own work carries no bookkeeping. The hit counts of what a replay
    read are added in one UPDATE per table at the end of the run, and no step beats the
    heartbeat (the heartbeat thread does)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    before = {e.pk: e.hit_count for e in LLMCacheEntry.objects.all()}
    replay = create_fork(research_run, "plan")
    with CaptureQueriesContext(connection) as queries:
        replay = execute_run(replay.pk)

    assert replay.status == Run.Status.COMPLETED, replay.error
    read = [n for n in steps(replay) if n.kind == "llm"]
    after = {e.pk: e.hit_count for e in LLMCacheEntry.objects.all()}
    for node in read:
        pk = int(node.cache_entries[0].removeprefix("llm:"))
        assert after[pk] == before[pk] + 1, node.name
    statements = [q["sql"] for q in queries.captured_queries]
    cache_updates = [s for s in statements if s.startswith("UPDATE") and "cacheentry" in s]
    assert len(cache_updates) == 2  # llm and tool entries, once each, for all 8 steps
    run_updates = [s for s in statements if s.startswith("UPDATE") and '"runs_run"' in s]
    assert len(run_updates) <= 2  # claim and finish, whatever the number of steps
