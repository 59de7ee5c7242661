"""The dashboard's figures of ``rewind_bench`` (issue 10): the run page of a 500-step run, and
how long a finished step takes to reach a browser watching the run.

Both run against the configured database (a SQLite file or PostgreSQL), like the engine's
figures (runs/engine/analysis/bench.py), and return the same shape: ``figure``, ``value`` (seconds),
``anchor`` (measured beside it, in the same process), ``ratio``, ``goal`` and ``pass``. Their
goals are absolute (the issue's table: ≤ 60 ms; ≤ 0.2 s on SQLite, ≤ 0.1 s on PostgreSQL), so
``pass`` compares ``value`` with the goal and ``ratio`` only puts the anchor beside it.

- ``run_page_figure``: the server's time for ``GET /runs/<run>/`` of a finished 500-step run
  (Django's handler in process: middleware, session, the view, the template; no network), the
  best of ``repeat``; anchor: the same page of a 10-step run. Its rows are written inside a
  transaction that is rolled back: nothing stays in the database.
- ``live_latency_figure``: a real server (uvicorn, the project's ASGI application) on
  127.0.0.1 on a port the OS picks, in a thread; a client opens the event stream of a running
  500-step run as a browser's EventSource does, then a step is committed the way the engine
  commits one (its row and its edge, one transaction) and the time until the client has read
  the update naming that step is taken. Before each try the client waits a random part of the
  SQLite poll interval, so the tries sample every phase of it. ``value`` is the worst of
  ``repeat`` tries (the median is beside it); anchor: the median round trip of
  ``GET /api/health`` on the same server. The run, its steps, the user and the session it
  made are deleted afterwards.
"""

from __future__ import annotations

import contextlib
import random
import socket
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from runs.live import changes
from runs.models import BurrState, Edge, Node, Run
from runs.pipelines.research import ORDER

PAGE_STEPS = 500
PAGE_ANCHOR_STEPS = 10
PAGE_GOAL_S = 0.060
LIVE_GOAL_S = {"postgresql": 0.1, "sqlite": 0.2}


def _figure(name: str, value: float, anchor: float | None, goal: float, **extra: Any) -> dict:
    return {
        "figure": name,
        "value": round(value, 6),
        "anchor": round(anchor, 6) if anchor else None,
        "ratio": round(value / anchor, 3) if anchor else None,
        "goal": f"≤ {goal} s",
        "pass": value <= goal,
        **extra,
    }


