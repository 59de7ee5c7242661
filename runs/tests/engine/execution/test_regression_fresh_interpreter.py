"""A regression replay never runs old code as new (issue 42, item 2), with a real worker.

The app is a user's project in the test's folder: ``app.py`` (a Burr app of two actions) whose
``judge`` action calls ``helpers.verdict``, with an outcome ``verdict`` that passes when the step
says "ok". A ``db_worker`` executes the recorded runs, so it imports the app with the first
helper; then the helper is edited to plant two flips (n = 1 and n = 2 now say "bad"). A
regression replay queued to that worker must find both: it executes in an interpreter started
for the batch (``run_sets.fresh``), which imports the edited helper — the worker itself still
holds the old one and would find none.

The refusal: a batch made before the edit and executed after it fails every run, naming the file
that changed, and executes nothing. A child that crashes fails the batch's runs with its last
line of stderr, never leaving them queued.

Committed for real (``transaction=True``) on a file-based test database: the worker and the
batch's interpreter are other processes.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import shutil
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.analysis.batches.regression import regression_result
from runs.engine.apps import registry, versions
from runs.engine.execution.new_runs import create_run
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.fresh import execute_in_fresh_process
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Batch, Node, Run
from runs.tasks import enqueue_run
from runs.tests.conftest import PROJECT_ROOT, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

NAME = "fresh_regress"
INPUTS = (0, 1, 2, 3)
PLANTED = {1, 2}  # the inputs the edited helper flips
TIMEOUT = 90

APP = '''
"""A user's app whose step's behaviour lives in a helper module (a test edits the helper)."""

from burr.core import ApplicationBuilder, State
from burr.core.action import action

import HELPERS


@action(reads=[], writes=["n"])
def receive(state: State, n: int) -> State:
    return state.update(n=n)


@action(reads=["n"], writes=["verdict"])
def judge(state: State) -> State:
    return state.update(verdict=HELPERS.verdict(state["n"]))


def application():
    return (
        ApplicationBuilder()
        .with_actions(receive=receive, judge=judge)
        .with_transitions(("receive", "judge"))
        .with_entrypoint("receive")
        .build()
    )
'''
HELPER_BEFORE = 'def verdict(n: int) -> str:\n    return "ok"\n'
HELPER_AFTER = textwrap.dedent(
    """
    def verdict(n: int) -> str:
        return "bad" if n in PLANTED else "ok"
    """
).replace("PLANTED", repr(sorted(PLANTED)))
OUTCOMES = {NAME: [{"name": "verdict", "path": "judge.verdict", "check": {"one_of": ["ok"]}}]}


class Project:
    """The user's project folder: ``app`` and ``helpers`` modules under names of their own."""

    def __init__(self, folder: Path) -> None:
        tag = uuid.uuid4().hex[:8]
        self.folder = folder
        self.app, self.helpers = f"fresh_app_{tag}", f"fresh_helpers_{tag}"
        (folder / f"{self.app}.py").write_text(APP.replace("HELPERS", self.helpers))
        self.write_helper(HELPER_BEFORE)

    def write_helper(self, text: str) -> Path:
        path = self.folder / f"{self.helpers}.py"
        path.write_text(text)
        shutil.rmtree(self.folder / "__pycache__", ignore_errors=True)
        return path

    def forget(self) -> None:
        """What a process started now would know of the app: nothing."""
        for module in (self.app, self.helpers):
            sys.modules.pop(module, None)
        importlib.invalidate_caches()
        registry._load.cache_clear()
        versions._loaded.pop(NAME, None)


@pytest.fixture
def project(tmp_path, rewind_settings, monkeypatch) -> Project:
    folder = tmp_path / "project"
    folder.mkdir()
    found = Project(folder)
    monkeypatch.syspath_prepend(str(folder))
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        NAME: f"{found.app}.application",
    }
    rewind_settings.REWIND_OUTCOMES = OUTCOMES
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    found.forget()
    yield found
    found.forget()


