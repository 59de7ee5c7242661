"""``rewind_replay --workers N``: the replays run on N ordinary queue workers — ``db_worker``
processes started for the batch (runs.engine.execution.workers.run_on_workers, issue 17 item 7).

No timings here (those are ``rewind_bench``'s): that two workers really are two processes, that
their verdicts and the command's output are those of one worker, that a failing replay and a
worker that dies or is killed are reported or recovered (and never hang the command), that
Ctrl-C stops cleanly leaving no process and no run queued or running behind, and that a bad
``--workers`` is one clear line that changes nothing.

The worker processes are real: they see only committed rows (hence ``transaction=True``) of
the test database, which for SQLite is a file (``rewind_site/settings.py``, ``TEST NAME``).
The observable of *where* a replay ran is the pid its step's own code records: the ``pids``
Burr app (``helpers/pid_apps.py``) appends ``os.getpid()`` to a file each time its step
executes (a Burr action is a code step, re-executed by every replay).
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.workers import MAX_WORKERS, run_on_workers
from runs.management.commands import rewind_replay as replay_module
from runs.models import Run
from runs.tests.conftest import PROJECT_ROOT, worker_environment
from runs.tests.helpers import pid_apps
from runs.tests.helpers.pid_apps import (
    APPS,
    assert_gone,
    completed,
    counting_starts,
    recorded_pids,
)

pids = pid_apps.pids  # the fixture (helpers/pid_apps.py), this module's own

pytestmark = pytest.mark.django_db(transaction=True)  # worker processes see committed rows


# --- helpers ---------------------------------------------------------------------------------


def replay(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("rewind_replay", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def replay_failing(*args: str) -> tuple[str, str, str]:
    """``rewind_replay args`` expecting exit 1: (its one-line error, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("rewind_replay", *args, stdout=out, stderr=err)
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message, out.getvalue(), err.getvalue()


def without_replay_ids(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "results": [{**r, "replay": None} for r in data["results"]]}


TABLE_ROW = re.compile(r"^(\s*\d+) +\d+  ", re.MULTILINE)


def reported_pids(stderr: str) -> set[int]:
    return {int(pid) for pid in re.findall(r"\(worker pid (\d+)\)", stderr)}


# --- the tests ---------------------------------------------------------------------------------


def test_two_workers_are_two_processes_and_report_what_one_worker_does(pids):
    # The replays are enqueued once both workers are ready, and the first two are slow in a
    # worker (half a second): while one worker holds the first, the other takes the second, so
    # each worker process must record one — however the rest of the batch is shared out.
    sources = [
        completed("pids_slow"),
        completed("pids_slow"),
        completed("research"),
        completed("research", {"region": "east"}),
        completed("pids"),
    ]
    ids = [str(s.pk) for s in sources]
    recorded_pids(pids)  # the sources' own steps ran here

    one_json, one_err = replay(*ids, "--json", "-v", "2")
    in_one = recorded_pids(pids)
    two_json, two_err = replay(*ids, "--json", "--workers", "2", "-v", "2")
    in_two = recorded_pids(pids)

    # One worker replays here, in this process; two workers are two other processes, each of
    # which executed steps (every worker gets one of the first runs once all of them are ready).
    assert set(in_one) == {os.getpid()} and sum(in_one.values()) == 3
    assert len(in_two) == 2 and os.getpid() not in in_two, in_two
    assert sum(in_two.values()) == 3
    assert reported_pids(one_err) == {os.getpid()}
    assert set(in_two) <= reported_pids(two_err) and len(reported_pids(two_err)) == 2

    one, two = json.loads(one_json), json.loads(two_json)
    assert {r["verdict"] for r in two["results"]} == {"identical"}
    assert [r["run"] for r in two["results"]] == [s.pk for s in sources]  # in the order given
    assert without_replay_ids(two) == without_replay_ids(one)
    replays = [Run.objects.get(pk=r["replay"]) for r in two["results"]]
    assert [r.parent_id for r in replays] == [s.pk for s in sources]
    assert all(
        r.trajectory_sha256 == s.trajectory_sha256 for r, s in zip(replays, sources, strict=True)
    )

    one_table, _ = replay(*ids)
    two_table, _ = replay(*ids, "--workers", "2")
    assert TABLE_ROW.sub(r"\1 -  ", two_table) == TABLE_ROW.sub(r"\1 -  ", one_table)
    assert two_table.rstrip().endswith("5/5 identical")


def test_more_workers_than_runs_start_one_per_run(pids, monkeypatch):
    source = completed("pids")
    recorded_pids(pids)
    started = counting_starts(monkeypatch)

    out, _ = replay(str(source.pk), "--workers", "8", "--json")

    # One run: one queue worker started for it, and it replayed the run; then it was stopped.
    assert len(started) == 1
    assert recorded_pids(pids) == {started[0]: 1}
    assert json.loads(out)["results"][0]["verdict"] == "identical"
    assert_gone(started)


def test_run_on_workers_executes_any_queued_runs_and_reports_each_as_it_finishes(pids):
    """The engine function a batch of anything (replays, counterfactual forks) uses."""
    queued = [create_run("pids"), create_run("research"), create_run("pids")]
    seen = []

    outcome = run_on_workers([r.pk for r in queued], 2, progress=seen.append, quiet=True)

    assert sorted(d.run.pk for d in seen) == sorted(r.pk for r in queued)
    assert {d.run.status for d in seen} == {Run.Status.COMPLETED}
    assert {d.pid for d in seen} <= set(outcome.pids) and len(outcome.pids) == 2
    assert all(d.worker.startswith("rewind-batch-") for d in seen)
    assert outcome.lost == {} and outcome.withdrawn == [] and not outcome.interrupted
    assert set(recorded_pids(pids)) <= set(outcome.pids)  # executed there, not here
    assert_gone(outcome.pids)


def test_a_replay_that_fails_in_a_worker_is_reported_and_exits_1(pids):
    good, bad = completed("research"), completed("pids_raise")

    message, out, _ = replay_failing(str(good.pk), str(bad.pk), "--workers", "2")

    assert message == "1 of 2 replay(s) not identical (diverged, failed or not hermetic)"
    rows = out.splitlines()
    assert re.match(rf"\s*{good.pk} +\d+  identical ", rows[1]), out
    assert re.match(rf"\s*{bad.pk} +\d+  failed ", rows[2]), out
    assert "count:" in rows[2] and "refused to run in a worker" in rows[2], out
    assert rows[-1] == "1/2 identical"

    _, out, _ = replay_failing(str(good.pk), str(bad.pk), "--workers", "2", "--json")
    data = json.loads(out)
    assert [r["verdict"] for r in data["results"]] == ["identical", "failed"]
    assert "refused to run in a worker" in data["results"][1]["error"]
    assert Run.objects.get(pk=data["results"][1]["replay"]).status == Run.Status.FAILED


def test_a_worker_that_dies_is_replaced_its_run_resumed_once_then_reported(pids, monkeypatch):
    doomed = completed("pids_die")  # its step kills whichever worker executes it
    others = [completed("pids") for _ in range(3)]
    started = counting_starts(monkeypatch)

    message, out, _ = replay_failing(
        str(doomed.pk), *[str(r.pk) for r in others], "--workers", "2", "--json"
    )

    assert message == "1 of 4 replay(s) not identical (diverged, failed or not hermetic)"
    data = json.loads(out)
    assert [r["run"] for r in data["results"]] == [doomed.pk, *[r.pk for r in others]]
    lost, *rest = data["results"]
    assert {r["verdict"] for r in rest} == {"identical"}
    assert lost["verdict"] == "failed"
    # Interrupted when its worker died, resumed once on another worker, which died too.
    assert re.search(
        r"resumed 1 time\(s\) before\): worker process \d+ exited \(7\)", lost["error"]
    )
    assert set(lost) == set(rest[0])  # the same contract as every other result
    left = Run.objects.get(pk=lost["replay"])
    assert left.status == Run.Status.INTERRUPTED  # never left running
    assert len(started) == 4  # two, and a replacement for each worker that died
    assert_gone(started)


def test_a_worker_killed_mid_batch_loses_nothing(pids, monkeypatch):
    """Issue 17: a batch with a worker killed mid-way finishes with every source accounted
    for. The killed worker's replay is interrupted, resumed on another worker and identical."""
    sources = [completed("pids_slower"), *[completed("pids") for _ in range(4)]]
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

    import threading

    killer = threading.Thread(target=kill_the_first_worker_to_start_a_step)
    killer.start()
    out, _ = replay(*[str(s.pk) for s in sources], "--workers", "2", "--json")
    killer.join()

    assert killed, "no worker started a step"
    data = json.loads(out)
    assert [r["run"] for r in data["results"]] == [s.pk for s in sources]
    assert {r["verdict"] for r in data["results"]} == {"identical"}, data
    assert len(started) == 3  # the killed worker was replaced
    replays = Run.objects.filter(parent__in=sources)
    assert {r.status for r in replays} == {Run.Status.COMPLETED} and replays.count() == 5
    assert_gone(started)


def test_ctrl_c_withdraws_what_no_worker_took_and_lets_the_ones_in_hand_finish(pids, monkeypatch):
    sources = [completed("pids_slow") for _ in range(6)]  # half a second each in a worker
    before = Run.objects.count()
    real = replay_module.replay_on_workers
    started = counting_starts(monkeypatch)

    def interrupted_at_first_result(runs, workers, *, on_result, **kwargs):
        pressed = []

        def first_then_ctrl_c(result, pid):
            on_result(result, pid)
            if not pressed:  # one Ctrl-C: a second one would kill the workers (by design)
                pressed.append(True)
                raise KeyboardInterrupt

        return real(runs, workers, on_result=first_then_ctrl_c, **kwargs)

    monkeypatch.setattr(replay_module, "replay_on_workers", interrupted_at_first_result)

    message, out, _ = replay_failing(*[str(s.pk) for s in sources], "--workers", "2")

    finished = re.search(r"interrupted: (\d+) of 6 replayed", out)
    assert finished, (message, out)
    done = int(finished.group(1))
    # The first result (or two, read at once), and what the two workers held when Ctrl-C came.
    assert 1 <= done <= 4
    assert (
        message
        == f"0 of {done} replay(s) not identical (diverged, failed or not hermetic); interrupted"
    )
    made = Run.objects.filter(parent__in=sources)
    assert Run.objects.count() == before + 6  # every replay row was made before the batch
    statuses = sorted(made.values_list("status", flat=True))
    assert statuses.count(Run.Status.COMPLETED) == done
    assert statuses.count(Run.Status.CANCELLED) == 6 - done  # withdrawn: never started
    assert all("withdrawn" in r.error for r in made.filter(status=Run.Status.CANCELLED))
    assert_gone(started)


def test_a_real_ctrl_c_reaches_only_the_command_and_no_worker_is_left(pids, tmp_path):
    """From a shell: SIGINT to the command (the terminal's Ctrl-C); the workers, in their own
    process group, finish the runs in hand and exit; the command reports them and exits 1."""
    sources = [completed("pids_slow") for _ in range(8)]
    recorded_pids(pids)
    env = worker_environment(
        REWIND_PIPELINES=",".join(f"{name}={path}" for name, path in APPS.items()),
        REWIND_LOG_LEVEL="WARNING",
    )
    process = subprocess.Popen(
        [sys.executable, "manage.py", "rewind_replay", *[str(s.pk) for s in sources]]
        + ["--workers", "2", "-v", "2"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        first = ""
        while "(worker pid" not in first:  # -v 2: one line per finished replay
            line = process.stderr.readline()
            assert line, f"the command ended before any replay finished: {first}"
            first += line
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1, stderr
    assert stderr.strip().splitlines()[-1].endswith("interrupted"), stderr
    finished = re.search(r"interrupted: (\d+) of 8 replayed", stdout)
    assert finished and 1 <= int(finished.group(1)) < 8, stdout
    made = Run.objects.filter(parent__in=sources)
    statuses = list(made.values_list("status", flat=True))
    assert statuses.count(Run.Status.COMPLETED) == int(finished.group(1))
    assert set(statuses) <= {Run.Status.COMPLETED, Run.Status.CANCELLED}  # none queued/running
    assert_gone(reported_pids(first + stderr) | set(recorded_pids(pids)))


@pytest.mark.parametrize("workers", ["0", "-1", str(MAX_WORKERS + 1)])
def test_a_bad_worker_count_is_one_line_and_changes_nothing(research_run, workers):
    before = Run.objects.count()

    message, out, _ = replay_failing(str(research_run.pk), "--workers", workers)

    assert message == f"--workers must be between 1 and {MAX_WORKERS}, got {workers}"
    assert out == "" and Run.objects.count() == before


def test_a_bad_worker_count_from_a_shell_is_one_line_on_stderr(research_run):
    before = Run.objects.count()
    result = subprocess.run(
        [sys.executable, "manage.py", "rewind_replay", str(research_run.pk), "--workers", "0"],
        cwd=PROJECT_ROOT,
        env=worker_environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2  # bad input, as every command that runs many runs
    assert result.stderr == "CommandError: --workers must be between 1 and 32, got 0\n"
    assert result.stdout == "" and Run.objects.count() == before


@pytest.mark.django_db  # inside a transaction: rows a worker process could not see
def test_workers_inside_a_transaction_are_refused_in_one_line(run_pipeline):
    sources = [run_pipeline("research"), run_pipeline("research", {"region": "east"})]
    before = Run.objects.count()

    message, out, _ = replay_failing(*[str(s.pk) for s in sources], "--workers", "2")

    assert message.startswith("worker processes see only committed rows"), message
    assert out == "" and Run.objects.count() == before
