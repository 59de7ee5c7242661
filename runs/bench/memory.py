"""``rewind_bench``'s worker-memory figure (issue 19): does a worker's memory stay flat over
many cached replays?

A worker is a long-lived process, so what matters is growth, not size. The figure runs in two
fresh interpreters, one after the other, each set up the same way (Django configured for the
same database), so neither inherits what the bench itself has allocated:

- **Rewind**: ``count`` cached replays of ``source``, each made and executed the way a queue
  worker executes one (``close_old_connections()``, then the task body ``execute_run_task``);
  the replays are deleted at the end.
- **bare Burr** (the anchor): ``count`` runs of the same actions by bare Burr with its
  ``SQLitePersister``, the app rebuilt each time (``bare_burr_app``).

Each reports its resident set size after the first 10 % of its runs (imports, caches and
pools are warm by then) and at the end, each after a ``gc.collect()``. The figure is Rewind's
end ÷ its 10 % mark; goal ≤ 1.1× ("keep flat"); bare Burr's own ratio is shown beside it.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import resource
import subprocess
import sys
from collections.abc import Callable

from runs.bench.measure import figure
from runs.bench.pages import delete_runs
from runs.models import Run

GOAL = 1.1
MIB = 1024 * 1024


def _rss() -> int:
    """This process's resident set size in bytes (Linux: now; elsewhere: its peak)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        scale = 1 if sys.platform == "darwin" else 1024  # macOS reports bytes, Linux KiB
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _grow(work: Callable[[], object], count: int) -> dict[str, int]:
    """RSS after the first tenth of ``count`` runs of ``work`` and after all of them."""
    warm = max(1, count // 10)
    marks = {}
    for done in range(1, count + 1):
        work()
        if done == warm:
            gc.collect()
            marks["warm"] = _rss()
    gc.collect()
    marks["end"] = _rss()
    return marks


def _replays(source_id: int, count: int) -> dict[str, int]:
    from django.db import close_old_connections

    from runs.engine.forking.replays import create_replay
    from runs.tasks import execute_run_task

    source = Run.objects.get(pk=source_id)
    made: list[int] = []

    def once() -> None:
        close_old_connections()  # as a worker does between tasks
        run = create_replay(source)
        made.append(run.pk)
        status = execute_run_task.call(run.pk)
        if status != Run.Status.COMPLETED:
            raise RuntimeError(f"replay {run.pk} of run {source_id} ended {status}")

    try:
        return _grow(once, count)
    finally:
        delete_runs(made)


def _bare(source_id: int, count: int) -> dict[str, int]:
    from runs.bench.replays import bare_burr_app

    with bare_burr_app(Run.objects.get(pk=source_id), tuned=True) as once:
        return _grow(once, count)


# Django is set up as the parent was (``workers.set_up``: the same settings and databases, a
# test database included) before this module, which imports models, is imported.
CHILD_CODE = """
import pickle, sys
from runs.engine.execution.workers import set_up
config, *work = pickle.load(sys.stdin.buffer)
set_up(config)
from runs.bench.memory import child
child(*work)
"""


def child(kind: str, source_id: int, count: int) -> None:
    """The body of ``python -c CHILD_CODE``: prints its marks as JSON on stdout."""
    work = {"rewind": _replays, "bare": _bare}[kind]
    print(json.dumps(work(source_id, count)))


def _measure(kind: str, source: Run, count: int) -> dict[str, int]:
    from runs.engine.execution.workers import child_env, worker_config

    done = subprocess.run(  # noqa: S603 — this interpreter, our own module
        [sys.executable, "-c", CHILD_CODE],
        input=pickle.dumps((worker_config(quiet=True), kind, source.pk, count)),
        env=child_env(),
        capture_output=True,
        check=False,
    )
    if done.returncode:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        error = lines[-1] if lines else f"exit status {done.returncode}"  # the exception's line
        raise RuntimeError(f"the {kind} memory pass failed: {error}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def worker_memory_figure(source: Run, count: int) -> dict:
    rewind = _measure("rewind", source, count)
    bare = _measure("bare", source, count)
    growth, bare_growth = rewind["end"] / rewind["warm"], bare["end"] / bare["warm"]
    row = figure(
        f"worker memory over {count} cached replays: RSS at the end ÷ after the first 10 %",
        growth,
        None,
        GOAL,
    )
    row["note"] = (
        f"Rewind {rewind['warm'] / MIB:.1f} → {rewind['end'] / MIB:.1f} MiB; bare Burr "
        f"(the same {source.nodes.count()} actions, SQLitePersister) "
        f"{bare['warm'] / MIB:.1f} → {bare['end'] / MIB:.1f} MiB ({bare_growth:.3f}×)"
    )
    row["anchor_growth"] = round(bare_growth, 4)
    return row
