"""Command-line values are read as the app expects them (issue 16, item 13): ``--input
increment_by=1`` is the int 1 for Burr's class-based counter (``run(…, increment_by: int)``),
a JSON list is a list, and text stays text — ``--turn`` alike."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from runs.engine.apps import registry
from runs.engine.apps.burr import BurrApp
from runs.engine.execution.new_runs import runtime_inputs


@pytest.fixture
def counter(rewind_settings, monkeypatch, tmp_path, db):
    monkeypatch.chdir(tmp_path)  # the example keeps its own demos.db in the working directory
    monkeypatch.setenv("HOME", str(tmp_path))
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "counter": "burr.examples.hello-world-counter.application_classbased.application",
    }
    registry._load.cache_clear()
    yield registry.get_pipeline("counter")
    registry._load.cache_clear()


def test_burrs_class_based_counter_counts_with_an_int_from_the_command_line(counter):
    out = io.StringIO()
    call_command(
        "rewind_run", "--pipeline", "counter", "--input", "increment_by=1", "--json", stdout=out
    )
    run = json.loads(out.getvalue())
    assert run["status"] == "completed", run["error"]
    counted = [n for n in run["nodes"] if n["name"] == "counter"]
    assert len(counted) == 10  # counts 1 by 1 up to 10, as the example does with app.run


def test_a_value_that_is_not_the_annotated_type_is_refused_by_name(counter):
    with pytest.raises(CommandError, match="input increment_by: expected int"):
        call_command("rewind_run", "--pipeline", "counter", "--input", "increment_by=one")


def test_json_values_become_values_and_other_text_stays_text(counter):
    app: BurrApp = counter
    typed = runtime_inputs(app, {"increment_by": "2"})
    assert typed == {"increment_by": 2}
    unknown = BurrApp(
        name="x", description="", graph=app.graph, entrypoint=app.entrypoint, state={},
        source="", nodes=(),
    )  # fmt: skip
    read = runtime_inputs(
        unknown, {"emails": '["a@x", "b@x"]', "flag": "true", "name": "Ada", "zip": "02134"}
    )
    assert read == {"emails": ["a@x", "b@x"], "flag": True, "name": "Ada", "zip": "02134"}
