"""What tests of the demo ``research`` pipeline's runs read them with: its steps in order, one
step by name, Burr's state rows, the artifact's bytes, and ``assert_unchanged_replay`` (DESIGN.md,
Forking: every re-executed step a cache hit, every hash, the artifact and the state rows
identical). Used by ``engine/execution/test_research_runs.py``,
``engine/forking/test_research_forks.py``, ``engine/calls/test_cache_entries.py`` and
``engine/providers/test_provider_faults_in_a_run.py``.
"""

from __future__ import annotations

from pathlib import Path

from runs.engine.execution.persister import PARTITION_KEY
from runs.models import BurrState, Node, Run

LLM_NODES = {"plan", "critique", "revise", "compose"}
TOOL_NODES = {"research", "analyse", "verify", "publish"}


def steps(run: Run) -> list[Node]:
    return list(Node.objects.filter(run=run).order_by("sequence_id"))


def step(run: Run, name: str) -> Node:
    return Node.objects.filter(run=run, name=name).order_by("sequence_id").first()


def state_rows(run: Run) -> dict[int, BurrState]:
    rows = BurrState.objects.filter(partition_key=PARTITION_KEY, app_id=str(run.pk))
    return {row.sequence_id: row for row in rows.order_by("sequence_id")}


def artifact_bytes(run: Run) -> bytes:
    return Path(run.artifact_path).read_bytes()


def assert_unchanged_replay(parent: Run, fork: Run) -> None:
    """DESIGN.md, Forking: every re-executed step a cache hit, 0 tokens, every output hash,
    the trajectory hash and the artifact bytes identical, and Burr's state rows byte-identical."""
    assert fork.status == Run.Status.COMPLETED, fork.error
    ran = [n for n in steps(fork) if n.cache_source != Node.CacheSource.INHERITED]
    assert ran, "an unchanged replay re-executes at least the fork node"
    for node in ran:
        expected = {"cache"} if node.kind == "llm" else {"tool-cache", "render-cache"}
        assert node.cache_source in expected, (node.name, node.cache_source, node.cache_note)
        assert node.total_tokens == 0 and node.cost_usd == 0, node.name
        assert node.src_run_id == fork.pk
    assert step(fork, "publish").cache_source == "render-cache"
    assert [n.output_sha256 for n in steps(fork)] == [n.output_sha256 for n in steps(parent)]
    assert fork.trajectory_sha256 == parent.trajectory_sha256
    assert fork.artifact_sha256 == parent.artifact_sha256
    assert fork.artifact_path != parent.artifact_path  # the fork writes its own file
    assert artifact_bytes(fork) == artifact_bytes(parent)
    parent_rows, fork_rows = state_rows(parent), state_rows(fork)
    assert sorted(fork_rows) == [n.sequence_id for n in ran]
    for sequence_id, row in fork_rows.items():
        assert row.state == parent_rows[sequence_id].state, sequence_id
        assert row.position == parent_rows[sequence_id].position
