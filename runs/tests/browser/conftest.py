"""Browser tests: a real Chromium against the real server (``manage.py rewind_serve``).

The server runs as a subprocess on a port the OS picked, over its own SQLite file in a temp
directory (never the pytest-django test database: nothing here touches the ORM in-process),
with the offline simulator and one ``db_worker`` started by ``rewind_serve`` itself.

Without a ``chromium`` on PATH the tests skip, unless ``REWIND_REQUIRE_BROWSER=1`` (CI), in
which case a missing browser is an error, never a silent skip.

Playwright's sync API keeps an asyncio loop marked as running while it is started, and Django
refuses ORM calls when it sees one. So Playwright and the browser live only for this package
(``scope="package"``) and are stopped before the rest of the suite touches the database.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"

USERNAME = "browser-tester"
PASSWORD = "browser-tester-password-1"

STARTUP_SECONDS = 60
SHUTDOWN_SECONDS = 20
ACTION_TIMEOUT_MS = 15_000

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Variables of the developer's or CI's environment that would point the server somewhere
# else: another database, a real provider, a key, a fixed port.
_SCRUBBED = (
    "DATABASE_URL",
    "REWIND_ARTIFACT_DIR",
    "REWIND_LLM_PRESET",
    "REWIND_LLM_BASE_URL",
    "REWIND_LLM_MODEL",
    "REWIND_LLM_TEMPERATURE",
    "REWIND_API_KEY",
    "OPENAI_API_KEY",
    "REWIND_PORT",
    "REWIND_TASKS_BACKEND",
    "DEBUG",
)


@dataclass(frozen=True)
class RewindServer:
    base_url: str
    env: dict[str, str]
    log: Path
    database: Path
    pid: int

    def url(self, path: str) -> str:
        return self.base_url + path

    def worker_pids(self) -> list[int]:
        """The ``db_worker`` children of the server (Linux ``/proc``)."""
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        return [
            int(pid)
            for pid in children
            if b"db_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]

    @contextmanager
    def worker_paused(self) -> Iterator[None]:
        """Hold the worker (SIGSTOP … SIGCONT) while the body runs, so a run started in the
        body is still queued when its page arrives, however loaded the machine is.

        The worker is stopped only at a moment it holds no write lock on the database (checked
        with a plain ``BEGIN IMMEDIATE`` on the file), or the server's own writes would wait
        on a stopped process."""
        workers = self.worker_pids()
        assert workers, "rewind_serve started no db_worker"
        for _ in range(100):
            for pid in workers:
                os.kill(pid, signal.SIGSTOP)
            if _writable(self.database):
                break
            for pid in workers:
                os.kill(pid, signal.SIGCONT)
            time.sleep(0.05)
        else:
            pytest.fail("the worker never let go of the database write lock", pytrace=False)
        try:
            yield
        finally:
            for pid in workers:
                os.kill(pid, signal.SIGCONT)


def _writable(database: Path) -> bool:
    """True if a write transaction on the SQLite file can start now (nobody holds the lock)."""
    connection = sqlite3.connect(database, timeout=0.2, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        connection.close()


def _manage(env: dict[str, str], *args: str, timeout: float = 120) -> str:
    """Run ``manage.py ARGS`` with the server's environment; its stdout."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        pytest.fail(
            f"manage.py {' '.join(args)} exited {result.returncode}\n"
            f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}",
            pytrace=False,
        )
    return result.stdout


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/api/health", timeout=2) as response:
            return json.load(response) == {"service": "rewind", "status": "ok"}
    except (OSError, urllib.error.URLError, ValueError):
        return False


