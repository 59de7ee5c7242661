"""The bisect apps (``helpers/bisect_apps.py``) registered with their ``verdict`` outcome
(``apps``), and GOOD/BAD pairs of completed relay runs (``relay_runs``: seed 1 "pass", seed 2
"fail", differing at every step). Used by ``engine/analysis/test_bisect.py``,
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
}
VERDICT = [{"name": "verdict", "path": "s12.v12.verdict"}]


@pytest.fixture
def apps(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    rewind_settings.REWIND_OUTCOMES = {
        "relay12": VERDICT,
        "relay_skip": VERDICT,
        "pair": [{"name": "verdict", "path": "judge.verdict"}],
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
