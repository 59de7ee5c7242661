"""``rewind_replay --workers N``: the replays run in N worker *processes* (runs.engine.forking.batch).

No timings here (those are ``rewind_bench``'s): that two workers really are two processes, that
their verdicts and the command's output are those of one worker, that a failing replay and a
worker that dies are reported (and never hang the command), that Ctrl-C stops cleanly, and that
a bad ``--workers`` is one clear line that changes nothing.

The worker processes are real: they see only committed rows (hence ``transaction=True``) of
the test database, which for SQLite is a file (``rewind_site/settings.py``, ``TEST NAME``).
The observable of *where* a replay ran is the pid its step's own code records: the ``pids``
Burr app below appends ``os.getpid()`` to a file each time its step executes (a Burr action is
a code step, re-executed by every replay).
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
from pathlib import Path
from typing import Any

import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.apps import registry
from runs.engine.execution.leases import mark_interrupted_runs
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.batch import MAX_WORKERS
from runs.management.commands import rewind_replay as replay_module
from runs.models import Run
from runs.tests.conftest import PROJECT_ROOT, worker_environment

pytestmark = pytest.mark.django_db(transaction=True)  # worker processes see committed rows

PID_DIR = "REWIND_TEST_PID_DIR"  # where the step records the pid that executed it
HOME_PID = "REWIND_TEST_HOME_PID"  # the test process: a source run always completes here


# --- the ``pids`` Burr app --------------------------------------------------------------------


@action(reads=["n", "mode"], writes=["n"])
def count(state: State) -> State:
    """Records the executing pid; away from the test process, ``mode`` may make it misbehave."""
    folder = os.environ.get(PID_DIR)
    if folder:
        with open(Path(folder) / f"{os.getpid()}.pid", "a") as handle:
            handle.write("x")
    away = str(os.getpid()) != os.environ.get(HOME_PID)
    if away and state["mode"] == "raise":
        raise ValueError("the step refused to run in a worker")
    if away and state["mode"] == "die":
        os._exit(7)  # the worker process dies mid-run, like a kill -9 or the OOM killer
    if away and state["mode"] == "slow":
        time.sleep(0.5)
    return state.update(n=state["n"] + 1)


@action(reads=["n"], writes=["total"])
def finish(state: State) -> State:
    return state.update(total=state["n"] * 10)


def _application(mode: str) -> Application:
    return (
        ApplicationBuilder()
        .with_actions(count=count, finish=finish)
        .with_transitions(("count", "finish"))
        .with_state(n=1, mode=mode)
        .with_entrypoint("count")
        .build()
    )


def pids_application() -> Application:
    return _application("ok")


def raising_application() -> Application:
    return _application("raise")


def dying_application() -> Application:
    return _application("die")


def slow_application() -> Application:
    return _application("slow")


APPS = {
    "pids": f"{__name__}.pids_application",
    "pids_raise": f"{__name__}.raising_application",
    "pids_die": f"{__name__}.dying_application",
    "pids_slow": f"{__name__}.slow_application",
}


@pytest.fixture
def pids(rewind_settings, monkeypatch, tmp_path) -> Path:
    """The ``pids`` apps registered; returns the folder their step records pids in."""
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv(PID_DIR, str(folder))
    monkeypatch.setenv(HOME_PID, str(os.getpid()))
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield folder
    registry._load.cache_clear()


def recorded_pids(folder: Path) -> dict[int, int]:
    """pid → how many steps it executed; the folder is emptied for the next command."""
    counts = {int(p.stem): len(p.read_text()) for p in folder.glob("*.pid")}
    for path in folder.glob("*.pid"):
        path.unlink()
    return counts


def completed(pipeline: str, inputs: dict | None = None) -> Run:
    run = execute_run(create_run(pipeline, inputs).pk)
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


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
    # The first two runs record their pid: once every worker is ready, each is handed one of
    # the first two runs, so each worker process must record one — however the rest of the
    # batch is shared out (a busy machine may let one worker take all the later runs).
    sources = [
        completed("pids"),
        completed("pids"),
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


def test_more_workers_than_runs_start_one_per_run(pids):
    source = completed("pids")
    recorded_pids(pids)

    out, _ = replay(str(source.pk), "--workers", "8", "--json")

    # One run: replayed here, no process started for it.
    assert recorded_pids(pids) == {os.getpid(): 1}
    assert json.loads(out)["results"][0]["verdict"] == "identical"


def test_a_replay_that_fails_in_a_worker_is_reported_and_exits_1(pids):
    good, bad = completed("research"), completed("pids_raise")

    message, out, _ = replay_failing(str(good.pk), str(bad.pk), "--workers", "2")

    assert message == "1 of 2 replay(s) diverged or failed"
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


def test_a_worker_that_dies_is_reported_and_the_batch_goes_on(pids):
    doomed = completed("pids_die")
    others = [completed("pids") for _ in range(3)]
    before = set(Run.objects.values_list("pk", flat=True))

    message, out, _ = replay_failing(
        str(doomed.pk), *[str(r.pk) for r in others], "--workers", "2", "--json"
    )

    assert message == "1 of 4 replay(s) diverged or failed"
    data = json.loads(out)
    assert [r["run"] for r in data["results"]] == [doomed.pk, *[r.pk for r in others]]
    lost, *rest = data["results"]
    assert {r["verdict"] for r in rest} == {"identical"}  # the other worker did the rest
    assert lost["verdict"] == "failed"
    assert re.search(r"worker process \d+ exited \(7\) while replaying this run", lost["error"])
    assert f"replay {lost['replay']} is left running" in lost["error"]
    assert set(lost) == set(rest[0])  # the same contract as every other result

    # Its replay was left running, without a heartbeat: the lease marks it interrupted.
    left = Run.objects.get(pk=lost["replay"])
    assert left.status == Run.Status.RUNNING and left.pk not in before
    Run.objects.filter(pk=left.pk).update(heartbeat_at=left.heartbeat_at.replace(year=2000))
    assert mark_interrupted_runs() == [left.pk]


def test_ctrl_c_stops_handing_out_runs_and_lets_the_ones_in_hand_finish(pids, monkeypatch):
    sources = [completed("pids") for _ in range(6)]
    before = Run.objects.count()
    real = replay_module.replay_in_processes

    def interrupted_at_first_result(run_ids, workers, *, on_result, **kwargs):
        def first_then_ctrl_c(result, pid):
            on_result(result, pid)
            raise KeyboardInterrupt

        return real(run_ids, workers, on_result=first_then_ctrl_c, **kwargs)

    monkeypatch.setattr(replay_module, "replay_in_processes", interrupted_at_first_result)

    message, out, _ = replay_failing(*[str(s.pk) for s in sources], "--workers", "2")

    assert message == "0 of 2 replay(s) diverged or failed; interrupted"
    # Each worker held one run when Ctrl-C came; both finished, nothing more was started.
    assert "interrupted: 2 of 6 replayed" in out
    made = Run.objects.filter(parent__in=sources)
    assert Run.objects.count() == before + 2
    assert {r.status for r in made} == {Run.Status.COMPLETED}


def test_a_real_ctrl_c_reaches_only_the_command_and_no_worker_is_left(pids, tmp_path):
    """From a shell: SIGINT to the command (the terminal's Ctrl-C); the workers, in their own
    process group, finish the runs in hand; the command reports them and exits 1."""
    sources = [completed("pids_slow") for _ in range(8)]
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
    assert made.count() == int(finished.group(1))  # nothing left queued or running
    assert {r.status for r in made} == {Run.Status.COMPLETED}
    for pid in reported_pids(first + stderr):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # every worker has exited


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
    assert result.returncode == 1
    assert result.stderr == "CommandError: --workers must be between 1 and 32, got 0\n"
    assert result.stdout == "" and Run.objects.count() == before


@pytest.mark.django_db  # inside a transaction: rows a worker process could not see
def test_workers_inside_a_transaction_are_refused_in_one_line(run_pipeline):
    sources = [run_pipeline("research"), run_pipeline("research", {"region": "east"})]
    before = Run.objects.count()

    message, out, _ = replay_failing(*[str(s.pk) for s in sources], "--workers", "2")

    assert message.startswith("worker processes see only committed rows"), message
    assert out == "" and Run.objects.count() == before
