"""``rewind_serve``: a taken or invalid port is a clear error, never a uvicorn traceback; the
first start creates the local user and prints its password once; one worker is started beside
the server (unless ``--no-worker``) and stopped when the server returns, however it returns.

In-process tests never start a server or a worker: ``uvicorn.run`` and ``start_worker`` are
replaced by recorders, so a path that wrongly gets as far as serving records the call instead
of blocking the suite or leaving a process behind. The signal tests at the end (issue 7,
finding 5) start the real command in a subprocess on 127.0.0.1; every process they start is
killed when the test ends, whatever happened.
"""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory

from runs.management.commands.rewind_serve import port_is_free

PASSWORD_LINE = re.compile(r"created the user 'rewind' with password (\S+)")


class FakeWorker:
    """Stands in for the worker's ``subprocess.Popen``: records how it is stopped."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.signals: list[int] = []
        self.waited = False
        self.killed = False

    def poll(self) -> int | None:
        return self.returncode

    def send_signal(self, sig: int) -> None:
        self.signals.append(sig)
        self.returncode = -sig  # it exits on SIGTERM

    def wait(self, timeout: float | None = None) -> int | None:
        self.waited = True
        return self.returncode

    def kill(self) -> None:
        self.killed = True

    @property
    def stopped(self) -> bool:
        return self.signals == [signal.SIGTERM] and self.waited


@pytest.fixture(autouse=True)
def workers(monkeypatch) -> list[FakeWorker]:
    """Every worker the command started, in order."""
    started: list[FakeWorker] = []

    def fake_start_worker() -> FakeWorker:
        worker = FakeWorker()
        started.append(worker)
        return worker

    monkeypatch.setattr("runs.management.commands.rewind_serve.start_worker", fake_start_worker)
    return started


class Served(list):
    """The calls that would have started uvicorn; ``during`` runs inside the fake server
    (e.g. to raise what Ctrl-C raises)."""

    during: Callable[[], None] | None = None


@pytest.fixture(autouse=True)
def served(monkeypatch, workers) -> Served:
    """Every call that would have started uvicorn, with its arguments."""
    calls = Served()

    def fake_run(app: str, **kwargs: Any) -> None:
        # Record only the arguments, so the existing equality checks stay exact; what was
        # running at that moment is checked through ``workers`` inside ``during``.
        calls.append({"app": app, **kwargs})
        if calls.during is not None:
            calls.during()

    monkeypatch.setattr("uvicorn.run", fake_run)
    monkeypatch.delenv("REWIND_PORT", raising=False)
    return calls


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port held by a listening socket for the duration of the test."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        yield holder.getsockname()[1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_error(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("rewind_serve", *args, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message


def test_port_is_free_is_false_for_a_port_in_use(taken_port):
    assert port_is_free("127.0.0.1", taken_port) is False


def test_port_is_free_is_true_for_a_free_port():
    assert port_is_free("127.0.0.1", free_port()) is True


def test_port_is_free_is_false_when_held_on_every_interface():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("0.0.0.0", 0))
        holder.listen(1)
        assert port_is_free("127.0.0.1", holder.getsockname()[1]) is False


def test_a_taken_port_is_a_clear_error(taken_port, served, workers):
    message = serve_error("--port", str(taken_port))

    assert f"port {taken_port} on 127.0.0.1 is already in use" in message
    assert "--port" in message
    assert served == []
    assert workers == []  # nothing started for a server that cannot start


def test_a_taken_port_from_rewind_port_is_a_clear_error(taken_port, served, monkeypatch):
    monkeypatch.setenv("REWIND_PORT", str(taken_port))

    message = serve_error()

    assert f"port {taken_port}" in message and "REWIND_PORT" in message
    assert served == []


@pytest.mark.parametrize("port", ["70000", "65536", "-1"])
def test_a_port_out_of_range_is_rejected(port, served):
    message = serve_error("--port", port)

    assert message == f"--port must be between 1 and 65535, got {port}"
    assert served == []


def test_a_port_that_is_not_a_number_is_rejected(served):
    assert "--port" in serve_error("--port", "http")
    assert served == []


def test_port_zero_is_rejected(served):
    message = serve_error("--port", "0")

    assert message == "--port must be between 1 and 65535, got 0"
    assert served == []


@pytest.mark.parametrize("host", ["no-such-host.invalid", "192.0.2.1"])
def test_a_host_that_cannot_be_bound_is_a_clear_error(host, served):
    message = serve_error("--host", host, "--port", str(free_port()))

    assert host in message and "--host" in message
    assert served == []


def serve(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_serve", "--port", str(free_port()), *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_free_port_is_served(served, workers):
    port = free_port()
    out = io.StringIO()

    call_command("rewind_serve", "--port", str(port), stdout=out)

    from runs.management.commands.rewind_serve import SHUTDOWN_GRACE_SECONDS

    assert served == [
        {
            "app": "rewind_site.asgi:application",
            "host": "127.0.0.1",
            "port": port,
            "log_level": "warning",
            "timeout_graceful_shutdown": SHUTDOWN_GRACE_SECONDS,
        }
    ]
    assert f"http://127.0.0.1:{port}/runs/ with one worker" in out.getvalue()
    assert len(workers) == 1


# --- the local user --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_first_start_creates_a_user_and_prints_its_password_once():
    output = serve()

    user = get_user_model().objects.get()
    assert user.username == "rewind"
    assert user.is_staff and user.is_superuser  # may change settings and use the admin
    (password,) = PASSWORD_LINE.findall(output)
    assert output.count(password) == 1
    assert len(password) >= 12
    assert user.password != password  # stored hashed, never in clear
    assert (
        authenticate(RequestFactory().post("/login/"), username="rewind", password=password) == user
    )


@pytest.mark.django_db
def test_a_second_start_creates_no_user_and_prints_no_password():
    first = serve()
    (password,) = PASSWORD_LINE.findall(first)

    second = serve()

    assert get_user_model().objects.count() == 1
    assert "password" not in second
    assert authenticate(
        RequestFactory().post("/login/"), username="rewind", password=password
    )  # same


@pytest.mark.django_db
def test_no_user_is_created_when_one_exists_already(django_user_model):
    django_user_model.objects.create_user("ada", password="x" * 12)

    output = serve()

    assert list(django_user_model.objects.values_list("username", flat=True)) == ["ada"]
    assert "password" not in output


@pytest.mark.django_db
def test_each_install_gets_its_own_password(django_user_model):
    first = PASSWORD_LINE.findall(serve())
    django_user_model.objects.all().delete()
    second = PASSWORD_LINE.findall(serve())

    assert first and second and first != second


# --- the worker ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_worker_runs_while_serving_and_is_stopped_after(served, workers):
    seen: list[bool] = []
    served.during = lambda: seen.append(len(workers) == 1 and workers[0].poll() is None)

    serve()

    assert seen == [True]  # started before the server, still up while it served
    (worker,) = workers
    assert worker.stopped  # SIGTERM, then waited for: it finishes the step in hand
    assert not worker.killed


@pytest.mark.django_db
def test_the_worker_is_stopped_when_the_server_is_interrupted(served, workers):
    def interrupt() -> None:
        raise KeyboardInterrupt

    served.during = interrupt

    with pytest.raises(CommandError, match="interrupted"):
        serve()

    (worker,) = workers
    assert worker.stopped


@pytest.mark.django_db
def test_the_worker_is_stopped_when_the_server_fails(served, workers):
    def crash() -> None:
        raise OSError("address family not supported")

    served.during = crash

    with pytest.raises(OSError):
        serve()

    (worker,) = workers
    assert worker.stopped


@pytest.mark.django_db
def test_a_worker_that_already_exited_is_not_signalled(served, workers):
    def worker_dies() -> None:
        workers[0].returncode = 1

    served.during = worker_dies

    serve()

    (worker,) = workers
    assert worker.signals == [] and not worker.killed


@pytest.mark.django_db
def test_no_worker_starts_no_worker(served, workers):
    output = serve("--no-worker")

    assert workers == []
    assert len(served) == 1  # the dashboard is still served
    assert "with one worker" not in output
    assert "/runs/" in output


@pytest.mark.django_db
def test_a_stop_signal_while_serving_stops_the_worker_and_exits_cleanly(served, workers):
    from runs.management.commands.rewind_serve import Stopped

    def sigterm() -> None:
        raise Stopped(signal.SIGTERM)  # what the handler raises once uvicorn has shut down

    served.during = sigterm

    output = serve()  # no CommandError: stopping a server on request is no failure

    (worker,) = workers
    assert worker.stopped
    assert "stopped (SIGTERM): the server and its worker are down" in output


# --- stop_worker, on real processes ------------------------------------------------------------

STUBBORN = (
    "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); time.sleep(60)"
)


@pytest.fixture
def stubborn() -> Iterator[subprocess.Popen]:
    """A process that ignores SIGTERM (a worker stuck in a long step)."""
    process = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "ready"
        yield process
    finally:
        process.kill()
        process.wait(timeout=10)


def test_a_worker_that_ignores_sigterm_is_killed_after_the_timeout(stubborn):
    from runs.management.commands.rewind_serve import stop_worker

    started = time.monotonic()
    stop_worker(stubborn, timeout=1.0)

    assert stubborn.returncode == -signal.SIGKILL
    assert 1.0 <= time.monotonic() - started < 5


def test_a_second_signal_kills_the_worker_at_once(stubborn):
    from runs.management.commands.rewind_serve import stop_worker

    started = time.monotonic()
    stop_worker(stubborn, timeout=60.0, hurry=lambda: True)

    assert stubborn.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 5


# --- the real server: SIGTERM, SIGINT and SIGHUP stop it and its worker -------------------------

PROJECT_ROOT = Path(__file__).resolve().parents[3]
PROC = Path("/proc")


def proc_state(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process from /proc; None once it is gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    state, ppid = stat.rsplit(")", 1)[1].split()[:2]
    return state, int(ppid)


def is_running(pid: int) -> bool:
    state = proc_state(pid)
    return state is not None and state[0] not in ("Z", "X")  # a zombie has stopped


def workers_of(pid: int) -> list[int]:
    """The ``db_worker`` processes whose parent is ``pid``."""
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        state = proc_state(int(entry.name))
        if state is None or state[1] != pid:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"db_worker" in cmdline:
            found.append(int(entry.name))
    return found


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"{what} within {timeout} s")


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def served_database(tmp_path_factory) -> dict[str, str]:
    """The environment of a real ``rewind_serve``: its own migrated SQLite file."""
    root = tmp_path_factory.mktemp("serve")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REWIND_", "DJANGO_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{root / 'db.sqlite3'}",
        DJANGO_SETTINGS_MODULE="rewind_site.settings",
        REWIND_ARTIFACT_DIR=str(root / "artifacts"),
        PYTHONUNBUFFERED="1",
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=PROJECT_ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    return env


@pytest.mark.skipif(not (PROC / "self" / "stat").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(
    "stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name
)
def test_a_stop_signal_stops_the_real_server_and_its_worker(stop, served_database, tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "rewind_serve", "--port", str(port)],
            cwd=PROJECT_ROOT,
            env=served_database,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a signal to the test's group never reaches it
        )
    workers: list[int] = []
    try:
        wait_for(lambda: answers(f"http://127.0.0.1:{port}/api/health"), 60, "the server answers")
        workers = wait_for(lambda: workers_of(server.pid), 30, "the worker starts")

        os.kill(server.pid, stop)

        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server is still up 30 s after {stop.name}:\n{log.read_text()}")
        wait_for(
            lambda: not any(is_running(pid) for pid in workers),
            5,
            f"every worker stops after {stop.name} (left running: {workers})",
        )
        output = log.read_text()
        assert server.returncode == 0, output
        assert f"stopped ({stop.name}): the server and its worker are down" in output
        assert "Traceback" not in output
    finally:
        for pid in (server.pid, *workers):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        server.wait(timeout=10)


@pytest.mark.django_db
def test_the_dashboard_logs_as_configured_while_serving_from_a_shell(served, caplog):
    """Commands run from a shell hold the engine's logs and silence Burr's while they run;
    the server does not: what the dashboard logs while it serves is written as it happens."""
    import logging

    from runs.management.commands.rewind_serve import Command

    seen: list[list[str]] = []

    def log_while_serving() -> None:
        logging.getLogger("rewind.runner").warning("a run failed in the dashboard")
        logging.getLogger("burr.core.application").error("burr says")
        seen.append([r.getMessage() for r in caplog.records])

    served.during = log_while_serving
    caplog.set_level(logging.WARNING)
    command = Command(stdout=io.StringIO(), stderr=io.StringIO())
    command._called_from_command_line = True  # as manage.py runs it

    command.execute(
        host="127.0.0.1",
        port=free_port(),
        no_worker=True,
        verbosity=1,
        traceback=False,
        no_color=True,
        force_color=False,
        skip_checks=True,
    )

    assert seen == [["a run failed in the dashboard", "burr says"]]
