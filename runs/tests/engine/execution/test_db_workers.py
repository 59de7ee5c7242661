"""Background execution with real ``manage.py db_worker`` processes (issue 4, parts 3 and 4).

These tests commit for real (``django_db(transaction=True)``) on a file-based test database —
SQLite in WAL mode, or PostgreSQL with ``DATABASE_URL`` — because the workers are other
processes and only see committed rows. Every wait is bounded, and the workers are always
stopped (SIGTERM, then SIGKILL) by the ``db_workers`` fixture.

* Concurrency: 50 forks submitted at once from 8 threads, executed by 2 workers, all complete
  with no "database is locked", no duplicated or lost node or state rows, no task claimed
  twice, and one cache entry per key even where identical forks race to write it.
* Crash recovery: a worker killed with SIGKILL in the middle of a provider call leaves its
  run ``running`` only until the lease expires; then it is ``interrupted`` with its completed
  steps intact, can be forked, and resumes from its last completed step to the same
  trajectory an uninterrupted run produces.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from runs.engine.calls import cache
from runs.engine.execution.leases import mark_interrupted_runs, resume_run
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.tasks import enqueue_run, reap_dead_runs
from runs.tests.conftest import LoopbackCall, WorkerProcess, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

FORKS = 50
THREADS = 8
IDENTICAL = 10  # the last forks all set the same value: they race on the same cache keys
STEPS = 8
FORK_AT = "analyse"


def cost_scale(i: int) -> float:
    return 2.0 if i >= FORKS - IDENTICAL else 1.0 + i / 100


def submit_forks_at_once(source: Run) -> list[int]:
    """Create and enqueue ``FORKS`` forks of ``source`` from ``THREADS`` threads released
    together; each thread uses, then closes, its own database connection."""
    ids: list[int | None] = [None] * FORKS
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def submit(indexes: range) -> None:
        try:
            parent = Run.objects.get(pk=source.pk)
            start.wait(timeout=30)
            for i in indexes:
                fork = create_fork(
                    parent, FORK_AT, "args.cost_scale", cost_scale(i), from_text=False
                )
                enqueue_run(fork)  # autocommit: on_commit enqueues at once
                ids[i] = fork.pk
        except BaseException as exc:  # noqa: BLE001 — reported by the test thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=submit, args=(range(t, FORKS, THREADS),), name=f"submit-{t}")
        for t in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a submitting thread hung"
    assert errors == [], errors
    assert None not in ids
    return [i for i in ids if i is not None]


def finished_count(ids: list[int], workers: list[WorkerProcess]) -> int | None:
    for worker in workers:
        if worker.popen.poll() is not None:
            pytest.fail(f"worker {worker.pid} died:\n{worker.output()[-3000:]}")
    done = Run.objects.filter(
        pk__in=ids, status__in=[Run.Status.COMPLETED, Run.Status.FAILED]
    ).count()
    return done == len(ids) or None


def test_fifty_forks_submitted_at_once_all_complete_on_two_workers(rewind_settings, db_workers):
    started = time.monotonic()
    source = execute_run(create_run("research").pk)
    assert source.status == Run.Status.COMPLETED, source.error
    source_nodes = list(source.nodes.order_by("sequence_id").values())
    workers = db_workers(2)

    ids = submit_forks_at_once(source)
    wait_for(lambda: finished_count(ids, workers), timeout=180, interval=0.25, what="50 forks")
    elapsed = time.monotonic() - started

    forks = list(Run.objects.filter(pk__in=ids))
    assert len(forks) == FORKS
    failed = {f.pk: f.error for f in forks if f.status != Run.Status.COMPLETED}
    assert failed == {}

    # Each fork: exactly 8 node rows, sequence ids 0..7, the first two inherited, the rest
    # executed by the fork itself; 7 edges; one Burr state row per executed step.
    fork_seq = source.nodes.get(name=FORK_AT).sequence_id
    for fork in forks:
        steps = list(fork.nodes.order_by("sequence_id").values_list("sequence_id", "src_run_id"))
        assert [s for s, _ in steps] == list(range(STEPS)), fork.pk
        assert [src for s, src in steps if s < fork_seq] == [source.pk] * fork_seq
        assert [src for s, src in steps if s >= fork_seq] == [fork.pk] * (STEPS - fork_seq)
        assert list(
            Edge.objects.filter(run=fork)
            .order_by("sequence_id")
            .values_list("sequence_id", flat=True)
        ) == list(range(1, STEPS))
        states = BurrState.objects.filter(app_id=str(fork.pk)).order_by("sequence_id")
        assert list(states.values_list("sequence_id", flat=True)) == list(range(fork_seq, STEPS))
    assert Node.objects.count() == STEPS * (FORKS + 1)
    assert list(source.nodes.order_by("sequence_id").values()) == source_nodes
    duplicated_states = (
        BurrState.objects.values("partition_key", "app_id", "sequence_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )
    assert list(duplicated_states) == []

    # Identical forks reproduce one another exactly.
    identical = {f.trajectory_sha256 for f in forks if f.override["value"] == 2.0}
    assert len(identical) == 1

    # Every task ran once, on one worker, successfully; each run was claimed once.
    tasks = list(DBTaskResult.objects.filter(task_path__endswith="execute_run_task"))
    assert sorted(t.args_kwargs["args"][0] for t in tasks) == sorted(ids)
    assert {t.status for t in tasks} == {"SUCCESSFUL"}
    assert {t.return_value for t in tasks} == {"completed"}
    assert all(len(t.worker_ids) == 1 and t.started_at and t.finished_at for t in tasks)
    assert len({t.worker_ids[0] for t in tasks}) == 2, "both workers took work"
    assert all(f.started_at and f.finished_at and f.started_at <= f.finished_at for f in forks)

    # The caches hold one entry per key (LLM: per key and occurrence): first write wins.
    llm_dupes = (
        LLMCacheEntry.objects.values("key", "occurrence").annotate(n=Count("id")).filter(n__gt=1)
    )
    tool_dupes = ToolCacheEntry.objects.values("key").annotate(n=Count("id")).filter(n__gt=1)
    assert list(llm_dupes) == [] and list(tool_dupes) == []
    distinct_scales = len({cost_scale(i) for i in range(FORKS)})
    analyse_entries = ToolCacheEntry.objects.filter(tool=FORK_AT).count()
    assert analyse_entries == distinct_scales  # 1.0 is the source's own entry
    critique_keys = set(
        Node.objects.filter(run_id__in=ids, name="critique").values_list("cache_key", flat=True)
    )
    assert LLMCacheEntry.objects.filter(key__in=critique_keys).count() == len(critique_keys)

    # No "database is locked" anywhere: not in a run, a node, a task, a worker's log.
    locked = "database is locked"
    assert not Run.objects.filter(error__icontains=locked).exists()
    assert not Node.objects.filter(error__icontains=locked).exists()
    assert not DBTaskResult.objects.filter(traceback__icontains=locked).exists()
    for worker in workers:
        assert locked not in worker.output().lower()
        assert "Traceback" not in worker.output(), worker.output()[-3000:]
    print(f"\n50 forks on 2 workers ({connection.vendor}): {elapsed:.1f} s")  # noqa: T201


# --- crash recovery -----------------------------------------------------------------------


LEASE = 3


def step_rows(run: Run) -> list[tuple]:
    return list(
        run.nodes.order_by("sequence_id").values_list(
            "pk", "sequence_id", "name", "status", "output_sha256"
        )
    )


def test_a_worker_killed_mid_run_leaves_it_interrupted_resumable_and_forkable(
    rewind_settings, loopback_provider, db_workers
):
    in_critique = threading.Event()
    release = threading.Event()

    def slow_critique(call: LoopbackCall):
        if "critique step" in call.system and not release.is_set():
            in_critique.set()
            release.wait(timeout=30)  # the worker is killed while it waits here
        return provider.simulate(call)

    provider = loopback_provider(slow_critique)
    rewind_settings.REWIND_RUN_LEASE_SECONDS = LEASE  # for the worker's env and this process
    (worker,) = db_workers(1)
    try:
        inputs = {"region": "east"}
        run = create_run("research", inputs)
        enqueue_run(run)

        wait_for(in_critique.is_set, timeout=60, what="the worker to reach critique")
        beat = Run.objects.get(pk=run.pk).heartbeat_at
        # A live worker blocked in a provider call still beats: its run is never taken for dead.
        wait_for(
            lambda: Run.objects.get(pk=run.pk).heartbeat_at > beat,
            timeout=LEASE,
            interval=0.05,
            what="a heartbeat during the provider call",
        )
        assert mark_interrupted_runs() == []
        completed = step_rows(run)
        assert [(s, n, st) for _, s, n, st, _ in completed] == [
            (0, "plan", "completed"),
            (1, "research", "completed"),
            (2, "analyse", "completed"),
        ]

        worker.kill()  # SIGKILL mid provider call
    finally:
        release.set()

    killed_at = time.monotonic()
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
    assert mark_interrupted_runs() == []  # within the lease: not a guess
    marked = wait_for(reap_dead_runs, timeout=LEASE + 5, interval=0.2, what="the lease to expire")
    assert marked == [run.pk]
    # The killed worker's task row is closed too: the queue has no lease of its own.
    task_rows = DBTaskResult.objects.filter(args_kwargs__args__0=run.pk)
    assert list(task_rows.values_list("status", flat=True)) == ["FAILED"]
    assert time.monotonic() - killed_at >= LEASE - 1.5  # the last beat was < 1 s before the kill

    run.refresh_from_db()
    assert run.status == Run.Status.INTERRUPTED
    assert "no heartbeat" in run.error
    assert (run.finished_at - run.heartbeat_at).total_seconds() >= LEASE
    assert step_rows(run) == completed  # completed steps intact
    assert not run.nodes.filter(name="critique").exists()  # nothing for the step in flight
    states = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
    assert list(states.values_list("sequence_id", flat=True)) == [0, 1, 2]
    assert not LLMCacheEntry.objects.filter(node_name="critique").exists()
    assert not Run.objects.filter(status=Run.Status.RUNNING).exists()

    # An interrupted run can be forked (the provider is fast again)...
    fork = execute_run(create_fork(run, FORK_AT, "args.cost_scale", 1.5, from_text=False).pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.nodes.count() == STEPS
    assert list(fork.nodes.filter(sequence_id__lt=2).values_list("src_run_id", flat=True)) == [
        run.pk,
        run.pk,
    ]

    # ...and resumed from its last completed step, in this process.
    resumed = execute_run(resume_run(run).pk)
    assert resumed.status == Run.Status.COMPLETED, resumed.error
    rows = step_rows(resumed)
    assert rows[:3] == completed  # the same rows, not re-executed
    assert [n for _, _, n, _, _ in rows] == [
        "plan",
        "research",
        "analyse",
        "critique",
        "revise",
        "compose",
        "verify",
        "publish",
    ]
    assert set(resumed.nodes.filter(sequence_id__gte=3).values_list("src_run_id", flat=True)) == {
        run.pk
    }
    assert list(
        Edge.objects.filter(run=resumed)
        .order_by("sequence_id")
        .values_list("sequence_id", flat=True)
    ) == list(range(1, STEPS))
    states = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
    assert list(states.values_list("sequence_id", flat=True)) == list(range(STEPS))

    # The same trajectory as an uninterrupted run of the same inputs (live: no cache reads).
    reference = execute_run(create_run("research", inputs, live=True).pk)
    assert reference.status == Run.Status.COMPLETED, reference.error
    assert resumed.trajectory_sha256 == reference.trajectory_sha256
    assert resumed.artifact_sha256 == reference.artifact_sha256
    assert not Run.objects.filter(status=Run.Status.RUNNING).exists()


def test_an_idle_worker_marks_a_dead_run_interrupted_when_it_takes_work(
    rewind_settings, db_workers
):
    """Every worker that picks up work also looks for runs whose worker died: a run left
    ``running`` by a dead process does not wait for a person to notice."""
    rewind_settings.REWIND_RUN_LEASE_SECONDS = LEASE
    dead = execute_run(create_run("research").pk)
    Run.objects.filter(pk=dead.pk).update(status=Run.Status.RUNNING)  # as if its worker died
    Run.objects.filter(pk=dead.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=60))
    db_workers(1)

    fresh = create_run("research", {"region": "west"})
    enqueue_run(fresh)
    wait_for(
        lambda: Run.objects.get(pk=fresh.pk).status == Run.Status.COMPLETED,
        timeout=60,
        what="the fresh run",
    )
    assert Run.objects.get(pk=dead.pk).status == Run.Status.INTERRUPTED
    (task,) = DBTaskResult.objects.all()
    assert task.args_kwargs["args"] == [fresh.pk]
    assert (task.status, len(task.worker_ids)) == ("SUCCESSFUL", 1)  # a worker process ran it


# --- cache writes under a race ----------------------------------------------------------------


def test_racing_cache_writes_keep_one_entry_per_answer_and_the_first_stays_first(
    rewind_settings,
):
    """Threads with their own connections write the same keys at the same instant: the same
    answer ends as exactly one row (every writer gets that row back to pin), each different
    answer as one row of its own, no writer sees an error, and a new lookup reads the first."""
    writers = 8
    start = threading.Barrier(writers)
    errors: list[BaseException] = []
    pinned: dict[int, list[int]] = {}

    def write(n: int) -> None:
        try:
            start.wait(timeout=30)
            ids = []
            for occurrence, content in ((0, "the same answer"), (1, f"answer from writer {n}")):
                entry = cache.put_llm(
                    key="k" * 64,
                    occurrence=occurrence,
                    node_name="critique",
                    model_requested="m",
                    model_answered="m",
                    request={"writer": n},
                    response={"content": content},
                    usage={},
                )
                ids.append(entry.pk)
            pinned[n] = ids
            cache.put_tool(
                key="t" * 64, tool="analyse", tool_version="1", args={"n": n}, result={"same": 1}
            )
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    same = LLMCacheEntry.objects.get(key="k" * 64, occurrence=0)  # exactly one row
    assert {ids[0] for ids in pinned.values()} == {same.pk}
    own = LLMCacheEntry.objects.filter(key="k" * 64, occurrence=1).order_by("id")
    assert own.count() == writers
    for n, ids in pinned.items():
        assert own.get(pk=ids[1]).response == {"content": f"answer from writer {n}"}
    assert ToolCacheEntry.objects.filter(key="t" * 64).count() == 1
    # A new lookup reads the first answer; a pinned one reads its own.
    assert cache.get_llm("k" * 64, 1).pk == own.first().pk
    assert cache.get_llm("k" * 64, 1, pinned=own.last()).pk == own.last().pk
    assert cache.get_tool("t" * 64).result == ToolCacheEntry.objects.get(key="t" * 64).result


def test_identical_calls_in_flight_on_two_workers_go_to_the_provider_once(
    rewind_settings, loopback_provider, db_workers
):
    """Two workers replay the same change at the same moment: each llm request reaches the
    provider once; the second worker waits and is served from the cache."""

    def slow(call: LoopbackCall):
        time.sleep(0.4)  # long enough for both workers to be in flight together
        return provider.simulate(call)

    provider = loopback_provider(slow)
    source = execute_run(create_run("research").pk)
    assert source.status == Run.Status.COMPLETED, source.error
    before = len(provider.chat_calls())
    workers = db_workers(2)

    # The same new cost scale twice: analyse and every llm step after it miss the cache.
    ids = []
    for _ in range(2):
        fork = create_fork(source, FORK_AT, "args.cost_scale", 7.0, from_text=False)
        enqueue_run(fork)
        ids.append(fork.pk)
    wait_for(lambda: finished_count(ids, workers), timeout=120, interval=0.2, what="two forks")

    forks = list(Run.objects.filter(pk__in=ids))
    assert {f.status for f in forks} == {Run.Status.COMPLETED}
    assert len({f.trajectory_sha256 for f in forks}) == 1
    tasks = DBTaskResult.objects.filter(args_kwargs__args__0__in=ids)
    assert len({t.worker_ids[0] for t in tasks}) == 2, "each worker took one fork"
    llm_after_fork = ["critique", "revise", "compose"]
    calls = provider.chat_calls()[before:]
    assert len(calls) == len(llm_after_fork), [c.system[:40] for c in calls]
    sources = Node.objects.filter(run_id__in=ids, name__in=llm_after_fork)
    by_source = sorted(sources.values_list("cache_source", flat=True))
    assert by_source == ["cache"] * 3 + ["live"] * 3  # one worker paid, the other waited
