"""Shared fixtures for tests that create and execute runs.

Every fixture that runs a pipeline points ``REWIND_ARTIFACT_DIR`` at the test's own temp
directory and forces the offline in-process simulator (no network, no key), whatever the
environment of the machine running the suite says.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.providers.config import KEY_VARIABLES
from runs.engine.providers.simulator import SIMULATOR_MODEL, Simulator, SimulatorOptions
from runs.models import Run
from runs.tests.helpers.flush_order import delete_children_first

# Django's default hasher spends ~1 s of CPU per password by design; the suite creates users in
# most fixtures, so it hashes with MD5 instead (test passwords protect nothing).
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS
    # The benchmark's apps (loop, relay, nine) are test apps too; production settings omit them.
    from runs.bench.pipelines import register

    register()


@pytest.fixture(autouse=True)
def _children_deleted_first(request: pytest.FixtureRequest) -> Iterator[None]:
    """A transactional test on SQLite ends by deleting its rows children first, before
    Django's flush (see ``flush_order``): set up after the test's database, torn down before."""
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in request.fixturenames for name in ("transactional_db", "live_server")
    )
    if not transactional:
        yield
        return
    request.getfixturevalue("_django_db_helper")
    from django.db import connection

    yield
    if connection.vendor == "sqlite":
        delete_children_first()


@pytest.fixture
def rewind_settings(settings, tmp_path, monkeypatch):
    """Settings for an isolated engine test: own artifact dir, the offline simulator."""
    settings.REWIND_ARTIFACT_DIR = tmp_path / "artifacts"
    settings.REWIND_LLM_PRESET = ""
    settings.REWIND_LLM_BASE_URL = ""
    settings.REWIND_LLM_MODEL = ""
    settings.REWIND_LLM_TEMPERATURE = 0.0
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return settings


@pytest.fixture
def run_pipeline(rewind_settings, db) -> Callable[..., Run]:
    """``run_pipeline("research", inputs=None, **create_run_kwargs)``: a new run, executed."""

    def make(pipeline: str = "research", inputs: dict | None = None, **kwargs: Any) -> Run:
        run = create_run(pipeline, inputs, **kwargs)
        return execute_run(run.pk)

    return make


@pytest.fixture
def run_fork(rewind_settings, db) -> Callable[..., Run]:
    """``run_fork(source, node, field=None, value=None, **kwargs)``: a fork, executed."""

    def make(source: Run, node: str, field: str | None = None, value: Any = None, **kw) -> Run:
        fork = create_fork(source, node, field, value, **kw)
        return execute_run(fork.pk)

    return make


@pytest.fixture
def research_run(run_pipeline) -> Run:
    """A completed run of the demo ``research`` pipeline (in-process simulator)."""
    run = run_pipeline("research")
    assert run.status == Run.Status.COMPLETED, run.error
    return run


@pytest.fixture
def serve_simulator(rewind_settings) -> Iterator[Callable[..., Simulator]]:
    """``serve_simulator(**SimulatorOptions)``: serve a simulator on loopback and point the
    provider settings at it; returns the Simulator (``.requests`` records what it got)."""
    with ExitStack() as stack:

        def serve(**options: Any) -> Simulator:
            simulator = Simulator(SimulatorOptions(**options))
            url = stack.enter_context(simulator.serve())
            rewind_settings.REWIND_LLM_BASE_URL = url
            rewind_settings.REWIND_LLM_MODEL = SIMULATOR_MODEL
            return simulator

        yield serve


def closed_port_url() -> str:
    """A loopback base URL on which nothing listens (the port was bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# --- appended for issue 4: scripted loopback providers and real db_worker processes ----------


class LoopbackCall:
    """One request a ``LoopbackProvider`` received: method, path, headers and the raw body
    (``json`` is the parsed body, or None when it was not JSON)."""

    def __init__(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> None:
        self.method, self.path, self.headers, self.raw = method, path, headers, raw
        try:
            self.json = json.loads(raw.decode("utf-8") or "null")
        except (ValueError, UnicodeDecodeError):
            self.json = None

    @property
    def system(self) -> str:
        """The system message of a chat-completions body ('' when there is none)."""
        body = self.json if isinstance(self.json, dict) else {}
        return " ".join(
            str(m.get("content", ""))
            for m in body.get("messages") or []
            if isinstance(m, dict) and m.get("role") == "system"
        )


class LoopbackProvider:
    """A provider on 127.0.0.1 whose every answer a test scripts.

    ``answer(call) -> (status, body)`` or ``(status, body, content_type)``: ``body`` is a dict
    (sent as JSON) or bytes (sent as they are, e.g. a truncated JSON body or a stream cut
    short, with ``content_type`` saying what they are). The default answer is the simulator's own
    (``self.simulator.dispatch``), so a test can wrap it: sleep, fail the first attempt,
    echo a header. ``calls`` records every request, headers included.
    """

    def __init__(self, answer: Callable[[LoopbackCall], tuple[Any, ...]] | None = None) -> None:
        self.simulator = Simulator()
        self.answer = answer or self.simulate
        self.calls: list[LoopbackCall] = []
        self._lock = threading.Lock()
        self.url = ""

    def simulate(self, call: LoopbackCall) -> tuple[int, Any]:
        return self.simulator.dispatch(call.method, call.path, call.raw)

    def chat_calls(self) -> list[LoopbackCall]:
        return [c for c in self.calls if c.path.split("?")[0].rstrip("/").endswith("completions")]

    @contextmanager
    def serve(self) -> Iterator[str]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length > 0 else b""
                call = LoopbackCall(self.command, self.path, dict(self.headers.items()), raw)
                with provider._lock:
                    provider.calls.append(call)
                status, body, *kind = provider.answer(call)
                data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind[0] if kind else "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client went away (a timeout, a killed worker)

            do_GET = do_POST = _answer  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent."""

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        try:
            self.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
            yield self.url
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)


@pytest.fixture
def loopback_provider(rewind_settings) -> Iterator[Callable[..., LoopbackProvider]]:
    """``loopback_provider(answer=None)``: serve a scripted provider on loopback and point the
    provider settings at it (model: the simulator's). Short retry backoff for tests."""
    rewind_settings.REWIND_LLM_BACKOFF = 0.01
    with ExitStack() as stack:

        def serve(answer: Callable[[LoopbackCall], tuple[int, Any]] | None = None):
            provider = LoopbackProvider(answer)
            rewind_settings.REWIND_LLM_BASE_URL = stack.enter_context(provider.serve())
            rewind_settings.REWIND_LLM_MODEL = SIMULATOR_MODEL
            return provider

        yield serve


def subprocess_database_url() -> str:
    """A DATABASE_URL naming the database this test process uses now (the test database),
    for subprocesses that must see the same rows."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    user = quote(db.get("USER") or "", safe="")
    password = quote(db.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = db.get("HOST") or "127.0.0.1"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


PROJECT_ROOT = Path(__file__).resolve().parents[2]


class WorkerProcess:
    """A real ``manage.py db_worker`` subprocess; its stdout+stderr go to ``log``."""

    def __init__(self, popen: subprocess.Popen, log: Path) -> None:
        self.popen, self.log = popen, log
        self.replaced = False  # a supervised fixture started another in its place

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, wait, SIGKILL after ``timeout``."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=timeout)

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-whatever, like a machine losing power."""
        self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(timeout=10)


def worker_environment(**extra: str | None) -> dict[str, str]:
    """The environment of a worker: the test database, and the Rewind settings this test
    process has now (artifact dir, provider endpoint, retry policy, lease). A key is passed
    only when ``extra`` names one; ``None`` removes a variable."""
    from django.conf import settings

    env = dict(os.environ)
    for name in (*KEY_VARIABLES, "REWIND_TASKS_BACKEND", "REWIND_TEST_DB"):
        env.pop(name, None)
    env.update(
        {
            "DATABASE_URL": subprocess_database_url(),
            "DJANGO_SETTINGS_MODULE": "rewind_site.settings",
            "PYTHONUNBUFFERED": "1",
            "REWIND_ARTIFACT_DIR": str(settings.REWIND_ARTIFACT_DIR),
            "REWIND_LLM_PRESET": settings.REWIND_LLM_PRESET or "",
            "REWIND_LLM_BASE_URL": settings.REWIND_LLM_BASE_URL or "",
            "REWIND_LLM_MODEL": settings.REWIND_LLM_MODEL or "",
            "REWIND_LLM_TEMPERATURE": str(settings.REWIND_LLM_TEMPERATURE),
            "REWIND_LLM_TIMEOUT": str(settings.REWIND_LLM_TIMEOUT),
            "REWIND_LLM_RETRIES": str(settings.REWIND_LLM_RETRIES),
            "REWIND_LLM_BACKOFF": str(settings.REWIND_LLM_BACKOFF),
            "REWIND_RUN_LEASE_SECONDS": str(settings.REWIND_RUN_LEASE_SECONDS),
            "REWIND_LOG_LEVEL": "INFO",
        }
    )
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


@pytest.fixture
def db_workers(tmp_path) -> Iterator[Callable[..., list[WorkerProcess]]]:
    """``db_workers(n=1, supervised=False, **env)``: start ``n`` real ``db_worker`` processes on
    the test database (use with ``django_db(transaction=True)``: they only see committed rows).
    ``supervised``: a worker that exits by itself (0: a worker recycled after an abandoned
    step) is replaced, as a deployment's supervisor would — the replacements are added to the
    list returned. They are always stopped when the test ends (SIGTERM, then SIGKILL)."""
    started: list[WorkerProcess] = []
    stopping = threading.Event()

    def start(n: int = 1, supervised: bool = False, **env: str | None) -> list[WorkerProcess]:
        environment = worker_environment(**env)
        workers = [_start_one(environment) for _ in range(n)]
        if supervised:
            threading.Thread(target=_supervise, args=(workers, environment), daemon=True).start()
        return workers

    def _supervise(workers: list[WorkerProcess], environment: dict[str, str]) -> None:
        while not stopping.wait(0.2):
            for worker in list(workers):
                if worker.popen.poll() == 0 and not worker.replaced:
                    worker.replaced = True
                    workers.append(_start_one(environment))

    def _start_one(environment: dict[str, str]) -> WorkerProcess:
        log = tmp_path / f"worker-{len(started)}.log"
        with log.open("wb") as handle:
            popen = subprocess.Popen(
                [
                    sys.executable,
                    "manage.py",
                    "db_worker",
                    "--queue-name",
                    "default",
                    "--interval",
                    "0.1",
                    "--no-startup-delay",
                    "--no-reload",
                ],
                cwd=PROJECT_ROOT,
                env=environment,
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        worker = WorkerProcess(popen, log)
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        stopping.set()
        for worker in started:
            if worker.popen.poll() is None:
                worker.popen.send_signal(signal.SIGTERM)
        for worker in started:
            worker.stop()


def wait_for(predicate: Callable[[], Any], *, timeout: float, interval: float = 0.1, what=""):
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what or predicate}")
        time.sleep(interval)


# --- appended for the dashboard view tests: users, signed-in clients, row factories ---------

USER_PASSWORD = "correct horse battery staple"


@pytest.fixture
def dev_user(django_user_model):
    """An ordinary signed-in developer: may look at everything, may not change settings."""
    return django_user_model.objects.create_user("dev", password=USER_PASSWORD)


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user("lead", password=USER_PASSWORD, is_staff=True)


@pytest.fixture
def signed_in(client, dev_user):
    """The test client, signed in as ``dev_user``."""
    client.force_login(dev_user)
    return client


@pytest.fixture
def staff_client(client, staff_user):
    """The test client, signed in as ``staff_user``."""
    client.force_login(staff_user)
    return client


@pytest.fixture
def immediate_tasks(settings):
    """Enqueued runs execute in-process as soon as their ``on_commit`` callback fires
    (wrap the request in ``django_capture_on_commit_callbacks(execute=True)``)."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    return settings


@pytest.fixture
def run_row(db) -> Callable[..., Run]:
    """``run_row(**fields)``: a Run row written directly (nothing executes); a root of its
    own lineage unless ``parent``/``root`` are given."""

    def make(**fields: Any) -> Run:
        values = {
            "pipeline": "research",
            "status": Run.Status.COMPLETED,
            "provider": {"model": "rewind-sim-1", "temperature": 0.0, "simulator": True},
            "inputs": {"region": "all"},
            **fields,
        }
        if values.get("parent") is not None:
            values.setdefault("root", values["parent"].root or values["parent"])
        run = Run.objects.create(**values)
        if run.root_id is None:
            Run.objects.filter(pk=run.pk).update(root=run)
            run.root_id = run.pk
        return run

    return make


@pytest.fixture
def node_row(db) -> Callable[..., Any]:
    """``node_row(run, sequence_id, name="plan", **fields)``: a Node row written directly;
    an executed (``live``) llm step of ``run`` unless told otherwise."""
    from runs.models import Node

    def make(run: Run, sequence_id: int, name: str = "plan", **fields: Any) -> Node:
        values = {
            "kind": Node.Kind.LLM,
            "status": Node.Status.COMPLETED,
            "cache_source": Node.CacheSource.LIVE,
            "inputs": {"question": "q"},
            "output": {"objective": "o", "steps": []},
            "output_sha256": f"{sequence_id:064x}",
            "model_requested": "rewind-sim-1",
            "model_answered": "rewind-sim-1",
            "temperature": 0.0,
            "src_run": run,
            "src_sequence_id": sequence_id,
            **fields,
        }
        return Node.objects.create(run=run, sequence_id=sequence_id, name=name, **values)

    return make


# --- shared by the capture tests -------------------------------------------------------------

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


@pytest.fixture
def loopback_only(monkeypatch) -> Iterator[list[Any]]:
    """Any TCP connection beyond loopback fails the test (and is listed here): apps nobody here
    wrote must never reach the network from a test."""
    refused: list[Any] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def allowed(sock: socket.socket, address: Any) -> bool:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return True
        if isinstance(address, tuple) and address[0] in LOOPBACK_HOSTS:
            return True
        refused.append(address)
        return False

    def connect(sock: socket.socket, address: Any) -> None:
        if not allowed(sock, address):
            raise OSError(f"refused a connection beyond loopback in a test: {address!r}")
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        if not allowed(sock, address):
            raise OSError(f"refused a connection beyond loopback in a test: {address!r}")
        return real_connect_ex(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    yield refused
    assert not refused, f"connections beyond loopback were attempted: {refused}"


class ServedSimulator:
    """Rewind's simulator on loopback as the apps' ``OPENAI_BASE_URL``: ``start()`` serves it,
    ``stop()`` stops it (the variable then names a dead port)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.stack = ExitStack()
        self.url = ""
        monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())

    def start(self) -> str:
        self.url = self.stack.enter_context(Simulator().serve())
        self.monkeypatch.setenv("OPENAI_BASE_URL", self.url)
        return self.url

    def stop(self) -> None:
        self.stack.close()


@pytest.fixture
def served_apps(rewind_settings, monkeypatch, db) -> Iterator[Callable[..., ServedSimulator]]:
    """``served_apps(apps)``: register ``apps`` (name → dotted path) and give the simulator to
    serve them on loopback; both undone at the end."""
    from runs.engine.apps import registry

    simulators: list[ServedSimulator] = []

    def serve(apps: dict[str, str]) -> ServedSimulator:
        rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **apps}
        registry._load.cache_clear()
        simulators.append(ServedSimulator(monkeypatch))
        return simulators[-1]

    yield serve
    for simulator in simulators:
        simulator.stop()
    registry._load.cache_clear()


def everything_stored() -> str:
    """Every row of Rewind's tables as text, the way a database dump holds it."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("dumpdata", "runs", stdout=out)
    return out.getvalue()
