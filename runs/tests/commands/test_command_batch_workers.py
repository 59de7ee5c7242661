"""``rewind_batch --workers N``: a batch's forks executed by N ordinary queue workers
(``run_on_workers``), and a worker killed mid-way loses no source (issue 17's test).

Real ``db_worker`` processes: they see only committed rows, hence ``transaction=True``. The
``pids`` apps of helpers/pid_apps.py record which process executed a step."""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time

import pytest
from django.core.management import call_command

from runs.models import Batch, Run
from runs.tests.helpers.pid_apps import (  # noqa: F401 — ``pids`` is a fixture
    assert_gone,
    completed,
    counting_starts,
    pids,
    recorded_pids,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_batch_with_a_worker_killed_mid_way_accounts_for_every_source(
    pids,  # noqa: F811 — the fixture imported above
    rewind_settings,
    monkeypatch,
):
    rewind_settings.REWIND_OUTCOMES = {"pids_slower": [{"name": "total", "path": "finish.total"}]}
    sources = [completed("pids_slower") for _ in range(4)]  # 2 s per step in a worker
    recorded_pids(pids)
    started = counting_starts(monkeypatch)
    killed: list[int] = []

    def kill_the_first_worker_to_start_a_step() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            for path in pids.glob("*.pid"):
                if int(path.stem) in started:
                    killed.append(int(path.stem))
                    os.kill(int(path.stem), signal.SIGKILL)
                    return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_the_first_worker_to_start_a_step)
    killer.start()
    out = io.StringIO()
    call_command(
        "rewind_batch", "--runs", *[str(s.pk) for s in sources], "--node", "count",
        "--set", "state.n=5", "--workers", "2", "--json", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    killer.join()

    assert killed, "no worker started a step"
    data = json.loads(out.getvalue())
    assert [s["run"] for s in data["sources"]] == [s.pk for s in sources]
    # Every source accounted for: its fork resumed after the kill and completed; n 1 → 5 makes
    # the total 60 instead of 20.
    assert {s["status"] for s in data["sources"]} == {"completed"}
    for source in data["sources"]:
        assert source["outcomes"] == [
            {"name": "total", "before": 20, "after": 60, "flipped": True, "verdict": "no-samples"}
        ]
    assert data["summary"][0]["n"] == 4 and data["summary"][0]["flipped"] == 4
    assert data["finished"] is True
    forks = Run.objects.filter(parent__in=sources)
    assert forks.count() == 4 and {f.status for f in forks} == {Run.Status.COMPLETED}
    assert Batch.objects.get(pk=data["batch"]).sources.count() == 4
    # The forks ran in the workers started for the batch, never here.
    assert os.getpid() not in recorded_pids(pids)
    assert len(started) == 3  # the killed worker was replaced
    assert_gone(started)
