from __future__ import annotations

import errno
import secrets
import signal
import socket
import subprocess
import sys
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from rewind_site.env import env_int
from runs.management.base import RewindCommand


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


def start_worker() -> subprocess.Popen:
    """One background worker, a child of this process, for the runs the dashboard starts."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--queue-name", "default", "--interval", "0.2"],
        cwd=settings.BASE_DIR,
    )


class Supervisor(threading.Thread):
    """Beside the server: restarts the worker if it died and marks runs whose worker stopped
    beating as interrupted, so nothing stays ``running`` forever."""

    def __init__(self, worker: subprocess.Popen | None, stdout) -> None:
        super().__init__(name="rewind-supervisor", daemon=True)
        self.worker, self.stdout = worker, stdout
        self.stopped = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from runs.tasks import reap_dead_runs

        interval = max(1.0, settings.REWIND_RUN_LEASE_SECONDS / 3)
        try:
            while not self.stopped.wait(interval):
                if self.worker is not None and self.worker.poll() is not None:
                    self.stdout.write(f"worker exited ({self.worker.returncode}); starting another")
                    self.worker = start_worker()
                try:
                    reap_dead_runs()
                except Exception as exc:  # noqa: BLE001 — a busy database must not end the loop
                    self.stdout.write(f"supervisor: {exc}")
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


def stop_worker(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)  # finishes the step in hand, then exits
        try:
            worker.wait(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


class Command(RewindCommand):
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
        import uvicorn

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
        worker = None if options["no_worker"] else start_worker()
        self.stdout.write(
            f"Rewind dashboard on http://{host}:{port}/runs/"
            + (" with one worker" if worker else "")
            + "  (Ctrl-C stops it)"
        )
        supervisor = Supervisor(worker, self.stdout)
        supervisor.start()
        try:
            uvicorn.run("rewind_site.asgi:application", host=host, port=port, log_level="warning")
        finally:
            supervisor.stop()
            if supervisor.worker is not None:
                stop_worker(supervisor.worker)
