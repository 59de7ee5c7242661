"""A finished batch exported as a regression suite (issue 17, item 5): ``rewind_export --batch``
and the batch page's **Download regression suite**.

The suite is run for real, with plain ``pytest DIR`` in a subprocess with none of Rewind's
settings (``run_pytest`` of ``helpers/exported_tests.py``): one test per source run, every fork
replayed offline from the one fixture — it passes, then fails naming the run and the outcome
once the answer that run's ``best_group`` comes from is edited in the fixture.

The batch sets ``analyse``'s ``args.min_contacts`` in runs of three regions, so each fork's
``analyse`` reads its own tool answer (the region is in its arguments): editing one of them
changes one run's outcome and no other's. A fourth source failed before ``analyse``, so the
change cannot apply to it; its test is skipped with that reason.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.analysis.batches.suite import build_suite
from runs.engine.execution.runner import execute_run
from runs.engine.run_sets.batches import make_batch, plan_batch
from runs.engine.run_sets.requests import BatchRequest, Selection
from runs.models import Batch, Run
from runs.tests.helpers.exported_tests import export_error, fails, fixture_of, rewrite, run_pytest

pytestmark = pytest.mark.django_db


def made(runs: list[Run], *values: str, field: str = "args.min_contacts") -> Batch:
    request = BatchRequest(
        Selection(runs=tuple(r.pk for r in runs)), "analyse", field, values or ("2",)
    )
    return make_batch(plan_batch(request))


def executed(batch: Batch) -> Batch:
    for pk in batch_run_ids(batch):
        execute_run(pk)
    return batch


def export_batch(batch: Batch, out: Path) -> str:
    stdout = io.StringIO()
    call_command("rewind_export", "--batch", str(batch.pk), "--out", str(out), stdout=stdout)
    return stdout.getvalue()


def edit_best_group(data: dict[str, Any], fork: int) -> tuple[str, str]:
    """Change the ``best_group`` of the tool answer ``fork``'s ``analyse`` step read; the
    value it had and the one written. The answer must be read by that fork alone."""
    (step,) = [n for n in data["nodes"] if n["run_id"] == fork and n["name"] == "analyse"]
    (pin,) = step["cache_entries"]
    readers = [n["run_id"] for n in data["nodes"] if pin in (n["cache_entries"] or [])]
    assert readers == [fork], readers
    (entry,) = [e for e in data["tool_cache"] if f"tool:{e['id']}" == pin]
    was = entry["result"]["best_group"]
    other = next(g for g in sorted(entry["result"]["groups"]) if g != was)
    entry["result"]["best_group"] = other
    return was, other


@pytest.fixture
def sources(run_pipeline, run_row) -> list[Run]:
    """Three completed research runs of three regions, and one that failed before analyse."""
    runs = [run_pipeline("research", {"region": r}) for r in ("west", "east", "north")]
    assert {r.status for r in runs} == {Run.Status.COMPLETED}
    return [*runs, run_row(status=Run.Status.FAILED, error="plan: the model did not answer")]


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


# --- the suite runs offline: passes, then fails naming the run ---------------------------------


def test_the_suite_passes_offline_one_test_per_source_and_fails_naming_the_edited_run(
    sources, tmp_path, home
):
    batch = executed(made(sources))
    west, east, north, stopped = sources
    out = tmp_path / "suite"

    printed = export_batch(batch, out)

    name = f"rewind_batch_{batch.pk}"
    assert sorted(p.name for p in out.iterdir()) == [f"{name}.json", f"test_{name}.py"]
    assert (
        f"wrote {out / f'test_{name}.py'}" in printed and f"wrote {out / f'{name}.json'}" in printed
    )
    assert "4 test(s), one per source run: 3 asserting outcomes, 1 skipped" in printed
    _, data = fixture_of(out)
    forks = {row.source_id: row.fork_id for row in batch.sources.all()}
    # One fixture for the whole batch: every fork's steps, none of the sources' own.
    assert {n["run_id"] for n in data["nodes"]} == {forks[r.pk] for r in (west, east, north)}

    result = run_pytest(out, home, "-rs")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "3 passed, 1 skipped" in result.stdout, result.stdout
    (skipped,) = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert f"the change does not apply to run {stopped.pk}" in skipped

    path, data = fixture_of(out)
    fork = forks[north.pk]
    was, edited = edit_best_group(data, fork)
    assert Run.objects.get(pk=fork).nodes.get(name="analyse").output["best_group"] == was
    rewrite(path, data)

    output = fails(out, home)
    assert f"run {north.pk}: outcome best_group was {edited!r}, expected {was!r}" in output
    assert f"test_run_{north.pk} - " in output or f"test_run_{north.pk}\n" in output
    assert "1 failed, 2 passed, 1 skipped" in output
    for other in (west, east):
        assert f"run {other.pk}:" not in output


def test_each_value_of_a_batch_has_its_test_and_a_fork_that_failed_is_skipped(sources):
    west, east = sources[:2]
    batch = made([west, east], "2", "3")
    for row in batch.sources.order_by("position"):
        execute_run(row.fork_id)
    failed = batch.sources.get(source=east, value_index=1).fork
    Run.objects.filter(pk=failed.pk).update(status=Run.Status.FAILED, error="critique: boom")

    suite = build_suite(batch)

    source = suite.test_source
    compile(source, suite.test_name, "exec")  # the generated file loads
    for run in (west, east):
        for value in (1, 2):
            assert f"def test_run_{run.pk}_value_{value}(replayed: dict)" in source
    assert (suite.tests, suite.skipped) == (4, 1)
    assert f"fork {failed.pk} of run {east.pk} failed: critique: boom" in source
    # The failed fork is skipped, so the fixture does not carry it.
    assert failed.pk not in {r["id"] for r in suite.fixture["runs"]}
    assert '"check": {"one_of": ' in source or '"check": None' in source


# --- the command's errors: one line, nothing written ------------------------------------------


def test_an_unfinished_batch_is_refused_and_nothing_is_written(sources, tmp_path):
    batch = made(sources[:3])
    execute_run(batch.sources.order_by("position").first().fork_id)
    out = tmp_path / "suite"

    message = export_error("--batch", str(batch.pk), "--out", str(out))

    assert message == (
        f"batch {batch.pk} has not finished (1 of 3 runs done); export it once every run has "
        "finished"
    )
    assert not out.exists()


def test_bad_batch_arguments_are_one_line(sources, tmp_path):
    out = str(tmp_path / "suite")
    assert export_error("--batch", "x", "--out", out) == "batch ids are numbers, got 'x'"
    assert export_error("--batch", "999999", "--out", out) == "no batch 999999"
    message = export_error(str(sources[0].pk), "--batch", "1", "--out", out)
    assert message == "--batch exports a batch: name no RUN and no --against"
    assert export_error("--out", out) == "name the RUN to export (or --batch BATCH)"
    assert not Path(out).exists()


# --- the batch page's download ----------------------------------------------------------------


def test_anonymous_users_are_sent_to_sign_in(client, sources):
    batch = made(sources[:1])
    response = client.get(f"/batches/{batch.pk}/export/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_finished_batch_page_offers_the_suite_as_a_zip_of_the_commands_files(
    signed_in, sources, tmp_path
):
    batch = made(sources[:3])
    assert "Download regression suite" not in signed_in.get(f"/batches/{batch.pk}/").text
    assert signed_in.get(f"/batches/{batch.pk}/export/").status_code == 409
    executed(batch)

    page = signed_in.get(f"/batches/{batch.pk}/").text
    assert f'href="/batches/{batch.pk}/export/" download>Download regression suite</a>' in page

    response = signed_in.get(f"/batches/{batch.pk}/export/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    folder = f"rewind-batch-{batch.pk}"
    assert response["Content-Disposition"] == f'attachment; filename="{folder}.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    out = tmp_path / "suite"
    export_batch(batch, out)
    assert {name: archive.read(name) for name in archive.namelist()} == {
        f"{folder}/{path.name}": path.read_bytes() for path in out.iterdir()
    }
    assert sorted(archive.namelist()) == [
        f"{folder}/rewind_batch_{batch.pk}.json",
        f"{folder}/test_rewind_batch_{batch.pk}.py",
    ]
    assert json.loads(archive.read(f"{folder}/rewind_batch_{batch.pk}.json"))["batch"] == batch.pk
    assert signed_in.get("/batches/999999/export/").status_code == 404


def test_a_suite_whose_fixture_carries_a_value_masked_says_which_steps_will_not_replay():
    from runs.engine.analysis.batches.suite import _about
    from runs.models import Batch

    batch = Batch(pk=7, pipeline="research", node="plan", field="prompt", values=["x"])
    masked = ["run 12, step 0 (plan): its output"]
    about = _about(batch, masked)
    assert "Masked:" in about and "run 12, step 0 (plan)" in about
    assert "Masked:" not in _about(batch)