def _run_with_steps(count: int, status: str = Run.Status.COMPLETED) -> Run:
    """A research run of ``count`` steps looping over its nodes, half of them served by the
    cache (so the page also reads what the cache saved), each 10 ms long."""
    started = timezone.now() - timedelta(seconds=count // 50 + 1)
    run = Run.objects.create(
        pipeline="research",
        status=status,
        provider={"model": "rewind-sim-1", "temperature": 0.0, "simulator": True},
        inputs={"region": "all"},
        started_at=started,
        finished_at=started + timedelta(milliseconds=10 * count) if status != "running" else None,
    )
    Run.objects.make_root(run)
    Node.objects.bulk_create(_step(run, seq) for seq in range(count))
    return run


def _step(run: Run, seq: int) -> Node:
    cached = seq % 2 == 1
    return Node(
        run=run,
        sequence_id=seq,
        name=ORDER[seq % len(ORDER)],
        kind=Node.Kind.LLM,
        status=Node.Status.COMPLETED,
        cache_source=Node.CacheSource.CACHE if cached else Node.CacheSource.LIVE,
        cache_key=f"bench-{run.pk}-{seq}" if cached else "",
        output_sha256=f"{seq:064x}",
        model_requested="rewind-sim-1",
        model_answered="rewind-sim-1",
        latency_ms=10.0,
        total_tokens=0 if cached else 250,
        src_run=run,
        src_sequence_id=seq,
    )


def _best_get(client: Client, path: str, repeat: int) -> tuple[float, int]:
    best, size = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(path)
        best = min(best, time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
        size = len(response.content)
    return best, size


def run_page_figure(repeat: int) -> dict:
    """Server time of the run page of a finished 500-step run, best of ``repeat``."""
    repeat = max(1, repeat)
    with transaction.atomic():
        user = get_user_model().objects.create_user(f"rewind-bench-{uuid.uuid4().hex[:12]}")
        client = Client(HTTP_HOST="127.0.0.1")  # a host ALLOWED_HOSTS has by default
        client.force_login(user)
        large = _run_with_steps(PAGE_STEPS)
        small = _run_with_steps(PAGE_ANCHOR_STEPS)
        client.get(f"/runs/{large.pk}/")  # warm: templates compiled, the graph laid out
        value, size = _best_get(client, f"/runs/{large.pk}/", repeat)
        anchor, anchor_size = _best_get(client, f"/runs/{small.pk}/", repeat)
        transaction.set_rollback(True)
    return _figure(
        f"run page, {PAGE_STEPS} steps (server time)",
        value,
        anchor,
        PAGE_GOAL_S,
        anchor_is=f"the same page of a {PAGE_ANCHOR_STEPS}-step run",
        bytes=size,
        anchor_bytes=anchor_size,
    )


# --- node finished → browser sees it ---------------------------------------------------------


@contextlib.contextmanager
def _server() -> Iterator[str]:
    """The project's ASGI application under uvicorn on 127.0.0.1, on a port the OS picked."""
    import uvicorn
    from django.core.asgi import get_asgi_application

    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say TCP,
    # and with Nagle on, every response waited ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        get_asgi_application(),
        lifespan="off",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the bench's server did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


class _EventReader:
    """An event stream read the way an EventSource reads it: blocks split on blank lines."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.buffer = b""

    def until(self, needle: bytes) -> bytes:
        """Read until a whole block containing ``needle`` has arrived; that block."""
        while True:
            while b"\n\n" in self.buffer:
                block, self.buffer = self.buffer.split(b"\n\n", 1)
                if needle in block:
                    return block
            self.buffer += next(self.chunks)


def _commit_step(run: Run, seq: int) -> None:
    """A step as the engine commits one: its row and the edge that led to it, together."""
    with transaction.atomic():
        Node.objects.create(
            run=run,
            sequence_id=seq,
            name=ORDER[seq % len(ORDER)],
            kind=Node.Kind.LLM,
            status=Node.Status.COMPLETED,
            cache_source=Node.CacheSource.LIVE,
            output_sha256=f"{seq:064x}",
            latency_ms=1.0,
            total_tokens=250,
            src_run=run,
            src_sequence_id=seq,
        )
        Edge.objects.create(
            run=run,
            sequence_id=seq,
            from_node=ORDER[(seq - 1) % len(ORDER)],
            to_node=ORDER[seq % len(ORDER)],
        )


def delete_runs(run_ids: list[int]) -> None:
    """Runs a bench made, with their steps, edges and Burr states: the steps first (a step's
    ``src_run`` protects its run), each run's ``root`` cleared (a root is its own, a protected
    key), then the runs; 500 at a time."""
    for start in range(0, len(run_ids), 500):
        chunk = run_ids[start : start + 500]
        with transaction.atomic():
            Node.objects.filter(run_id__in=chunk).delete()
            Edge.objects.filter(run_id__in=chunk).delete()
            BurrState.objects.filter(app_id__in=[str(pk) for pk in chunk]).delete()
            Run.objects.filter(pk__in=chunk).update(root=None)
            Run.objects.filter(pk__in=chunk).delete()


def forget_sign_ins(username_prefix: str) -> None:
    """The sign-ins django-axes logged for the bench's users (their names start so)."""
    if apps.is_installed("axes"):
        for name in ("AccessLog", "AccessAttempt", "AccessFailureLog"):
            logged = apps.get_model("axes", name).objects
            logged.filter(username__startswith=username_prefix).delete()


def live_latency_figure(repeat: int) -> dict:
    """Node finished → a client of the event stream has the update naming it: worst of
    ``repeat`` tries on a real server."""
    import httpx

    repeat = max(1, repeat)
    vendor = connection.vendor
    goal = LIVE_GOAL_S.get(vendor, LIVE_GOAL_S["sqlite"])
    user = get_user_model().objects.create_user(f"rewind-bench-{uuid.uuid4().hex[:12]}")
    run = _run_with_steps(PAGE_STEPS, status=Run.Status.RUNNING)
    login = Client(HTTP_HOST="127.0.0.1")
    login.force_login(user)
    session = login.cookies[settings.SESSION_COOKIE_NAME].value
    tries: list[float] = []
    health: list[float] = []
    try:
        with _server() as base, httpx.Client(base_url=base, timeout=30) as http:
            http.cookies.set(settings.SESSION_COOKIE_NAME, session)
            for _ in range(max(5, repeat)):
                started = time.perf_counter()
                http.get("/api/health").raise_for_status()
                health.append(time.perf_counter() - started)
            path = f"/runs/{run.pk}/events/?after={PAGE_STEPS - 1}&status=running"
            with http.stream("GET", path, headers={"Accept": "text/event-stream"}) as stream:
                stream.raise_for_status()
                events = _EventReader(stream.iter_raw())
                events.until(b": listening")
                for seq in range(PAGE_STEPS, PAGE_STEPS + repeat):
                    time.sleep(random.uniform(0, changes.POLL_SECONDS))  # any phase of a poll
                    started = time.perf_counter()
                    _commit_step(run, seq)
                    events.until(f'id="step-{seq}"'.encode())
                    tries.append(time.perf_counter() - started)
    finally:
        delete_runs([run.pk])
        login.logout()
        user.delete()
        forget_sign_ins(user.username)
    how = (
        "LISTEN/NOTIFY" if vendor == "postgresql" else f"marker read every {changes.POLL_SECONDS} s"
    )
    return _figure(
        f"node finished → browser sees it (SSE, {vendor}: {how})",
        max(tries),
        statistics.median(health),
        goal,
        anchor_is="median GET /api/health round trip on the same server",
        median=round(statistics.median(tries), 6),
        tries=len(tries),
    )
