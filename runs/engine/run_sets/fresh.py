"""A regression batch executed by an interpreter that imported the app as it is on disk now.

A regression replay checks the code on disk, so it must never run in a process that imported
the app before an edit — a queue worker or ``rewind serve`` that has been up for hours runs the
old helper module as the new code, and finds no regression. So a queued regression batch is one
task (``run_sets.queue.execute_batch_task``), and whichever worker takes it does not execute its runs
itself: ``execute_in_fresh_process(batch_id)`` starts a child interpreter
(``python -c FRESH_CODE FD BATCH``) that sets Django up as the worker has it (``WorkerConfig``,
sent on the socket ``FD``: the databases and ``REWIND_*`` settings, a test's too), imports the
app fresh and compares its version with the batch's (``versions.check_version``). When the code
on disk changed after the batch was made, every queued run of the batch fails with that reason
and nothing executes; else the child executes them one after another (``run_sets.here``), so they
stay ordinary runs (statuses, heartbeats, cancel, interrupted-detection), with the app looked
up and checked once (``runner.LoadedApp``).

The child's stdout goes to the worker's stderr; its stderr too, and its last lines are kept: a
child that crashes (or is killed) leaves no run of the batch queued or running — this process
fails them with the child's last line of stderr.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from runs.engine.errors import RewindError

logger = logging.getLogger("rewind")

# The comment names the process for ``ps``.
FRESH_CODE = (
    "from runs.engine.run_sets.fresh import child_entry; child_entry()  # rewind regression batch"
)
TAIL_LINES = 20  # the child's last stderr lines kept for a crash's reason


@dataclass
class FreshOutcome:
    """What the child did: its exit status, and the runs this process failed after it (its
    crash left them unfinished), with the reason given."""

    returncode: int
    given_up: list[int] = field(default_factory=list)
    reason: str = ""


def execute_in_fresh_process(batch_id: int, *, quiet: bool = False) -> FreshOutcome:
    """Execute the queued runs of batch ``batch_id`` in a child interpreter started now, and
    wait for it; a run it left unfinished is failed here, with its last line of stderr."""
    from runs.engine.execution.children import child_env, worker_config

    ours, theirs = socket.socketpair()
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", FRESH_CODE, str(theirs.fileno()), str(batch_id)],
            pass_fds=[theirs.fileno()],
            env=child_env(),
            stdin=subprocess.DEVNULL,
            stdout=2,  # never into a command's --json on stdout
            stderr=subprocess.PIPE,
        )
    finally:
        theirs.close()
    conn = Connection(ours.detach())
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    echo = threading.Thread(target=_echo, args=(process, tail), name=f"batch-{batch_id}-stderr")
    echo.start()
    try:
        conn.send(worker_config(quiet))
    except OSError:
        pass  # it died at once: its exit status and stderr say why
    finally:
        conn.close()
    code = process.wait()
    echo.join(timeout=10)
    return _settle(batch_id, code, tail)


def _echo(process: subprocess.Popen, tail: deque[str]) -> None:
    """Pass the child's stderr on to this process's, keeping its last lines."""
    for raw in process.stderr:
        line = raw.decode(errors="replace")
        if line.strip():
            tail.append(line.strip())
        sys.stderr.write(line)
    sys.stderr.flush()


def _settle(batch_id: int, code: int, tail: deque[str]) -> FreshOutcome:
    """No run of the batch stays queued or running once its child is gone."""
    from runs.engine.analysis.batches import batch_run_ids
    from runs.models import Batch, Run

    outcome = FreshOutcome(code)
    ids = batch_run_ids(Batch.objects.get(pk=batch_id))
    left = list(
        Run.objects.filter(pk__in=ids, status__in=(Run.Status.QUEUED, Run.Status.RUNNING))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if not left:
        return outcome
    how = f"was killed by signal {-code}" if code < 0 else f"exited ({code})"
    last = tail[-1] if tail else "no output"
    outcome.reason = f"the interpreter executing regression replay {batch_id} {how}: {last}"
    outcome.given_up = Run.objects.give_up(left, outcome.reason)
    logger.warning("rewind: %s; runs %s failed", outcome.reason, outcome.given_up)
    return outcome


# -- the child ----------------------------------------------------------------------------------


def child_entry() -> None:
    """``python -c FRESH_CODE FD BATCH``: set up as the parent says, execute the batch. (This
    module imports nothing of Django's at its top: the child imports it before set-up.)"""
    from runs.engine.execution.children import set_up

    conn = Connection(int(sys.argv[1]))
    try:
        config = conn.recv()
    except EOFError:
        sys.exit("no configuration came from the process that started this one")
    finally:
        conn.close()
    sys.path.extend(p for p in config.sys_path if p not in sys.path)
    set_up(config)
    execute_batch_here(int(sys.argv[2]))


def execute_batch_here(batch_id: int) -> list[int]:
    """In a process that imported the app just now: refuse the batch (fail its queued runs,
    saying what changed) when the code on disk is not the code it was made with, else execute
    its queued runs one after another. Returns the runs executed."""
    from runs.engine.analysis.batches import batch_run_ids
    from runs.engine.apps.registry import get_pipeline
    from runs.engine.apps.versions import check_version
    from runs.engine.execution.runner import LoadedApp
    from runs.engine.run_sets.here import execute_here
    from runs.models import Batch, Run

    batch = Batch.objects.get(pk=batch_id)
    ids = batch_run_ids(batch)
    try:
        app = get_pipeline(batch.pipeline)
        if batch.code_version:  # a regression replay's: the code it was made with
            check_version(batch.pipeline, app, batch.code_version, batch.code_parts or None)
    except RewindError as exc:
        reason = (
            f"refused, nothing executed: the {batch.pipeline} app's code on disk is not the "
            f"code regression replay {batch_id} was made with; make the replay again ({exc})"
        )
        Run.objects.give_up(ids, reason)
        return []
    queued = set(
        Run.objects.filter(pk__in=ids, status=Run.Status.QUEUED).values_list("pk", flat=True)
    )  # not the cancelled, nor those taken elsewhere
    loaded = LoadedApp(batch.pipeline, app, batch.code_version)
    executed = execute_here([pk for pk in ids if pk in queued], app=loaded)
    for pk, reason in executed.lost.items():
        logger.warning("rewind: regression replay %s, run %s: %s", batch_id, pk, reason)
    return list(executed.done)
