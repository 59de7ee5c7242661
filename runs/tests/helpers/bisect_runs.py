"""The bisect apps (``helpers/bisect_apps.py``) registered with their ``verdict`` outcome
(``apps``), and GOOD/BAD pairs of completed runs (``relay_runs``: seed 1 "pass", seed 2
"fail", differing at every step; ``both_runs``, the same of the ``both`` app). Used by ``engine/analysis/test_bisect.py``,
``views/test_bisect_view.py`` and ``commands/test_command_bisect.py``.
"""

from __future__ import annotations

import pytest

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Run

APPS = {
    "relay12": "runs.tests.helpers.bisect_apps.relay12",
    "relay_skip": "runs.tests.helpers.bisect_apps.relay_skip",
    "pair": "runs.tests.helpers.bisect_apps.pair",
    "relay16": "runs.tests.helpers.bisect_apps.relay16",
    "both": "runs.tests.helpers.bisect_apps.both",
}
VERDICT = [{"name": "verdict", "path": "s12.v12.verdict"}]


@pytest.fixture
def apps(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    rewind_settings.REWIND_OUTCOMES = {
        "relay12": VERDICT,
        "relay_skip": VERDICT,
        "pair": [{"name": "verdict", "path": "judge.verdict"}],
        "relay16": [{"name": "verdict", "path": "s16.v16.verdict"}],
        "both": [{"name": "verdict", "path": "verdict.verdict"}],
    }
    registry._load.cache_clear()
    yield rewind_settings
    registry._load.cache_clear()


def completed(run: Run) -> Run:
    run = execute_run(run.pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def relay_runs(app: str, planted: int, **shape: object) -> tuple[Run, Run]:
    """GOOD (seed 1: verdict "pass") and BAD (seed 2: "fail"), differing at every step;
    ``shape``: the relay's ``join`` and ``carry`` inputs (``bench/pipelines/relay.py``)."""
    inputs = {"planted": planted, **shape}
    good = completed(create_run(app, {"seed": 1, **inputs}, from_text=False))
    bad = completed(create_run(app, {"seed": 2, **inputs}, from_text=False))
    return good, bad


def both_runs(three: bool = False) -> tuple[Run, Run]:
    """GOOD (seed 1: x and y true, verdict "pass") and BAD (seed 2: both false, "fail") of the
    ``both`` app: every step differs, and only x and y swapped together flip the verdict
    (``three``: only x, w and y together)."""
    inputs = {"three": True} if three else {}
    good = completed(create_run("both", {"seed": 1, **inputs}, from_text=False))
    bad = completed(create_run("both", {"seed": 2, **inputs}, from_text=False))
    return good, bad