def worker_env(project: Project) -> dict[str, str]:
    return {
        "REWIND_PIPELINES": f"{NAME}={project.app}.application",
        "REWIND_OUTCOMES": json.dumps(OUTCOMES),
        "PYTHONPATH": os.pathsep.join([str(project.folder), str(PROJECT_ROOT)]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def finished(ids: list[int]) -> bool:
    done = {Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.CANCELLED}
    return set(Run.objects.filter(pk__in=ids).values_list("status", flat=True)) <= done


def record_on(project: Project) -> list[Run]:
    """The recorded runs, executed by the worker (which imports the app to run them)."""
    runs = [create_run(NAME, {"n": n}) for n in INPUTS]
    for run in runs:
        enqueue_run(run)  # autocommit: queued at once
    ids = [r.pk for r in runs]
    wait_for(lambda: finished(ids), timeout=TIMEOUT, what="the recorded runs")
    runs = list(Run.objects.filter(pk__in=ids).order_by("pk"))
    assert {r.status for r in runs} == {Run.Status.COMPLETED}, [r.error for r in runs]
    return runs


def regression_plan(runs: list[Run]):
    return plan_regression(RegressionRequest(Selection(runs=tuple(r.pk for r in runs))))


def test_a_worker_loaded_before_a_helper_edit_finds_both_planted_flips(project, db_workers):
    (worker,) = db_workers(1, **worker_env(project))
    recorded = record_on(project)  # the worker has imported the app and the first helper
    project.forget()
    before = regression_plan(recorded).code.version  # a replay made now: the same code

    project.write_helper(HELPER_AFTER)
    project.forget()  # this process, like `rewind_regress --enqueue` started now
    out = io.StringIO()
    call_command(
        "rewind_regress", "--runs", *[str(r.pk) for r in recorded], "--enqueue", "--json",
        stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    batch = Batch.objects.get(pk=json.loads(out.getvalue())["batch"])
    ids = batch_run_ids(batch)
    wait_for(lambda: finished(ids), timeout=TIMEOUT, what="the regression replay's runs")

    result = regression_result(batch)
    data = result.as_json()
    assert {r["status"] for r in data["runs"]} == {"completed"}, worker.output()[-3000:]
    n_of = {run.pk: n for run, n in zip(recorded, INPUTS, strict=True)}
    by_input = {n_of[r["source"]]: r for r in data["runs"]}
    flipped = {n for n, r in by_input.items() if r["outcomes"][0]["flipped"]}
    assert flipped == PLANTED, worker.output()[-3000:]
    assert result.regressions == len(PLANTED)
    assert batch.code_version != before  # the version sees the helper module
    # Executed by the worker's child, not by the worker: one task for the whole batch.
    assert Node.objects.filter(run_id__in=ids, name="judge").count() == len(INPUTS)


def test_code_edited_after_the_batch_was_made_is_refused_naming_the_file(project, db_workers):
    (worker,) = db_workers(1, **worker_env(project))
    recorded = record_on(project)
    project.forget()
    batch = make_batch(regression_plan(recorded))  # made with the first helper; not queued

    edited = project.write_helper(HELPER_AFTER)
    outcome = execute_in_fresh_process(batch.pk, quiet=True)

    assert outcome.returncode == 0 and outcome.given_up == []  # refused, not crashed
    runs = list(Run.objects.filter(pk__in=batch_run_ids(batch)))
    assert {r.status for r in runs} == {Run.Status.FAILED}
    for run in runs:
        assert run.error.startswith("refused, nothing executed: ") and edited.name in run.error
    assert not Node.objects.filter(run__in=runs).exists()  # nothing executed


def test_a_child_that_crashes_fails_the_batch_with_its_last_line(project, db_workers):
    (worker,) = db_workers(1, **worker_env(project))
    recorded = record_on(project)
    project.forget()
    batch = make_batch(regression_plan(recorded))
    project.write_helper('import sys\nsys.exit("helpers: this machine has no licence file")\n')

    outcome = execute_in_fresh_process(batch.pk, quiet=True)

    ids = batch_run_ids(batch)
    assert outcome.returncode == 1 and sorted(outcome.given_up) == sorted(ids)
    for run in Run.objects.filter(pk__in=ids):
        assert run.status == Run.Status.FAILED
        assert run.error.endswith("exited (1): helpers: this machine has no licence file")
