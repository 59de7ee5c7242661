"""The worker-memory figure of ``rewind_bench``: two fresh interpreters, configured as this
process is (the test database included), one replaying a run as a worker does, one running the
same actions with bare Burr; the replays are deleted afterwards."""

from __future__ import annotations

import re

import pytest

from runs.bench.memory import worker_memory_figure
from runs.models import BurrState, Node, Run

pytestmark = pytest.mark.django_db(transaction=True)  # the child processes read committed rows


def test_replays_in_a_fresh_worker_beside_bare_burr_leave_nothing_behind(run_pipeline):
    source = run_pipeline("research")
    before = (Run.objects.count(), Node.objects.count(), BurrState.objects.count())

    row = worker_memory_figure(source, 10)

    assert row["figure"].startswith("worker memory over 10 cached replays")
    assert row["value"] > 0.5 and row["anchor_growth"] > 0.5  # two real RSS readings each
    assert row["pass"] == (row["ratio"] <= 1.1)
    marks = re.findall(r"([\d.]+) → ([\d.]+) MiB", row["note"])
    assert len(marks) == 2 and all(float(mib) > 10 for pair in marks for mib in pair), row
    assert "8 actions" in row["note"]
    # The ten replays completed in the child (it raises otherwise) and were removed after.
    assert (Run.objects.count(), Node.objects.count(), BurrState.objects.count()) == before


def test_a_failing_pass_says_which_and_why(run_pipeline):
    source = run_pipeline("research")
    Node.objects.filter(run=source).delete()  # nothing left to replay

    with pytest.raises(
        RuntimeError, match=f"the rewind memory pass failed: .*run {source.pk} executed no step"
    ):
        worker_memory_figure(source, 3)
