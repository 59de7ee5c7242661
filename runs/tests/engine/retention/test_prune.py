"""``rewind_prune`` (issue 33, item 3): a history that stays bounded, and never broken.

Every case plants its truth first: which lineages are old (their rows' ``created_at`` moved back
by hand), what refers to what — and checks what is gone, what is kept, and that what is kept
still works: an unchanged replay of a kept run, made after the prune, is identical at 0 tokens,
reading the cache entries and blobs the prune left.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from runs.engine.execution.runner import execute_run
from runs.engine.retention import PruneRequest, plan_prune, prune
from runs.engine.run_sets.batches import make_batch, plan_batch
from runs.engine.run_sets.replays import replay_source
from runs.engine.run_sets.requests import BatchRequest, Selection
from runs.models import (
    Batch,
    Blob,
    BurrState,
    LLMCacheEntry,
    Node,
    Prune,
    Run,
    ToolCacheEntry,
)

pytestmark = pytest.mark.django_db


def age(runs: list[Run], days: float) -> None:
    """Make ``runs`` (and the cache entries their steps pinned) ``days`` old."""
    when = timezone.now() - timedelta(days=days)
    Run.objects.filter(pk__in=[r.pk for r in runs]).update(created_at=when)
    pins = [
        p
        for pins in Node.objects.filter(run__in=runs).values_list("cache_entries", flat=True)
        for p in pins or []
    ]
    llm = [int(p[4:]) for p in pins if p.startswith("llm:")]
    tool = [int(p[5:]) for p in pins if p.startswith("tool:")]
    LLMCacheEntry.objects.filter(pk__in=llm).update(created_at=when, last_hit_at=None)
    ToolCacheEntry.objects.filter(pk__in=tool).update(created_at=when, last_hit_at=None)


def lineage(root: Run) -> list[int]:
    return sorted(Run.objects.filter(root_id=root.pk).values_list("pk", flat=True))


def prune_json(*args: str) -> dict:
    out = io.StringIO()
    call_command("rewind_prune", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


@pytest.fixture
def history(run_pipeline, run_fork):
    """An old lineage (a run, a fork, an unchanged replay), an old lone run of another
    region, an old run whose lineage got a fork yesterday, and a new run."""
    old = run_pipeline("research", {"region": "west"})
    fork = run_fork(old, "analyse", "args.min_contacts", "2")
    replay = run_fork(old, "plan")
    lone = run_pipeline("research", {"region": "north"})
    revisited = run_pipeline("research", {"region": "south"})
    recent_fork = run_fork(revisited, "analyse", "args.min_contacts", "3")
    new = run_pipeline("research", {"region": "east"})
    age([old, fork, replay, lone, revisited], 40)
    age([recent_fork], 1)
    return {
        "old": old, "fork": fork, "replay": replay, "lone": lone,
        "revisited": revisited, "recent_fork": recent_fork, "new": new,
    }  # fmt: skip


def test_old_lineages_go_whole_and_what_remains_still_replays(history):
    before_blobs = Blob.objects.count()
    gone = [history[k].pk for k in ("old", "fork", "replay", "lone")]
    steps = Node.objects.filter(run_id__in=gone).count()
    states = BurrState.objects.filter(app_id__in=[str(pk) for pk in gone]).count()

    data = prune_json("--older-than", "30")

    kept = [history[k].pk for k in ("revisited", "recent_fork", "new")]
    assert not Run.objects.filter(pk__in=gone).exists()
    assert set(Run.objects.values_list("pk", flat=True)) == set(kept)
    assert not Node.objects.filter(run_id__in=gone).exists()
    assert not BurrState.objects.filter(app_id__in=[str(pk) for pk in gone]).exists()
    assert data["runs"] == 4 and data["lineages"] == 2 and data["prune"] is not None
    assert (data["steps"], data["states"]) == (steps, states) and steps > 0
    assert data["blobs"] > 0 and Blob.objects.count() == before_blobs - data["blobs"]
    # Nothing left refers to a blob or a cache entry that is gone ...
    for step in Node.objects.all():
        for blob in (step.inputs_blob_id, step.output_blob_id, step.prompt_blob_id):
            assert blob is None or Blob.objects.filter(pk=blob).exists()
        for pin in step.cache_entries or []:
            model = LLMCacheEntry if pin.startswith("llm:") else ToolCacheEntry
            assert model.objects.filter(pk=int(pin.split(":")[1])).exists(), pin
    for state in BurrState.objects.all():
        assert Blob.objects.filter(pk=state.state_blob_id).exists()
    # ... and a kept run replays identically, with nothing but what the prune left.
    for pk in kept:
        verdict = replay_source(Run.objects.get(pk=pk))
        assert verdict.verdict == "identical", verdict
    record = Prune.objects.get()
    assert (record.runs, record.lineages, record.finished_at is not None) == (4, 2, True)


def test_a_dry_run_counts_what_the_prune_removes_and_removes_nothing(history):
    runs, blobs = Run.objects.count(), Blob.objects.count()
    entries = LLMCacheEntry.objects.count() + ToolCacheEntry.objects.count()

    dry = prune_json("--older-than", "30", "--dry-run")

    assert (Run.objects.count(), Blob.objects.count()) == (runs, blobs)
    assert LLMCacheEntry.objects.count() + ToolCacheEntry.objects.count() == entries
    assert dry["prune"] is None and not Prune.objects.exists()
    real = prune_json("--older-than", "30")
    for field in ("runs", "lineages", "steps", "states", "cache_entries", "blobs", "blob_bytes"):
        assert dry[field] == real[field], field
    assert real["blobs"] == blobs - Blob.objects.count()
    after = LLMCacheEntry.objects.count() + ToolCacheEntry.objects.count()
    assert real["cache_entries"] == entries - after


def test_a_blob_or_an_entry_a_kept_run_shares_is_kept(run_pipeline):
    # Two runs with the same inputs: the same calls, the same states — shared rows.
    old = run_pipeline("research", {"region": "west"})
    twin = run_pipeline("research", {"region": "west"})
    age([old], 40)
    shared = set(Node.objects.filter(run=old).values_list("output_blob_id", flat=True))
    assert shared <= set(Node.objects.filter(run=twin).values_list("output_blob_id", flat=True))

    data = prune_json("--older-than", "30")

    assert data["runs"] == 1 and data["blobs"] == 0 and data["cache_entries"] == 0
    assert replay_source(twin).verdict == "identical"


def test_failed_outcomes_and_newer_batches_keep_their_lineages(run_pipeline, run_row):
    west, north, east = (run_pipeline("research", {"region": r}) for r in ("west", "north", "east"))
    # A run whose outcome failed: a completed run whose best_group is not one of A, B, C.
    failing = run_pipeline("research", {"region": "all"})
    Node.objects.filter(run=failing, name="analyse").update(output_blob=None)
    age([west, north, east, failing], 40)
    request = BatchRequest(Selection(runs=(north.pk,)), "analyse", "args.min_contacts", ("2",))
    batch = make_batch(plan_batch(request))  # made now: it keeps north's (old) lineage
    for fork in Run.objects.filter(parent=north):
        execute_run(fork.pk)
    age(list(Run.objects.filter(parent=north)), 40)
    old_batch = make_batch(plan_batch(BatchRequest(
        Selection(runs=(west.pk,)), "analyse", "args.min_contacts", ("3",)
    )))  # fmt: skip
    Batch.objects.filter(pk=old_batch.pk).update(created_at=timezone.now() - timedelta(days=40))
    Run.objects.filter(parent=west).update(
        created_at=timezone.now() - timedelta(days=40), status=Run.Status.CANCELLED
    )

    plan = plan_prune(PruneRequest(30, keep_outcome_failures=True))
    roots = {r for group in plan.groups for r in group}

    assert roots == {west.pk, east.pk}  # north: the new batch; failing: its outcome
    assert plan.batches == [old_batch.pk] and plan.kept == 2
    report, _ = prune(plan)
    assert not Batch.objects.filter(pk=old_batch.pk).exists()
    assert Batch.objects.filter(pk=batch.pk).exists()
    assert set(Run.objects.filter(parent__isnull=True).values_list("pk", flat=True)) == {
        north.pk, failing.pk
    }  # fmt: skip
    assert report.batches == 1 and report.lineages == 2


def test_a_lineage_forked_since_the_plan_is_kept(history, run_fork):
    plan = plan_prune(PruneRequest(30))
    late = run_fork(history["lone"], "analyse", "args.min_contacts", "2")  # after the plan

    report, _ = prune(plan)

    assert Run.objects.filter(pk__in=[history["lone"].pk, late.pk]).count() == 2
    assert report.lineages == 1  # the old lineage only
    assert replay_source(Run.objects.get(pk=late.pk)).verdict == "identical"


def test_a_sub_application_goes_with_the_run_that_spawned_it(run_row):
    spawner = run_row()
    child = run_row(spawned_by=spawner, spawned_sequence_id=0)
    young_spawner = run_row()
    young_child = run_row(spawned_by=young_spawner, spawned_sequence_id=0)
    old = timezone.now() - timedelta(days=40)
    Run.objects.filter(pk__in=[spawner.pk, child.pk, young_child.pk]).update(created_at=old)

    plan = plan_prune(PruneRequest(30))

    assert plan.groups == [sorted([spawner.pk, child.pk])]  # the young spawner keeps its child
    prune(plan)
    assert set(Run.objects.values_list("pk", flat=True)) == {young_spawner.pk, young_child.pk}


def test_running_runs_are_never_pruned(run_row):
    stuck = run_row(status=Run.Status.RUNNING)
    Run.objects.filter(pk=stuck.pk).update(created_at=timezone.now() - timedelta(days=400))
    assert plan_prune(PruneRequest(30)).groups == []


def test_bad_input_is_one_line_and_changes_nothing(history, settings):
    settings.REWIND_RETENTION_DAYS = None
    count = Run.objects.count()
    for args, said in [
        ((), "give --older-than DAYS"),
        (("--older-than", "-1"), "between 0 and"),
        (("--older-than", "1e9"), "between 0 and"),
    ]:
        with pytest.raises(CommandError) as caught:
            call_command("rewind_prune", *args, stdout=io.StringIO(), stderr=io.StringIO())
        assert said in str(caught.value), args
    assert Run.objects.count() == count and not Prune.objects.exists()
    settings.REWIND_RETENTION_DAYS = 30.0
    assert prune_json()["runs"] == 4  # the retention setting is the default age


def test_the_settings_page_says_what_the_last_prune_removed(history, signed_in):
    prune_json("--older-than", "30")

    page = signed_in.get("/settings/").content.decode()

    assert "History kept" in page and "in 2 lineages" in page
    assert "Nothing has been pruned" not in page
