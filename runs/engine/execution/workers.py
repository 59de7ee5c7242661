"""A batch of queued runs executed by N ordinary queue workers (issue 17, item 7).

``run_on_workers(run_ids, workers=N, progress=callback)`` is the one way a batch fans out —
``rewind_replay --workers N`` uses it, and so can any other batch (counterfactuals): the runs
must exist, ``queued``. It starts N ``db_worker`` processes — the very worker a team runs on
its other machines (``manage.py db_worker --queue-name default``) — waits until each is ready,
enqueues the runs (``execution.queue.execute_run_task``), waits for every one to finish, calling
``progress(Done)`` as each does, and stops the workers it started. Workers already running
elsewhere on the same database take part too: the queue does not care whose worker claims a
task. Nothing of this process is shared with a worker but the database and its settings.

Each worker is ``python -c WORKER_CODE FD ID``: a fresh interpreter that reads a ``WorkerConfig``
(this process's databases and ``REWIND_*`` / ``TASKS`` settings — in a test, the test database
and the test's settings) from the socket ``FD``, sets Django up with it, loads the engine and the
batch's pipelines, says "ready" and then *is* ``call_command("db_worker", ...)`` under the
worker id ``ID``. It runs in a process group of its own, so a Ctrl-C at the terminal reaches only
this process, which decides:

- **Ctrl-C** (first): the runs no worker has taken are withdrawn (``queued → cancelled``, their
  task rows dequeued), the workers get SIGTERM — ``db_worker`` finishes the task in hand, then
  exits — and the runs in hand finish and are reported. A second Ctrl-C kills the workers at once;
  the runs they held are marked ``interrupted`` (resume or fork them). Either way no process is
  left behind and no run of the batch stays ``running`` or ``queued``.
- **A worker that dies** (killed, out of memory, ``os._exit``): its socket closes, so this process
  knows at once. The task rows it had claimed are closed as failed, its run is marked
  ``interrupted`` (the lease's verdict, without waiting ``REWIND_RUN_LEASE_SECONDS``: the process
  is known to be gone), then resumed once — re-queued, to continue after its last completed step —
  and a new worker replaces the dead one (at most N replacements per batch). A run interrupted
  twice is reported lost, with the reason. A run whose worker elsewhere died is found by the lease
  (``execution.queue.reap_dead_runs``, called here every lease/3 s) and resumed the same way. So every
  run of the batch ends accounted for: done, or lost with a reason.
- **A worker that recycles** (a step it gave up on still runs in it: ``execution.queue.recycle``)
  takes no other task and exits, whatever SIGTERM handler the app installed (``_Control``);
  it says so on its socket, and is killed if it is still up ``REWIND_WORKER_GRACE_SECONDS``
  later (an app's exit hook waiting for that step). A fresh worker takes its place. Stopping a
  worker says SIGTERM on the socket too, which an app's handler cannot swallow.
  ``rewind_serve``'s worker is one of these, supervised the same way.

Runs are enqueued only once every worker started is ready, so that startup (a fresh interpreter
importing Django, Burr and the engine, a second or two) is not part of a batch's throughput and
each worker gets a share from the first task: ``WorkersOutcome.startup_s`` and ``work_s``.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runs.engine.errors import RewindError
from runs.engine.execution.children import (  # noqa: F401 — re-exported: where they were
    WORKER_INTERVAL,
    WorkerConfig,
    child_env,
    set_up,
    worker_config,
)

if TYPE_CHECKING:
    from runs.models import Run

logger = logging.getLogger("rewind")

MAX_WORKERS = 32
MAX_RESUMES = 1  # a run interrupted (its worker died) is resumed once; twice, it is lost
POLL_SECONDS = 0.05  # how often the batch reads its runs' statuses (one query)
# Seconds a worker that stops after a step it gave up on (its recycling) has to exit before its
# supervisor kills it (REWIND_WORKER_GRACE_SECONDS): an app's SIGTERM handler or exit hook must
# not keep the loop it abandoned running.
GRACE_SECONDS = 5.0


def grace_seconds() -> float:
    from django.conf import settings

    return float(getattr(settings, "REWIND_WORKER_GRACE_SECONDS", GRACE_SECONDS))


def check_workers(workers: int) -> None:
    """One clear line for a worker count out of range (before anything is written)."""
    if not 1 <= workers <= MAX_WORKERS:
        raise RewindError(f"--workers must be between 1 and {MAX_WORKERS}, got {workers}")


@dataclass(frozen=True)
class Done:
    """A run of the batch that finished (completed, failed, or cancelled by someone), and the
    worker that executed it: its id on the queue and, when it is one this batch started, its
    pid (``None`` for a worker elsewhere)."""

    run: Run
    worker: str
    pid: int | None


@dataclass
class WorkersOutcome:
    """``done`` and ``lost`` (run id → why it could not finish) in the order the runs finished;
    ``withdrawn`` the runs no worker took before a Ctrl-C (now ``cancelled``); ``pids`` every
    worker process started (replacements included)."""

    done: dict[int, Done] = field(default_factory=dict)
    lost: dict[int, str] = field(default_factory=dict)
    withdrawn: list[int] = field(default_factory=list)
    interrupted: bool = False
    pids: list[int] = field(default_factory=list)
    startup_s: float = 0.0  # first worker started → every worker ready
    work_s: float = 0.0  # runs enqueued → the last one finished


# -- the worker process -------------------------------------------------------------------------


# The comment names the process as ``ps`` and ``pgrep db_worker`` find a deployment's workers.
WORKER_CODE = "from runs.engine.execution.workers import worker_entry; worker_entry()  # db_worker"


def worker_entry() -> None:
    """``python -c WORKER_CODE FD ID``: set up as the parent says, then be ``db_worker``."""
    conn = Connection(int(sys.argv[1]))
    try:
        config = conn.recv()
    except EOFError:
        return
    sys.path.extend(p for p in config.sys_path if p not in sys.path)
    set_up(config)
    _warm_up(config)
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()  # db_worker opens its own
    _Control(conn).start()
    conn.send(("ready", os.getpid()))  # the socket stays open: its closing is this process's end
    call_command(
        "db_worker",
        "--queue-name",
        "default",
        "--interval",
        config.interval,
        "--no-startup-delay",
        "--no-reload",
        "--worker-id",
        sys.argv[2],
        verbosity=0 if config.quiet else 1,
    )


def _warm_up(config: WorkerConfig) -> None:
    """Load the engine (Burr among it), the task and the batch's pipelines before saying
    "ready": that is starting up, not executing."""
    import runs.engine.analysis.diff
    import runs.engine.execution.queue  # noqa: F401 — imports the runner, and Burr with it
    from runs.engine.apps.registry import get_pipeline
    from runs.engine.calls import capture

    for name in config.pipelines:
        with suppress(Exception):  # one that does not load fails its runs, saying why
            get_pipeline(name)
    # What the first step would otherwise load: the capture's adapters (each imports the
    # library it wraps) and the credential scanner's rules — idle until a step runs.
    capture.install()


class _Control:
    """The worker's end of its socket, beside ``db_worker``'s loop, whatever SIGTERM handler the
    app installed when it was imported (a "graceful shutdown" that ignores or delays the exit
    takes ``db_worker``'s place, and ``execution.queue.recycle`` cannot stop the worker with it):

    - after each task, when a step the worker gave up on is still running in it, the loop takes
      no other task (``db_worker`` then returns and the process exits) and the supervisor is
      told ``("recycling", threads)``: should the exit not come (an exit hook of the app waiting
      for that step), the supervisor kills the process after ``grace_seconds()``;
    - ``("stop",)`` from the supervisor does what SIGTERM does to ``db_worker`` — finish the task
      in hand, take no other — when the app's handler would swallow the signal.

    ``db_worker``'s own handler, while in place, is left to act on its signal alone: it takes a
    loop already stopped for a second Ctrl-C and ends the task in hand."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.queue_worker: Any = None  # db_worker's loop, found by its signal handler
        self.sending = threading.Lock()  # the main thread and the listener both may send

    def start(self) -> None:
        from django.tasks.signals import task_finished, task_started

        task_started.connect(self._started, weak=False, dispatch_uid="rewind-worker-control")
        task_finished.connect(self._finished, weak=False, dispatch_uid="rewind-worker-control")
        threading.Thread(target=self._listen, name="rewind-worker-control", daemon=True).start()

    def _find(self) -> Any:
        """``db_worker``'s loop: the owner of the SIGTERM handler it installs before its first
        task (an app imported by a task may replace the handler afterwards)."""
        if self.queue_worker is None:
            owner = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
            if owner is not None and type(owner).__module__.startswith("django_tasks_db"):
                self.queue_worker = owner
        return self.queue_worker

    def _started(self, sender: Any, **kwargs: Any) -> None:
        self._find()

    def _finished(self, sender: Any, **kwargs: Any) -> None:
        from django.conf import settings

        from runs.engine.execution.watch import still_running

        threads = still_running()
        if not threads or not settings.REWIND_RECYCLE_WORKERS:
            return
        loop = self._find()
        if loop is not None and loop.running:  # the app's handler took the signal recycle sent
            logger.warning(
                "rewind: a step this worker gave up on is still running (%s) and the app "
                "replaced its SIGTERM handler: the worker takes no other task and stops",
                ", ".join(threads),
            )
            loop.running = False
        self._send(("recycling", ", ".join(threads)))

    def _listen(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                return  # the supervisor is gone: the worker goes on as any db_worker would
            loop = self._find()
            if message[0] != "stop" or loop is None:
                continue
            if getattr(signal.getsignal(signal.SIGTERM), "__self__", None) is not loop:
                loop.running = False  # db_worker's loop ends after the task in hand

    def _send(self, message: tuple) -> None:
        with self.sending, suppress(OSError):
            self.conn.send(message)


# -- this process -------------------------------------------------------------------------------


@dataclass
class Worker:
    """A worker process this process started, and its socket. It answers as the process's
    ``Popen`` does (``poll``, ``send_signal``, ``wait``, ``kill``, ``returncode``), so a
    supervisor that knows only those (``rewind_serve``'s) supervises it the same way."""

    id: str
    process: subprocess.Popen
    conn: Connection
    ready: bool = False
    stopping: bool = False  # this batch asked it to stop: its exit is expected
    gone: bool = False
    deadline: float | None = None  # recycling: killed if it is still up then
    killed: str = ""  # why this process killed it

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def heard(self, message: tuple) -> None:
        """What the worker said: ``("ready", pid)``, or ``("recycling", threads)`` — it stops
        after a step it gave up on, and has ``grace_seconds()`` to be gone."""
        if message[0] == "ready":
            self.ready = True
        elif message[0] == "recycling" and self.deadline is None:
            grace = grace_seconds()
            self.deadline = time.monotonic() + grace
            logger.warning(
                "rewind: worker process %s is recycling: a step it gave up on is still running "
                "(%s); it is killed if it has not exited in %g s",
                self.pid,
                message[1],
                grace,
            )

    def overdue(self) -> bool:
        """Kill the worker if it is recycling and still up past its grace; True if it was."""
        if self.deadline is None or time.monotonic() < self.deadline:
            return False
        if self.process.poll() is not None:
            return False
        self.killed = (
            f"worker process {self.pid} was killed: it had not exited {grace_seconds():g} s "
            "after it stopped for a step it gave up on (its app's SIGTERM handler or exit "
            "hooks kept it)"
        )
        logger.warning("rewind: %s", self.killed)
        with suppress(ProcessLookupError):
            self.process.kill()
        return True

    def poll(self) -> int | None:
        """What the worker said since, its grace enforced; its exit status once it exited."""
        try:
            while self.conn.poll(0):
                self.heard(self.conn.recv())
        except (EOFError, OSError):
            pass  # it exited or is about to: its status says which
        self.overdue()
        return self.process.poll()

    def send_signal(self, signum: int) -> None:
        """SIGTERM is also said on the socket (``("stop",)``), which an app's own handler
        cannot swallow: the worker finishes the task in hand and takes no other."""
        with suppress(ProcessLookupError):
            self.process.send_signal(signum)
        if signum == signal.SIGTERM:
            with suppress(OSError):
                self.conn.send(("stop",))

    def wait(self, timeout: float | None = None) -> int:
        return self.process.wait(timeout)

    def kill(self) -> None:
        with suppress(ProcessLookupError):
            self.process.kill()


def start_worker(
    config: WorkerConfig,
    worker_id: str,
    *,
    new_session: bool = False,
    cwd: str | Path | None = None,
) -> Worker:
    """A ``db_worker`` process on one end of a new socket pair; this process keeps the other.
    ``new_session``: in a session of its own (no terminal's signal reaches it), else in a
    process group of its own."""
    ours, theirs = socket.socketpair()
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", WORKER_CODE, str(theirs.fileno()), worker_id],
            pass_fds=[theirs.fileno()],
            env=child_env(),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=2,  # a pipeline that prints must not mix into --json on stdout
            # A Ctrl-C at the terminal is this process's to handle.
            process_group=None if new_session else 0,
            start_new_session=new_session,
        )
    finally:
        theirs.close()  # the worker's end lives in the worker: its exit closes the socket
    conn = Connection(ours.detach())
    with suppress(OSError):  # it died at once: the batch sees its socket closed
        conn.send(config)
    return Worker(worker_id, process, conn)


class _Interrupts:
    """Counts Ctrl-C while the batch runs instead of raising KeyboardInterrupt wherever this
    process happens to be (between reading a status and reporting it, say)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, signum: int, frame: Any) -> None:
        self.count += 1

    @contextmanager
    def installed(self) -> Iterator[_Interrupts]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = signal.signal(signal.SIGINT, self)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)


def check_queue() -> None:
    """Worker processes read the queue and the runs from the database: refuse, in one line,
    what they could not see."""
    from django.db import connection, connections
    from django.tasks import task_backends
    from django_tasks_db.backend import DatabaseBackend

    if connection.in_atomic_block:
        raise RewindError(
            "worker processes see only committed rows: run with one worker inside a transaction"
        )
    for alias in connections:
        db = connections[alias].settings_dict
        if connections[alias].vendor == "sqlite" and (
            str(db["NAME"]) in ("", ":memory:") or "mode=memory" in str(db["NAME"])
        ):
            raise RewindError(
                f"worker processes cannot open the in-memory database {alias!r}: use one worker"
            )
    if not isinstance(task_backends["default"], DatabaseBackend):
        raise RewindError(
            "--workers needs the database task queue (REWIND_TASKS_BACKEND="
            "django_tasks_db.DatabaseBackend)"
        )


def run_on_workers(
    run_ids: list[int],
    workers: int,
    *,
    progress: Callable[[Done], None] | None = None,
    quiet: bool = False,
) -> WorkersOutcome:
    """Execute the queued runs ``run_ids`` on ``min(workers, len(run_ids))`` queue workers
    started for the batch (and any worker already serving the queue), calling
    ``progress(done)`` in this process as each run finishes; stop the workers; return what
    happened to every run. Ctrl-C — or a KeyboardInterrupt raised by ``progress`` — withdraws
    the runs no worker took and lets the ones in hand finish; a second one kills the workers.
    """
    from runs.models import Run

    check_workers(workers)
    outcome = WorkersOutcome()
    if not run_ids:
        return outcome
    check_queue()
    pipelines = sorted(set(Run.objects.filter(pk__in=run_ids).values_list("pipeline", flat=True)))
    batch = _Batch(run_ids, worker_config(quiet, pipelines), outcome, progress)
    try:
        with _Interrupts().installed() as interrupts:
            batch.run(min(workers, len(run_ids)), interrupts)
    finally:
        batch.shut_down()
    return outcome


class _Batch:
    """This process's side: start workers, enqueue, watch statuses, notice deaths, stop."""

    def __init__(self, run_ids, config, outcome, progress) -> None:
        self.run_ids: list[int] = list(dict.fromkeys(run_ids))
        self.config: WorkerConfig = config
        self.outcome: WorkersOutcome = outcome
        self.progress = progress
        self.pool: list[Worker] = []
        self.pending: set[int] = set(self.run_ids)
        self.tasks: dict[int, str] = {}  # run id → its current task row id
        self.resumed: dict[int, int] = {}  # run id → times resumed
        self.replacements = 0
        self.size = 0
        self.stopping = False
        self.interrupts_seen = 0
        self.tag = f"rewind-batch-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.next_reap = time.monotonic()

    # -- the workers --

    def live(self) -> list[Worker]:
        return [w for w in self.pool if not w.gone]

    def start(self) -> Worker:
        worker = start_worker(self.config, f"{self.tag}-{len(self.pool)}")
        self.pool.append(worker)
        self.outcome.pids.append(worker.pid)
        return worker

    def listen(self, timeout: float) -> None:
        """Read what the workers say ("ready") and notice the ones whose socket closed."""
        by_conn = {w.conn: w for w in self.live()}
        if not by_conn:
            time.sleep(timeout)
            return
        for conn in wait(list(by_conn), timeout=timeout):
            worker = by_conn[conn]
            try:
                message = conn.recv()
            except (EOFError, OSError):
                self.exited(worker)
                continue
            worker.heard(message)
        for worker in self.live():
            worker.overdue()  # killed: its socket closes, and the next look settles it

    def exited(self, worker: Worker) -> None:
        """A worker's socket closed: it has exited or is about to. Whatever it had claimed is
        settled here: its task rows closed, its run interrupted (resumed later if the batch
        goes on), a run it claimed the task of but never started enqueued again."""
        if worker.gone:
            return
        worker.gone = True
        try:
            code = worker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # its socket closed but the process lingers
            worker.process.kill()
            code = worker.process.wait()
        if not worker.ready and not worker.stopping:
            raise RewindError(
                f"worker process {worker.pid} could not start (exit status {code}); "
                "its output is above"
            )
        how = f"was killed by signal {-code}" if code < 0 else f"exited ({code})"
        self.settle(
            worker, worker.killed or f"worker process {worker.pid} {how} while executing this run"
        )
        if not worker.stopping and not self.stopping and self.pending:
            if self.replacements < self.size:
                self.replacements += 1
                self.start()  # it takes work as soon as it is up

    def settle(self, worker: Worker, reason: str) -> None:
        from django.tasks import TaskResultStatus
        from django.utils import timezone
        from django_tasks_db.models import DBTaskResult

        from runs.models import Run

        # Its tasks among the batch's unfinished runs (whatever their status: a worker stopped
        # twice records its task failed itself, and leaves the run running all the same).
        held = [
            (task_id, run_id)
            for task_id, run_id, ids in DBTaskResult.objects.filter(
                id__in=[self.tasks[pk] for pk in self.pending if pk in self.tasks]
            ).values_list("id", "args_kwargs__args__0", "worker_ids")
            if ids and ids[-1] == worker.id
        ]
        if not held:
            return
        DBTaskResult.objects.filter(
            id__in=[task_id for task_id, _ in held], status=TaskResultStatus.RUNNING
        ).update(status=TaskResultStatus.FAILED, finished_at=timezone.now())
        run_ids = [run_id for _, run_id in held]
        Run.objects.interrupt(
            run_ids, f"{reason}; completed steps are kept: resume or fork the run"
        )
        for pk in Run.objects.filter(pk__in=run_ids, status=Run.Status.QUEUED).values_list(
            "pk", flat=True
        ):  # it claimed the task, never the run: the run needs a task again
            if self.stopping:
                self.withdraw([pk])
            else:
                self.enqueue(pk)

    # -- the runs --

    def enqueue(self, pk: int) -> None:
        from runs.engine.execution.queue import execute_run_task

        self.tasks[pk] = str(execute_run_task.enqueue(pk).id)

    def withdraw(self, pks: list[int]) -> None:
        from django.tasks import TaskResultStatus
        from django_tasks_db.models import DBTaskResult

        from runs.models import Run

        withdrawn = Run.objects.withdraw(pks, "withdrawn: the batch was interrupted (Ctrl-C)")
        DBTaskResult.objects.filter(
            id__in=[self.tasks[pk] for pk in withdrawn if pk in self.tasks],
            status=TaskResultStatus.READY,
        ).delete()  # dequeued: no worker needs to look at them
        self.outcome.withdrawn.extend(withdrawn)
        self.pending.difference_update(withdrawn)

    def collect(self) -> None:
        """One query for the statuses of the runs not reported yet; report the finished ones
        (in the order given), resume or give up the interrupted ones."""
        from django_tasks_db.models import DBTaskResult

        from runs.models import Run

        finished = {Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.CANCELLED}
        statuses = dict(Run.objects.filter(pk__in=self.pending).values_list("pk", "status"))
        ended = [pk for pk in self.run_ids if statuses.get(pk) in finished]
        if ended:
            runs = Run.objects.in_bulk(ended)
            by = {
                str(task_id): worker_ids
                for task_id, worker_ids in DBTaskResult.objects.filter(
                    id__in=[self.tasks[pk] for pk in ended if pk in self.tasks]
                ).values_list("id", "worker_ids")
            }
            pids = {w.id: w.pid for w in self.pool}
            for pk in ended:
                ids = by.get(self.tasks.get(pk), None) or [""]
                self.report(Done(runs[pk], ids[-1], pids.get(ids[-1])))
        for pk in self.run_ids:
            if statuses.get(pk) == Run.Status.INTERRUPTED and pk in self.pending:
                self.retry(pk)

    def report(self, done: Done) -> None:
        self.pending.discard(done.run.pk)
        self.outcome.done[done.run.pk] = done
        if self.progress is not None:
            try:
                self.progress(done)
            except KeyboardInterrupt:
                self.interrupt()

    def retry(self, pk: int) -> None:
        from runs.models import Run

        error = Run.objects.filter(pk=pk).values_list("error", flat=True).first() or ""
        if self.stopping or self.resumed.get(pk, 0) >= MAX_RESUMES:
            self.pending.discard(pk)
            self.outcome.lost[pk] = (
                f"run {pk} is interrupted"
                + (f" (resumed {self.resumed[pk]} time(s) before)" if pk in self.resumed else "")
                + f": {error}"
            )
            return
        if Run.objects.requeue(pk):
            self.resumed[pk] = self.resumed.get(pk, 0) + 1
            self.enqueue(pk)

    def reap(self) -> None:
        """Every lease/3 s, what every worker does before a task: runs whose worker elsewhere
        stopped beating are marked interrupted (and so resumed by ``collect``)."""
        from django.conf import settings

        from runs.engine.execution.queue import reap_dead_runs

        if time.monotonic() >= self.next_reap:
            self.next_reap = time.monotonic() + max(1.0, settings.REWIND_RUN_LEASE_SECONDS / 3)
            reap_dead_runs()

    # -- the batch --

    def run(self, size: int, interrupts: _Interrupts) -> None:
        began = time.perf_counter()
        self.size = size
        for _ in range(size):
            self.start()
        while not all(w.ready for w in self.pool):
            self.listen(POLL_SECONDS)
            if self.ctrl_c(interrupts):
                self.withdraw(self.run_ids)  # nothing was enqueued yet
                return
        self.outcome.startup_s = time.perf_counter() - began
        released = time.perf_counter()
        for pk in self.run_ids:
            self.enqueue(pk)
        while self.pending:
            self.listen(POLL_SECONDS)
            self.ctrl_c(interrupts)
            self.collect()
            self.reap()
            if not self.live() and self.pending:
                self.orphaned()
        self.outcome.work_s = time.perf_counter() - released

    def ctrl_c(self, interrupts: _Interrupts) -> bool:
        while self.interrupts_seen < interrupts.count:
            self.interrupts_seen += 1
            self.interrupt()
        return self.outcome.interrupted

    def interrupt(self) -> None:
        """The first Ctrl-C: withdraw what no worker took, ask the workers to stop after the
        task in hand. The second: kill them (their runs are then interrupted)."""
        if self.outcome.interrupted:
            for worker in self.live():
                worker.process.kill()
            for worker in self.live():
                self.exited(worker)
            return
        self.outcome.interrupted = self.stopping = True
        self.withdraw(sorted(self.pending))
        for worker in self.live():
            worker.stopping = True
            worker.send_signal(signal.SIGTERM)

    def orphaned(self) -> None:
        """No worker of this batch is left (and no replacement may start). Runs queued wait
        for a worker elsewhere only while one is executing another run of the batch."""
        from runs.models import Run

        statuses = dict(Run.objects.filter(pk__in=self.pending).values_list("pk", "status"))
        if Run.Status.RUNNING in statuses.values():
            return  # a worker elsewhere is at it: its end (or its lease) settles it
        queued = [pk for pk, status in statuses.items() if status == Run.Status.QUEUED]
        if not queued:
            return
        self.stopping = True
        withdrawn = Run.objects.withdraw(
            queued, "withdrawn: every worker of the batch died before taking it"
        )
        self.pending.difference_update(withdrawn)
        codes = ", ".join(str(w.process.returncode) for w in self.pool)
        for pk in withdrawn:
            self.outcome.lost[pk] = f"not executed: every worker process died (exit status {codes})"

    def shut_down(self) -> None:
        """Leave no process behind and no run of the batch running on a worker that is gone."""
        for worker in self.live():
            worker.stopping = True
            worker.send_signal(signal.SIGTERM)
        for worker in self.pool:
            try:
                worker.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
        self.stopping = True
        for worker in self.pool:
            if not worker.gone:
                worker.gone = True
                with suppress(Exception):  # an error already on its way out wins
                    self.settle(worker, f"worker process {worker.pid} was stopped")
            worker.conn.close()
