"""The values figures of ``rewind_bench`` (issue 31): a read recorded and replayed, each beside the
same read outside a step, and the cached replay of a step that reads nothing with the values
on and off."""

from __future__ import annotations

import pytest

from runs.bench.values import SOURCES, read_figures, step_figure
from runs.engine.calls import capture
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Run

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", list(SOURCES))
def test_a_read_is_measured_recorded_and_replayed_beside_the_bare_read(name):
    capture.install()

    recorded, replayed = read_figures(name, SOURCES[name], repeat=1)

    for row, how in ((recorded, "recorded"), (replayed, "replayed")):
        assert row["figure"].startswith(f"{how} {name} − the same read outside a step")
        assert row["anchor"] > 0 and row["goal"].endswith(" s")
        assert row["pass"] == (row["value"] <= float(row["goal"].split()[1]))
        assert "µs a read" in row["note"]


def test_a_replay_reading_nothing_is_timed_with_the_values_on_and_off(rewind_settings):
    source = execute_run(create_run("loop", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error

    row = step_figure(source, repeat=1)

    assert row["figure"].startswith("cached replay per step reading no clock nor randomness")
    assert row["anchor"] > 0 and row["ratio"] > 0
    assert row["pass"] == (row["ratio"] <= 1.05)
    assert Run.objects.filter(parent=source).count() == 4  # two replays on, two off
