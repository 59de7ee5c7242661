"""Issue 7, finding 11: the fork preview walks the cache the way the fork will. It is exact up
to the first real miss and says so; whenever it says the whole plan is exact, the steps it
names live are exactly the steps that then run live — over every node of the demo, several
overrides each, repeats (a value already tried), no-op values and forks of forks."""

from __future__ import annotations

import json

import pytest

from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork, find_node, preview_fork, resolve_fork
from runs.models import Node, Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db

REPORT = json.dumps({"title": "T", "summary": "S", "sections": ["one"]})
# (node, field, value as typed); None is an unchanged fork at that node.
CHANGES: list[tuple[str, str | None, str | None]] = [
    *((node, None, None) for node in ORDER),
    ("plan", "temperature", "0.4"),
    ("plan", "temperature", "0"),  # its current value: a no-op
    ("plan", "model", "rewind-sim-2"),
    ("plan", "prompt", "Question: which policy is cheapest?"),
    ("research", "args.region", "east"),
    ("analyse", "args.cost_scale", "2.5"),
    ("analyse", "args.cost_scale", "1"),  # "1" for 1.0: the same value
    ("analyse", "args.region", "west"),
    ("analyse", "args.min_contacts", "3"),
    ("critique", "output", json.dumps({"issues": ["small sample"], "confidence": 0.4})),
    ("critique", "temperature", "0.9"),
    ("revise", "prompt", "Recommend the cheapest policy."),
    ("compose", "output", REPORT),
    ("publish", "output", "# A hand-written report\n"),
]


def live_set(run: Run) -> set[str]:
    return set(run.nodes.filter(cache_source=Node.CacheSource.LIVE).values_list("name", flat=True))


def check(source: Run, node: str, field: str | None, value: str | None) -> tuple[dict, Run]:
    """Preview, then make the fork; an exact preview must name exactly what ran live."""
    preview = preview_fork(resolve_fork(source, node, field, value))
    fork = execute_run(create_fork(source, node, field, value).pk)
    assert fork.status == Run.Status.COMPLETED, (node, field, value, fork.error)
    if preview["exact"]:
        assert set(preview["live"]) == live_set(fork), (node, field, value, preview)
        planned = {s["sequence_id"]: s["will_be"] for s in preview["steps"]}
        ran = {
            n.sequence_id: n.cache_source
            for n in fork.nodes.exclude(cache_source=Node.CacheSource.INHERITED)
        }
        assert planned == ran, (node, field, value)
    return preview, fork


def test_an_exact_preview_names_exactly_the_steps_that_run_live(research_run):
    exact = 0
    for node, field, value in CHANGES:
        first, fork = check(research_run, node, field, value)
        # The same fork again: every key has been seen, so the walk reaches the end.
        again, _ = check(research_run, node, field, value)
        assert again["exact"] and again["live"] == [], (node, field, value, again)
        # A fork of that fork, unchanged, from the first step: the carried override is
        # applied again, so nothing is live and the preview knows it.
        carried, _ = check(fork, ORDER[0], None, None)
        assert carried["exact"] and carried["live"] == [], (node, field, value, carried)
        exact += first["exact"] + again["exact"] + carried["exact"]
    assert exact >= 2 * len(CHANGES)


def test_a_no_op_value_is_an_exact_all_cache_plan(research_run):
    preview = preview_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "1"))

    assert preview["exact"] and preview["first_miss"] is None
    assert preview["live"] == [] and preview["projected_tokens"] == 0


def test_after_the_first_miss_the_steps_are_labelled_expected(research_run):
    preview = preview_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "4"))

    assert not preview["exact"]
    assert preview["first_miss"] == {
        "name": "analyse",
        "sequence_id": find_node(research_run, "analyse").sequence_id,
        "outcome": "live",
    }
    exact = {s["name"]: s["exact"] for s in preview["steps"]}
    assert exact["analyse"] is True
    assert not any(exact[name] for name in ("critique", "revise", "compose", "verify", "publish"))


def test_a_hit_continues_the_walk_with_the_cached_output(research_run):
    """The over-prediction of the old preview: a value already tried re-runs nothing."""
    execute_run(create_fork(research_run, "analyse", "args.region", "north").pk)

    preview = preview_fork(resolve_fork(research_run, "analyse", "args.region", "north"))

    assert preview["exact"]
    assert {s["name"]: s["will_be"] for s in preview["steps"]}["critique"] == "cache"
    assert preview["live"] == []


def test_a_live_fork_preview_is_all_live(research_run):
    preview = preview_fork(resolve_fork(research_run, "revise", live=True))

    assert preview["live"] == ["revise", "compose", "verify", "publish"]
    fork = execute_run(create_fork(research_run, "revise", live=True).pk)
    assert live_set(fork) == set(preview["live"])


def test_the_preview_writes_nothing_and_touches_no_hit_count(research_run):
    from runs.models import BurrState, LLMCacheEntry, ToolCacheEntry

    execute_run(create_fork(research_run, "analyse", "args.region", "south").pk)
    tables = (Run, Node, BurrState, LLMCacheEntry, ToolCacheEntry)
    before = [m.objects.count() for m in tables]
    hits = sorted(LLMCacheEntry.objects.values_list("pk", "hit_count"))

    preview_fork(resolve_fork(research_run, "analyse", "args.region", "south"))

    assert [m.objects.count() for m in tables] == before
    assert sorted(LLMCacheEntry.objects.values_list("pk", "hit_count")) == hits