def _stop(process: subprocess.Popen) -> None:
    """SIGINT (what Ctrl-C sends: uvicorn shuts down, then ``rewind_serve`` stops its worker),
    then SIGTERM, then SIGKILL for the whole process group this fixture created."""
    try:  # a worker left paused by an interrupted test could not act on its SIGTERM
        os.killpg(process.pid, signal.SIGCONT)
    except (ProcessLookupError, PermissionError):
        pass
    for sig in (signal.SIGINT, signal.SIGTERM):
        if process.poll() is not None:
            break
        process.send_signal(sig)
        try:
            process.wait(timeout=SHUTDOWN_SECONDS)
        except subprocess.TimeoutExpired:
            continue
    if process.poll() is None:
        process.kill()
        process.wait(timeout=SHUTDOWN_SECONDS)
    # The worker is a child in the server's own session; if the server died without stopping
    # it, end it here so no process outlives the test session.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    path = shutil.which("chromium")
    if path is None:
        message = (
            "no `chromium` on PATH: the browser tests need Debian's chromium "
            "(apt-get install -y chromium)"
        )
        if os.environ.get("REWIND_REQUIRE_BROWSER") == "1":
            pytest.fail(message + "; REWIND_REQUIRE_BROWSER=1 forbids skipping", pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def rewind_server(chromium_executable, tmp_path_factory) -> Iterator[RewindServer]:
    """The real dashboard (``manage.py rewind_serve``: uvicorn + one worker) on a free port."""
    tmp = tmp_path_factory.mktemp("browser")
    database = tmp / "browser.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        REWIND_ARTIFACT_DIR=str(tmp / "artifacts"),
        DJANGO_SETTINGS_MODULE="rewind_site.settings",
        PYTHONUNBUFFERED="1",
        DJANGO_SUPERUSER_USERNAME=USERNAME,
        DJANGO_SUPERUSER_PASSWORD=PASSWORD,
        DJANGO_SUPERUSER_EMAIL="browser-tester@example.invalid",
    )
    _manage(env, "migrate", "--no-input", "-v", "0")
    # A user exists before the first start, so rewind_serve creates no random-password one.
    _manage(env, "createsuperuser", "--noinput")

    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = tmp / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "rewind_serve", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the worker can be found and ended
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(base_url):
            if process.poll() is not None or time.monotonic() > deadline:
                state = (
                    f"exited {process.returncode}"
                    if process.poll() is not None
                    else f"not healthy after {STARTUP_SECONDS} s"
                )
                pytest.fail(
                    f"rewind_serve on {base_url} {state}; its output:\n"
                    + log.read_text(errors="replace"),
                    pytrace=False,
                )
            time.sleep(0.2)
        yield RewindServer(base_url=base_url, env=env, log=log, database=database, pid=process.pid)
    finally:
        _stop(process)


@pytest.fixture(scope="package")
def browser(chromium_executable) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


# Every document reports its Content-Security-Policy violations to the test, whatever page it
# is and however it got there (navigation, htmx swap, SSE). Playwright injects this script and
# the binding through the DevTools protocol, so the policy under test does not apply to them.
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__rewindCspViolation(
    `${location.pathname}: ${event.effectiveDirective} blocked ${event.blockedURI || "inline"}`
    + ` (${event.sourceFile || "?"}:${event.lineNumber}) ${event.sample || ""}`
  );
}, true);
"""


@dataclass
class Watched:
    """What a browser context saw: uncaught JavaScript errors and CSP violations (from the
    ``securitypolicyviolation`` event and from Chromium's console messages)."""

    errors: list[str]
    csp_violations: list[str]


@contextmanager
def watched_context(browser, rewind_server: RewindServer) -> Iterator[tuple[object, Watched]]:
    """A fresh browser context whose pages report JavaScript errors and CSP violations."""
    context = browser.new_context(
        base_url=rewind_server.base_url, viewport={"width": 1280, "height": 900}
    )  # bypass_csp stays off: the pages run under the policy the server sends
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    context.set_default_navigation_timeout(30_000)
    watched = Watched(errors=[], csp_violations=[])
    context.expose_function(
        "__rewindCspViolation", lambda text: watched.csp_violations.append(text)
    )
    context.add_init_script(_CSP_LISTENER)

    def on_console(message) -> None:
        if "Content Security Policy" in message.text:
            watched.csp_violations.append(f"console: {message.text}")

    def on_page(page) -> None:
        page.on("pageerror", lambda exc: watched.errors.append(str(exc)))
        page.on("console", on_console)

    context.on("page", on_page)
    try:
        yield context, watched
    finally:
        context.close()


def flush_reports(page) -> None:
    """One round trip to the page, so every report it sent before has reached the test."""
    from playwright.sync_api import Error

    if page.is_closed():
        return
    try:
        page.evaluate("0")
    except Error:  # navigating away right now: its reports were sent before it unloaded
        pass


def sign_in(page, rewind_server: RewindServer) -> None:
    from playwright.sync_api import expect

    page.goto("/runs/")
    expect(page).to_have_url(rewind_server.url("/login/?next=/runs/"))
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(rewind_server.url("/runs/"), timeout=30_000)
    expect(page.get_by_role("button", name=f"Sign out {USERNAME}")).to_be_visible()


@pytest.fixture
def page(browser, rewind_server) -> Iterator:
    """A fresh browser context, signed in through the real login form. The test fails if any
    page of it had an uncaught JavaScript error or a Content-Security-Policy violation."""
    with watched_context(browser, rewind_server) as (context, watched):
        page = context.new_page()
        sign_in(page, rewind_server)
        yield page
        flush_reports(page)
        assert not watched.errors, f"JavaScript errors on the page: {watched.errors}"
        assert not watched.csp_violations, (
            f"Content-Security-Policy violations: {watched.csp_violations}"
        )


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
