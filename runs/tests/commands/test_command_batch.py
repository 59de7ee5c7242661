"""``rewind_batch``: one change over many recorded runs (issue 17, item 2).

The research runs are recorded with different ``region`` inputs; the change sets ``analyse``'s
``args.region`` to ``east``. Which runs flip their ``best_group`` the test knows from the data
(``analysis.analyse`` per region), not from the batch. The noise verdicts both ways come from
the ``meter`` Burr app below, whose one step's reading drifts by one each time it executes for
a case (a counter, so the draws are known, never random): a reading moved by a hundred is
beyond that drift, one moved by one is within it.
"""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.analysis.batches.wilson import wilson
from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Batch, BatchSource, Run
from runs.pipelines import analysis

pytestmark = pytest.mark.django_db

REGIONS = ("all", "east", "north", "south", "west")


def best_group(region: str) -> str:
    csv = Path(settings.REWIND_DATA_DIR) / "outreach.csv"
    return analysis.analyse(csv, region=region)["best_group"]


def batch(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("rewind_batch", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def batch_error(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("rewind_batch", *args, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert message and "\n" not in message
    return message


@pytest.fixture
def recorded(run_pipeline) -> list[Run]:
    """30 completed research runs, six per region."""
    runs = [run_pipeline("research", {"region": REGIONS[i % 5]}) for i in range(30)]
    assert {r.status for r in runs} == {Run.Status.COMPLETED}
    return runs


def test_a_batch_over_30_runs_flips_the_runs_the_data_says_with_samples_and_interval(recorded):
    after = best_group("east")
    expected = {r.pk: best_group(r.inputs["region"]) != after for r in recorded}
    assert 0 < sum(expected.values()) < 30  # the data gives a real subset

    data = batch(
        "--pipeline", "research", "--node", "analyse", "--set", "args.region=east",
        "--samples", "2",
    )  # fmt: skip

    assert set(data) >= {"batch", "sources", "summary"}
    sources = {s["run"]: s for s in data["sources"]}
    assert set(sources) == set(expected)  # every completed root run, nothing else
    for run in recorded:
        (outcome,) = sources[run.pk]["outcomes"]
        assert set(outcome) == {"name", "before", "after", "flipped", "verdict"}
        assert outcome["name"] == "best_group"
        assert outcome["before"] == best_group(run.inputs["region"])
        assert outcome["after"] == after
        assert outcome["flipped"] is expected[run.pk]
        # A deterministic tool's conclusion: every sample agreed with its source, so a flip
        # is the change (beyond-noise) and an unchanged value is the source's own (within).
        assert outcome["verdict"] == ("beyond-noise" if expected[run.pk] else "within-noise")
        assert len(sources[run.pk]["samples"]) == 2
    flips = sum(expected.values())
    (summary,) = data["summary"]
    low, high = wilson(flips, 30)
    assert summary == {
        "outcome": "best_group",
        "n": 30,
        "flipped": flips,
        "rate": round(flips / 30, 6),
        "low": round(low, 6),
        "high": round(high, 6),
        "beyond_noise": flips,
        "within_noise": 0,
    }
    stored = Batch.objects.get(pk=data["batch"])
    assert stored.sources.count() == 30 and stored.samples == 2
    # Each source's samples are ordinary stability samples of it: live, unchanged, finished.
    samples = Run.objects.filter(sample_of__in=recorded)
    assert samples.count() == 60
    assert {(s.mode, s.override, s.status) for s in samples} == {("live", None, "completed")}


def test_where_narrows_by_an_input_and_forks_are_ordinary_forks(recorded):
    data = batch(
        "--pipeline", "research", "--where", "input.region=west",
        "--node", "analyse", "--set", "args.min_contacts=2",
    )  # fmt: skip

    west = [r.pk for r in recorded if r.inputs["region"] == "west"]
    assert [s["run"] for s in data["sources"]] == west
    assert {s["outcomes"][0]["verdict"] for s in data["sources"]} == {"no-samples"}
    # The same source, step and override as rewind_fork: the same result.
    source = Run.objects.get(pk=west[0])
    fork = Run.objects.get(pk=data["sources"][0]["fork"])
    out = io.StringIO()
    call_command(
        "rewind_fork", str(source.pk), "--node", "analyse", "--set", "args.min_contacts=2",
        "--json", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    by_hand = Run.objects.get(pk=json.loads(out.getvalue())["run"])
    assert fork.parent_id == by_hand.parent_id == source.pk
    assert fork.override == by_hand.override
    assert fork.fork_sequence_id == by_hand.fork_sequence_id
    assert fork.trajectory_sha256 == by_hand.trajectory_sha256


def test_pipeline_selects_completed_root_runs_only(run_pipeline, run_fork):
    root = run_pipeline("research", {"region": "north"})
    run_fork(root, "analyse", "args.cost_scale", "2")  # a fork: not a source
    failed = Run.objects.create(pipeline="research", status=Run.Status.FAILED)

    data = batch("--pipeline", "research", "--node", "analyse", "--set", "args.region=east")

    assert [s["run"] for s in data["sources"]] == [root.pk]
    assert failed.pk not in {s["run"] for s in data["sources"]}


def test_explicit_runs_and_several_values(run_pipeline):
    a = run_pipeline("research", {"region": "west"})
    b = run_pipeline("research", {"region": "east"})

    data = batch(
        "--runs", str(a.pk), str(b.pk), "--node", "2", "--set", "args.region=east",
        "--values", "west",
    )  # fmt: skip

    rows = [(s["run"], s["value"], s["outcomes"][0]["flipped"]) for s in data["sources"]]
    assert rows == [(a.pk, "east", True), (a.pk, "west", False), (b.pk, "east", False),
                    (b.pk, "west", True)]  # fmt: skip
    assert [(s["value"], s["n"], s["flipped"]) for s in data["summary"]] == [
        ("east", 2, 1),
        ("west", 2, 1),
    ]


def test_a_source_the_change_cannot_apply_to_is_kept_with_the_reason(run_pipeline):
    good = run_pipeline("research", {"region": "west"})
    empty = Run.objects.create(pipeline="research", status=Run.Status.COMPLETED)  # no steps

    data = batch("--runs", str(good.pk), str(empty.pk), "--node", "analyse", "--set",
                 "args.region=east")  # fmt: skip

    ran, skipped = data["sources"]
    assert ran["status"] == "completed" and ran["outcomes"][0]["flipped"] is True
    assert skipped["fork"] is None and skipped["status"] == "skipped"
    assert skipped["error"].startswith(f"run {empty.pk} has no step 'analyse'")
    assert data["summary"][0]["n"] == 1  # a skipped source counts in no rate


def test_a_change_that_applies_to_no_source_is_refused_and_writes_nothing(run_pipeline):
    a = run_pipeline("research", {"region": "west"})
    message = batch_error("--runs", str(a.pk), "--node", "publish", "--set", "args.region=east")
    assert message.startswith("the change applies to none of the 1 run(s):")
    assert Batch.objects.count() == 0 and Run.objects.count() == 1


def test_bad_requests_are_one_line_and_write_nothing(research_run):
    before = Run.objects.count()
    assert "--runs or by --pipeline" in batch_error(
        "--node", "analyse", "--set", "args.region=east"
    )
    assert "input.NAME=VALUE" in batch_error(
        "--pipeline", "research", "--where", "region=east", "--node", "analyse",
        "--set", "args.region=east",
    )  # fmt: skip
    assert "FIELD=VALUE" in batch_error(
        "--pipeline", "research", "--node", "analyse", "--set", "east"
    )
    assert "no run matches" in batch_error(
        "--pipeline", "research", "--where", "input.region=nowhere", "--node", "analyse",
        "--set", "args.region=east",
    )  # fmt: skip
    assert "--samples must be between" in batch_error(
        "--pipeline", "research", "--node", "analyse", "--set", "args.region=east",
        "--samples", "99",
    )  # fmt: skip
    assert "no run 99999" == batch_error(
        "--runs", "99999", "--node", "analyse", "--set", "args.region=east"
    )
    assert batch_error(
        "--pipeline", "nope", "--node", "analyse", "--set", "args.region=east"
    ).startswith("unknown pipeline 'nope'")
    assert Run.objects.count() == before and Batch.objects.count() == 0


def test_enqueue_prints_the_queued_batch(research_run, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        data = batch(
            "--runs", str(research_run.pk), "--node", "analyse", "--set", "args.region=east",
            "--enqueue",
        )  # fmt: skip
    (source,) = data["sources"]
    assert source["status"] == "queued" and data["finished"] is False
    assert source["outcomes"][0]["flipped"] is None
    assert len(callbacks) == 1  # the fork, enqueued once its rows commit


# --- noise verdicts both ways: the ``meter`` app -------------------------------------------------

DRAWS: dict[str, int] = {}  # case → how many times ``measure`` executed for it


@action(reads=[], writes=["reading"])
def measure(state: State, case: str, x: int) -> State:
    """Reads x × 100, plus how many times it executed for ``case`` before: a drift of one per
    execution (the source draws 0, its samples and its fork 1, 2, 3 in whatever order)."""
    if case.startswith("broken"):
        raise RuntimeError("the meter is broken")
    drift = DRAWS.get(case, 0)
    DRAWS[case] = drift + 1
    return state.update(reading=int(x) * 100 + drift)


@action(reads=["reading"], writes=["done"])
def report(state: State) -> State:
    return state.update(done=True)


def meter_application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(measure=measure, report=report)
        .with_transitions(("measure", "report"))
        .with_state(reading=0)
        .with_entrypoint("measure")
        .build()
    )


@pytest.fixture
def meter(rewind_settings):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "meter": f"{__name__}.meter_application",
    }
    rewind_settings.REWIND_OUTCOMES = {"meter": [{"name": "reading", "path": "measure.reading"}]}
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def test_flips_are_judged_against_each_source_s_own_samples_both_ways(meter):
    sources = []
    for x in (1, 2, 1, 2):
        run = execute_run(create_run("meter", {"case": uuid.uuid4().hex, "x": str(x)}).pk)
        assert run.status == Run.Status.COMPLETED, run.error
        sources.append(run)

    data = batch(
        "--runs", *[str(s.pk) for s in sources], "--node", "measure", "--set", "input.x=2",
        "--samples", "2",
    )  # fmt: skip

    verdicts = {s["run"]: s["outcomes"][0] for s in data["sources"]}
    for source, x in zip(sources, (1, 2, 1, 2), strict=True):
        outcome = verdicts[source.pk]
        assert outcome["before"] == x * 100 and outcome["flipped"] is True
        # The samples read x*100 + {1, 2} (or 3): a reading of 200-odd from 100 is beyond
        # that drift; 200 + one more draw, from 200, is within it.
        assert outcome["verdict"] == ("beyond-noise" if x == 1 else "within-noise"), outcome
        assert 200 < outcome["after"] <= 203
    (summary,) = data["summary"]
    assert (summary["n"], summary["flipped"]) == (4, 4)
    assert (summary["beyond_noise"], summary["within_noise"]) == (2, 2)


def test_without_samples_every_flip_is_no_samples(meter):
    run = execute_run(create_run("meter", {"case": uuid.uuid4().hex, "x": "1"}).pk)
    data = batch("--runs", str(run.pk), "--node", "measure", "--set", "input.x=3")
    assert data["sources"][0]["outcomes"][0] == {
        "name": "reading", "before": 100, "after": 301, "flipped": True, "verdict": "no-samples",
    }  # fmt: skip
    assert BatchSource.objects.get().samples == []


# --- a Burr app's runs, selected and judged as a declared pipeline's are (issue 30, item 4) -----


def test_where_selects_burr_runs_by_their_runtime_inputs(meter):
    runs = {
        x: [execute_run(create_run("meter", {"case": uuid.uuid4().hex, "x": x}).pk) for _ in "ab"]
        for x in ("1", "2")
    }
    data = batch("--pipeline", "meter", "--where", "input.x=2", "--node", "measure",
                 "--set", "input.x=3")  # fmt: skip
    assert sorted(s["run"] for s in data["sources"]) == sorted(r.pk for r in runs["2"])
    assert data["selection"] == {"pipeline": "meter", "where": {"x": "2"}}
    # Typed as the app reads it (an int): the text and the number both match.
    assert batch_error("--pipeline", "meter", "--where", "input.x=7", "--node", "measure",
                       "--set", "input.x=3") == (
        "no run matches: completed runs of meter where input.x = '7'"
    )  # fmt: skip


def test_a_batch_without_samples_uses_the_samples_its_sources_already_have(meter):
    run = execute_run(create_run("meter", {"case": uuid.uuid4().hex, "x": "1"}).pk)
    call_command("rewind_stability", str(run.pk), "-k", "2", stdout=io.StringIO())
    assert Run.objects.filter(sample_of=run, status=Run.Status.COMPLETED).count() == 2

    data = batch("--runs", str(run.pk), "--node", "measure", "--set", "input.x=3")
    (outcome,) = data["sources"][0]["outcomes"]
    # Its samples read 101 and 102: 303 is far beyond that drift.
    assert outcome["flipped"] is True and outcome["verdict"] == "beyond-noise", outcome
    assert data["sources"][0]["samples"] == []  # none made by the batch


def test_a_failed_source_run_is_named_failed(meter):
    good = execute_run(create_run("meter", {"case": uuid.uuid4().hex, "x": "1"}).pk)
    bad = execute_run(create_run("meter", {"case": "broken-" + uuid.uuid4().hex, "x": "1"}).pk)
    assert bad.status == Run.Status.FAILED

    data = batch("--runs", str(good.pk), str(bad.pk), "--node", "measure", "--set", "input.x=3")
    failed = next(s for s in data["sources"] if s["run"] == bad.pk)
    assert failed["fork"] is None
    assert failed["error"].startswith(f"run {bad.pk} failed: ")
    assert "the meter is broken" in failed["error"]
