from __future__ import annotations

import errno
import itertools
import os
import secrets
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from rewind_site.env import env_int
from runs.management.base import RewindCommand

if TYPE_CHECKING:
    from runs.engine.execution.workers import Worker

# How long a stopping server waits for open connections (event streams) before closing them.
SHUTDOWN_GRACE_SECONDS = 3
WATCH_SECONDS = 0.5  # how often the supervisor looks at its worker
WORKER_INTERVAL = "0.2"  # how often the idle worker looks for a task
_worker_ids = itertools.count()


def port_is_free(host: str, port: int) -> bool:
    """True if ``host:port`` can be bound now. A host that cannot be bound at all is a
    CommandError naming it, not a traceback."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror:
        raise CommandError(f"--host {host!r} is not an address this machine can resolve") from None
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise CommandError(f"cannot bind --host {host!r}: {exc.strerror}") from None
    return True


def ensure_local_user(stdout) -> None:
    """On first start, make a local staff user with a random password and say how to sign in.
    The password is printed once and never stored in clear; no two installs share one."""
    from django.contrib.auth import get_user_model

    users = get_user_model()
    if users.objects.exists():
        return
    password = secrets.token_urlsafe(12)
    users.objects.create_superuser("rewind", email="", password=password)
    stdout.write(
        "First start: created the user 'rewind' with password "
        f"{password}\n  (shown once; change it with: .venv/bin/python manage.py changepassword rewind)"
    )


def start_worker() -> Worker:
    """One background worker, a child of this process, for the runs the dashboard starts: the
    queue worker a batch starts (``runs.engine.execution.workers``), configured as this server
    is, on a socket that lets the supervisor stop it whatever SIGTERM handler the app
    installed, and kill it when a step it gave up on keeps it from exiting.

    It runs in a session of its own, so a Ctrl-C on the terminal reaches only the server, which
    then stops it once (a second signal would make the worker abandon the step in hand), and
    without the autoreloader (which would put the real worker in a grandchild)."""
    from runs.engine.execution import workers

    return workers.start_worker(
        workers.worker_config(interval=WORKER_INTERVAL),
        f"rewind-serve-{os.getpid()}-{next(_worker_ids)}",
        new_session=True,
        cwd=settings.BASE_DIR,
    )


class Supervisor(threading.Thread):
    """Beside the server: restarts the worker when it exited — it died, or stopped after a step
    it gave up on (killed when it did not exit in ``REWIND_WORKER_GRACE_SECONDS``) — and marks
    runs whose worker stopped beating as interrupted, so nothing stays ``running`` forever."""

    def __init__(self, worker: Worker | None, stdout) -> None:
        super().__init__(name="rewind-supervisor", daemon=True)
        self.worker, self.stdout = worker, stdout
        self.stopped = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from runs.engine.apps.registry import load_all
        from runs.tasks import reap_dead_runs

        interval = max(1.0, settings.REWIND_RUN_LEASE_SECONDS / 3)
        try:
            for name, why in load_all().items():  # the first page then finds them imported
                self.stdout.write(f"pipeline {name} cannot be loaded: {why}")
            reap_at = time.monotonic() + interval
            while not self.stopped.wait(WATCH_SECONDS):
                # poll() also reads what the worker said and kills it once its grace is over.
                if self.worker is not None and self.worker.poll() is not None:
                    self.stdout.write(f"worker exited ({self.worker.returncode}); starting another")
                    self.worker = start_worker()
                if time.monotonic() < reap_at:
                    continue
                reap_at = time.monotonic() + interval
                try:
                    reap_dead_runs()
                except Exception as exc:  # noqa: BLE001 — a busy database must not end the loop
                    self.stdout.write(f"supervisor: {exc}")
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


def stop_worker(
    worker: Worker | subprocess.Popen,
    timeout: float = 15.0,
    hurry: Callable[[], bool] = lambda: False,
) -> None:
    """SIGTERM (the worker finishes the step in hand, then exits; said on its socket too, so an
    app's own SIGTERM handler cannot keep it), then SIGKILL after ``timeout`` seconds, or at
    once when ``hurry()`` turns true (a second Ctrl-C)."""
    if worker.poll() is not None:
        return
    worker.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while True:
        try:
            worker.wait(timeout=0.2)
            return
        except subprocess.TimeoutExpired:
            if hurry() or time.monotonic() >= deadline:
                worker.kill()
                worker.wait()
                return


class Stopped(Exception):
    """A stop signal reached the server."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """SIGINT, SIGTERM and SIGHUP stop the server and everything it started, however they
    arrive. Without this, SIGHUP killed the server at once and SIGTERM killed it after uvicorn's
    shutdown (uvicorn raises the signal again with the default handler), both before the
    worker could be stopped: it was left running, re-parented.

    While uvicorn serves it handles SIGINT and SIGTERM itself (a graceful shutdown) and then
    raises the signal again, which lands here as ``Stopped``; a SIGHUP meanwhile is turned into
    uvicorn's graceful shutdown too. Outside uvicorn a signal raises ``Stopped`` at once. Once
    stopping, another signal only asks to hurry (kill the worker rather than wait for it)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.received: int | None = None
        self.deferred = False  # while a worker is being started: note the signal, raise after
        self.stopping = False
        self.hurry = False

    def __enter__(self) -> StopSignals:
        self.installed = threading.current_thread() is threading.main_thread()
        if self.installed:
            self.previous = {sig: signal.signal(sig, self.handle) for sig in self.SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        if self.installed:
            for sig, handler in self.previous.items():
                signal.signal(sig, handler)

    def handle(self, signum: int, frame: object) -> None:
        if self.stopping:
            self.hurry = True
            return
        if self.received is None:
            self.received = signum
        if self.deferred:
            return
        if signal.getsignal(signal.SIGTERM) != self.handle:  # uvicorn is serving
            signal.raise_signal(signal.SIGTERM)  # its graceful shutdown, then back here
            return
        self.stop_if_received()

    def stop_if_received(self) -> None:
        if self.received is not None:
            self.stopping = True
            raise Stopped(self.received)


class Command(RewindCommand):
    quiet_logs = False  # the dashboard's logging is its own, for as long as it serves
    help = (
        "Serve the dashboard (ASGI, uvicorn) on 127.0.0.1 with one background worker; "
        "Ctrl-C stops both."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)"
        )
        parser.add_argument(
            "--port",
            type=int,
            default=None,
            help="port to bind (default: REWIND_PORT or 8000)",
        )
        parser.add_argument(
            "--no-worker",
            action="store_true",
            help="do not start a worker (run `manage.py db_worker` processes yourself)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        host = options["host"]
        port = options["port"]
        if port is None:
            port = env_int("REWIND_PORT", 8000, minimum=1, maximum=65535)
        if not 0 < port < 65536:
            raise CommandError(f"--port must be between 1 and 65535, got {port}")
        if not port_is_free(host, port):
            raise CommandError(
                f"port {port} on {host} is already in use; pick another with --port N "
                "(or REWIND_PORT=N)"
            )
        ensure_local_user(self.stdout)
        with StopSignals() as signals:
            try:
                self.serve(host, port, signals, with_worker=not options["no_worker"])
            except Stopped as stop:
                self.stdout.write(
                    f"stopped ({stop}): the server"
                    + (" and its worker are" if not options["no_worker"] else " is")
                    + " down"
                )

    def serve(self, host: str, port: int, signals: StopSignals, with_worker: bool) -> None:
        import uvicorn

        supervisor = Supervisor(None, self.stdout)
        try:
            signals.deferred = True  # a signal now must not lose the worker being started
            try:
                supervisor.worker = start_worker() if with_worker else None
            finally:
                signals.deferred = False
            signals.stop_if_received()
            self.stdout.write(
                f"Rewind dashboard on http://{host}:{port}/runs/"
                + (" with one worker" if supervisor.worker else "")
                + "  (Ctrl-C stops it)"
            )
            supervisor.start()
            uvicorn.run(
                "rewind_site.asgi:application",
                host=host,
                port=port,
                log_level="warning",
                # An open event stream (a browser on a running run) would hold the shutdown,
                # and the worker with it, for as long as the tab stays open.
                timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
            )
        finally:
            signals.stopping = True  # from here a signal only hurries the shutdown
            if supervisor.is_alive():
                supervisor.stop()
            if supervisor.worker is not None:
                stop_worker(supervisor.worker, hurry=lambda: signals.hurry)
