from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Node

pytestmark = pytest.mark.django_db


def stability(*args: str) -> dict:
    out = io.StringIO()
    call_command("rewind_stability", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_temperature_zero_gives_one_hash_per_step(research_run):
    result = stability(str(research_run.pk), "--node", "critique", "-k", "3")

    assert len(result["replays"]) == 3
    assert {s["name"] for s in result["steps"]} == {
        "critique",
        "revise",
        "compose",
        "verify",
        "publish",
    }
    assert all(s["distinct"] == 1 and s["same_as_source"] == 3 for s in result["steps"])
    # live mode: the llm steps really went to the provider
    assert Node.objects.filter(
        run_id__in=result["replays"], cache_source="live", kind="llm"
    ).exists()


def test_jitter_above_zero_shows_several_hashes(rewind_settings):
    run = execute_run(create_run("research", temperature="0.9").pk)
    result = stability(str(run.pk), "--node", "compose", "-k", "4")

    compose = next(s for s in result["steps"] if s["name"] == "compose")
    assert compose["distinct"] > 1


def test_k_out_of_range_is_refused(research_run):
    with pytest.raises(CommandError, match="-k must be between 1 and 50"):
        stability(str(research_run.pk), "-k", "0")


def test_the_replays_are_recorded_as_the_runs_samples(research_run):
    from runs.models import Run

    result = stability(str(research_run.pk), "--node", "critique", "-k", "2")

    samples = Run.objects.filter(sample_of=research_run).order_by("pk")
    assert [s.pk for s in samples] == result["replays"]
    assert all(s.mode == Run.Mode.LIVE and s.fork_node == "critique" for s in samples)
    research_run.refresh_from_db()
    assert research_run.sample_count == 2


def test_a_refused_k_records_no_sample(research_run):
    with pytest.raises(CommandError):
        stability(str(research_run.pk), "-k", "51")
    research_run.refresh_from_db()
    assert research_run.sample_count == 0
