"""A regression replay's verdicts on planted truth (issue 32), in-process.

The "new code" is ``runs/tests/helpers/regressed_research.py``: the demo pipeline with the
``analyse`` tool's function replaced, registered under the same name once the runs are
recorded. What flips, what fails its check and what is noise is decided there, per region,
before anything runs:

- ``west``: ``best_group`` becomes "Z", which fails the outcome's ``one_of(A, B, C)``: a
  regression, beyond noise (the new code always says Z);
- ``north``: ``best_group`` becomes east's: a flip (it differs from north's own), still passing;
- ``south``: the first call after the change says east's group, every later one south's own
  again — a flip the new code's own samples do not repeat: within noise;
- ``east`` and ``all``: untouched.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
from django.conf import settings

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.analysis.batches.junit import junit_xml
from runs.engine.analysis.batches.regression import regression_result
from runs.engine.analysis.batches.suite import build_suite
from runs.engine.analysis.batches.wilson import wilson
from runs.engine.analysis.export.files import write_export
from runs.engine.apps import registry
from runs.engine.execution.runner import execute_run
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Node, Run
from runs.pipelines import analysis
from runs.tests.helpers import regressed_research
from runs.tests.helpers.exported_tests import run_pytest

pytestmark = pytest.mark.django_db

REGIONS = ("all", "east", "north", "south", "west")
ORIGINAL = analysis.analyse


def best_group(region: str) -> str:
    return ORIGINAL(Path(settings.REWIND_DATA_DIR) / "outreach.csv", region=region)["best_group"]


@pytest.fixture
def recorded(run_pipeline) -> list[Run]:
    runs = [run_pipeline("research", {"region": region}) for region in REGIONS]
    assert {r.status for r in runs} == {Run.Status.COMPLETED}
    return runs


@pytest.fixture
def new_code(settings):
    """The code as it is now: the changed pipeline, registered as ``research``."""
    regressed_research.CALLS.clear()
    settings.REWIND_PIPELINES = {
        **settings.REWIND_PIPELINES,
        "research": "runs.tests.helpers.regressed_research.pipeline",
    }
    registry._load.cache_clear()
    yield regressed_research.CALLS
    registry._load.cache_clear()


def regress(runs: list[Run], samples: int = 0):
    request = RegressionRequest(Selection(runs=tuple(r.pk for r in runs)), samples=samples)
    batch = make_batch(plan_regression(request))
    for pk in batch_run_ids(batch):  # each source's re-run, then its samples
        execute_run(pk)
    return regression_result(batch)


def test_unchanged_code_spends_nothing_and_finds_nothing(recorded):
    result = regress(recorded)

    data = result.as_json()
    assert [r["source"] for r in data["runs"]] == [r.pk for r in recorded]
    for run in data["runs"]:
        assert run["status"] == "completed" and run["total_tokens"] == 0
        assert run["first_divergence"] is None and run["code_changed"] == []
        assert [o["flipped"] for o in run["outcomes"]] == [False]
    assert data["regressions"] == 0 and result.failures("diverge") == []
    # Every step re-executed (none inherited), every llm call from the cache.
    steps = Node.objects.filter(run_id__in=[r["run"] for r in data["runs"]])
    assert not steps.filter(cache_source=Node.CacheSource.INHERITED).exists()
    assert not steps.filter(kind=Node.Kind.LLM).exclude(cache_source="cache").exists()


def test_a_change_is_reported_where_it_starts_and_only_what_it_alters_costs(recorded, new_code):
    north_changes = best_group("north") != best_group("east")
    assert north_changes and best_group("south") != best_group("east")  # the data plants it

    result = regress(recorded)

    by_region = {r.inputs["region"]: run for r, run in zip(recorded, result.runs, strict=True)}
    for region, run in by_region.items():
        data = run.as_json()
        (outcome,) = data["outcomes"]
        touched = region in ("west", "north", "south")
        assert outcome["flipped"] is touched, region
        assert (data["first_divergence"] or {}).get("node") == ("analyse" if touched else None)
        assert data["code_changed"] == ["analyse", "verify", "publish"]  # in every run
        steps = list(Node.objects.filter(run_id=run.run).order_by("sequence_id"))
        before = [s for s in steps if s.sequence_id < 2]  # plan, research: the cache's
        assert [s.name for s in before] == ["plan", "research"]
        assert {s.total_tokens for s in before} == {0}
        assert (data["total_tokens"] > 0) is touched, region  # critique… asked again
    west = by_region["west"].as_json()["outcomes"][0]
    assert (west["before"], west["after"]) == (best_group("west"), "Z")
    assert (west["passed_before"], west["passed_after"]) == (True, False)
    assert result.regressions == 1
    (summary,) = result.as_json()["outcomes"]
    low, high = wilson(3, 5)
    assert summary["flipped"] == 3 and summary["of"] == 5 and summary["regressed"] == 1
    assert (summary["low"], summary["high"]) == (round(low, 6), round(high, 6))
    # The gates: regress names west alone; flip the three; diverge the three too.
    assert [r.source.row.source.inputs["region"] for r, _ in result.failures("regress")] == ["west"]
    assert len(result.failures("flip")) == 3 and len(result.failures("diverge")) == 3


def test_samples_of_the_new_code_tell_a_change_from_its_jitter(recorded, new_code):
    result = regress(recorded, samples=2)

    verdicts = {
        source.row.source.inputs["region"]: source.outcomes[0].verdict
        for source in result.result.sources
    }
    assert verdicts["west"] == "beyond-noise"  # Z every time
    assert verdicts["north"] == "beyond-noise"  # east's group every time
    assert verdicts["south"] == "within-noise"  # its samples gave south's own again
    assert verdicts["east"] == verdicts["all"] == "within-noise"  # unchanged
    # The samples are live re-runs with the new code, never the source's own samples (they
    # would judge the next batch's noise by code that was not the recorded one).
    sample_ids = [pk for s in result.result.sources for pk in s.row.samples]
    samples = Run.objects.filter(pk__in=sample_ids)
    assert samples.count() == 10
    assert {(s.mode, s.sample_of_id, bool(s.regression_code)) for s in samples} == {
        ("live", None, True)
    }
    assert {r.sample_count for r in Run.objects.filter(pk__in=[r.pk for r in recorded])} == {0}
    # Only a regression beyond noise fails the default gate; south's flip is jitter.
    assert [r.source.row.source.inputs["region"] for r, _ in result.failures("regress")] == ["west"]
    assert len(result.failures("flip")) == 2  # west and north; not south


def test_junit_names_each_failing_run_and_links_its_diff(recorded, new_code):
    result = regress(recorded)

    suite = ElementTree.fromstring(junit_xml(result, "regress", "https://rewind.example.com"))

    assert suite.get("tests") == "5" and suite.get("failures") == "1"
    assert suite.get("errors") == "0" and suite.get("skipped") == "0"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    west = next(r for r in result.runs if r.source.row.source.inputs["region"] == "west")
    failure = cases[f"run {west.source.row.source_id}"].find("failure")
    assert f'best_group: "{best_group("west")}" (pass) → "Z" (fail)' in failure.get("message")
    link = f"https://rewind.example.com/compare/{west.source.row.source_id}/{west.run}/"
    assert link in failure.text
    passing = [c for c in cases.values() if c.find("failure") is None]
    assert len(passing) == 4
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["regressions"] == "1" and props["code_version"] == result.batch.code_version


def test_a_run_the_new_code_breaks_fails_every_gate(recorded, new_code, monkeypatch):
    def broken(csv_path, **kwargs):
        raise ValueError("the new analyse is broken")

    monkeypatch.setattr(analysis, "analyse", broken)  # what the changed tool calls

    result = regress(recorded[:2])

    for gate in ("regress", "flip", "diverge"):
        failures = result.failures(gate)
        assert len(failures) == 2
        assert all("regression run failed" in problems[0] for _, problems in failures)
    suite = ElementTree.fromstring(junit_xml(result, "regress"))
    assert suite.get("errors") == "2" and suite.get("failures") == "0"
    assert "diff:" not in ElementTree.tostring(suite, encoding="unicode")  # no base URL set


def test_a_fork_among_the_runs_is_skipped_with_the_reason(recorded, run_fork):
    fork = run_fork(recorded[0], "analyse", "args.region", "east")

    result = regress([recorded[1], fork])

    skipped = result.runs[1]
    assert skipped.run is None and "is a fork of run" in skipped.source.row.error
    assert skipped.problems("regress") == []
    suite = ElementTree.fromstring(junit_xml(result, "regress"))
    assert suite.get("skipped") == "1"


def test_a_regression_replay_exports_as_a_suite_that_passes_offline(recorded, tmp_path):
    result = regress(recorded[:2])
    home = tmp_path / "home"
    home.mkdir()

    suite = build_suite(result.batch)
    out = tmp_path / "suite"
    write_export(suite, out)

    assert suite.tests == 2 and suite.skipped == 0
    text = (out / f"test_rewind_batch_{result.batch.pk}.py").read_text()
    assert f"Regression replay {result.batch.pk} re-ran the recorded runs" in text
    done = run_pytest(out, home, "-rs")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "2 passed" in done.stdout
