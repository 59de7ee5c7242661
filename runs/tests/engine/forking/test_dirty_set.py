"""The dirty set: which steps a fork re-executes live, predicted before anything runs."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from runs.engine.forking.forks import preview_fork, resolve_fork
from runs.models import Node, Run

pytestmark = pytest.mark.django_db


def plan_of(preview: dict) -> dict[str, str]:
    return {step["name"]: step["will_be"] for step in preview["steps"]}


def live_steps(run: Run) -> set[str]:
    return set(run.nodes.filter(cache_source="live").values_list("name", flat=True))


def test_an_argument_change_dirties_the_step_and_everything_that_reads_it(research_run, run_fork):
    preview = preview_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))

    assert preview["inherited"] == ["plan", "research"]
    assert plan_of(preview) == {
        "analyse": "live",
        "critique": "live",
        "revise": "live",
        "compose": "live",
        "verify": "live",
        "publish": "live",
    }
    parent_tokens = {n.name: n.total_tokens for n in research_run.nodes.all()}
    assert preview["projected_tokens"] == sum(
        parent_tokens[n] for n in ("critique", "revise", "compose")
    )
    # The prediction is what really happens.
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert live_steps(fork) == set(preview["live"])


def test_an_unchanged_fork_is_all_cache_at_zero_tokens(research_run):
    preview = preview_fork(resolve_fork(research_run, "revise"))

    assert plan_of(preview) == {
        "revise": "cache",
        "compose": "cache",
        "verify": "tool-cache",
        "publish": "render-cache",
    }
    assert preview["live"] == [] and preview["projected_tokens"] == 0


def test_an_output_override_is_served_by_the_override_and_dirties_only_its_readers(
    research_run, run_fork
):
    output = json.dumps({"issues": ["the sample is small"], "confidence": 0.5})
    preview = preview_fork(resolve_fork(research_run, "critique", "output", output))

    assert plan_of(preview) == {
        "critique": "override",
        "revise": "live",  # reads critique
        "compose": "live",  # reads revise
        "verify": "tool-cache",  # reads analyse only
        "publish": "live",  # reads compose
    }
    fork = run_fork(research_run, "critique", "output", output)
    assert live_steps(fork) == set(preview["live"])


def test_a_temperature_change_on_the_first_step_leaves_tools_that_do_not_read_it_cached(
    research_run,
):
    preview = preview_fork(resolve_fork(research_run, "plan", "temperature", "0.7"))

    steps = plan_of(preview)
    assert steps["plan"] == "live"
    assert steps["research"] == "tool-cache" and steps["analyse"] == "tool-cache"
    assert steps["critique"] == "live"  # its prompt embeds the plan's objective


def test_a_fork_of_a_fork_carries_its_parents_output_override(research_run, run_fork):
    output = json.dumps({"findings": ["B wins"], "recommendation": "adopt B"})
    parent = run_fork(research_run, "revise", "output", output)

    preview = preview_fork(resolve_fork(parent, "critique"))

    assert plan_of(preview)["revise"] == "override"
    assert preview["live"] == []
    replay = run_fork(parent, "critique")
    assert replay.trajectory_sha256 == parent.trajectory_sha256


def test_dry_run_prints_the_plan_and_writes_nothing(research_run):
    runs, nodes = Run.objects.count(), Node.objects.count()
    out = io.StringIO()
    call_command(
        "rewind_fork", str(research_run.pk), "--node", "analyse", "--set", "args.region=east",
        "--dry-run", "--json", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip

    preview = json.loads(out.getvalue())
    assert "analyse" in preview["live"]
    assert (Run.objects.count(), Node.objects.count()) == (runs, nodes)
