"""A regression replay of N runs resolves its app once (issue 42, item 4): the pipeline is
looked up (``registry.get_pipeline``) and the app's version computed once for the whole replay,
planned and executed in this process, not once per run.

Counted inside the registry (``registry._load``, which every ``get_pipeline`` call goes
through, whoever imported it) and in ``versions.app_version`` (which ``check_version`` calls).
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.apps import registry, versions
from runs.engine.execution.runner import LoadedApp, execute_run
from runs.engine.run_sets import batches as making
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.management.commands import rewind_regress
from runs.models import Run

pytestmark = pytest.mark.django_db

N = 3


@pytest.fixture
def recorded(run_pipeline) -> list[Run]:
    runs = [run_pipeline("research", {"region": r}) for r in ("east", "west", "north")[:N]]
    assert {r.status for r in runs} == {Run.Status.COMPLETED}
    return runs


@pytest.fixture
def counted(monkeypatch) -> dict[str, int]:
    """Counts of pipeline look-ups and app-version computations while ``counting`` is on."""
    counts = {"lookups": 0, "versions": 0, "counting": 1}
    load, version = registry._load, versions.app_version

    def counting_load(name: str, dotted_path: str):
        counts["lookups"] += counts["counting"]
        return load(name, dotted_path)

    def counting_version(app, **kwargs):
        counts["versions"] += counts["counting"]
        return version(app, **kwargs)

    monkeypatch.setattr(registry, "_load", counting_load)
    monkeypatch.setattr(versions, "app_version", counting_version)
    monkeypatch.setattr(making, "app_version", counting_version)
    return counts


def test_planning_and_executing_n_runs_looks_the_app_up_once(recorded, counted):
    plan = plan_regression(RegressionRequest(Selection(runs=tuple(r.pk for r in recorded))))
    batch = make_batch(plan)
    loaded = LoadedApp(plan.pipeline, plan.app, batch.code_version)
    finished = [execute_run(pk, app=loaded) for pk in batch_run_ids(batch)]

    assert [r.status for r in finished] == [Run.Status.COMPLETED] * N
    assert counted["lookups"] == 1  # plan_regression's; the forks and the runs take its app
    assert counted["versions"] == 1  # the plan's; the runs' check trusts it


def test_a_run_given_another_version_still_checks_it(recorded, counted):
    """A caller's ``checked`` version vouches only for runs asked to run that version."""
    plan = plan_regression(RegressionRequest(Selection(runs=(recorded[0].pk,))))
    batch = make_batch(plan)
    (pk,) = batch_run_ids(batch)
    run = execute_run(pk, app=LoadedApp(plan.pipeline, plan.app, "another version"))

    assert run.status == Run.Status.COMPLETED, run.error
    assert counted["versions"] == 2  # the plan's, then the run's own check


def test_the_command_looks_the_app_up_once_for_the_replay(recorded, counted, monkeypatch):
    result = rewind_regress.regression_result

    def uncounted(batch, **kwargs):  # reading the finished runs' outcomes is not the replay
        counted["counting"] = 0
        return result(batch, **kwargs)

    monkeypatch.setattr(rewind_regress, "regression_result", uncounted)
    out = io.StringIO()
    call_command("rewind_regress", "--runs", *[str(r.pk) for r in recorded], "--json", stdout=out)

    data = json.loads(out.getvalue())
    assert [r["status"] for r in data["runs"]] == ["completed"] * N
    assert counted["lookups"] == 1
    assert counted["versions"] == 1
