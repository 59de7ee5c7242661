"""``runs.live.slots``: a live-update stream's slot is a lock that dies with its holder, so the
caps hold across processes and a process that crashes leaks no slot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection

from runs.live import slots
from runs.live.slots import Limits

ROOT = Path(__file__).resolve().parents[3]

HOLD = """
import sys, time
from pathlib import Path
from runs.live.slots import Limits, claim_files
slot = claim_files(Path(sys.argv[1]), 7, Limits(per_user=1, total=5))
print("held" if slot else "refused", flush=True)
time.sleep(120)
"""


def held_by_another_process(directory: Path) -> subprocess.Popen:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "rewind_site.settings"},
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_slot_another_process_holds_counts_and_comes_back_when_it_is_killed(tmp_path):
    holder = held_by_another_process(tmp_path)
    try:
        while_held = slots.claim_files(tmp_path, 7, Limits(per_user=1, total=5))
        other_user = slots.claim_files(tmp_path, 8, Limits(per_user=1, total=5))
    finally:
        holder.send_signal(signal.SIGKILL)  # a crash: nothing of ours runs
        holder.wait()
    after = slots.claim_files(tmp_path, 7, Limits(per_user=1, total=5))

    assert while_held is None  # user 7's one slot is the other process's
    assert other_user is not None
    assert after is not None  # the kernel dropped the dead process's lock
    for slot in (other_user, after):
        async_to_sync(slot.release)()


def test_a_refused_claim_keeps_nothing(tmp_path):
    limits = Limits(per_user=2, total=1)
    first = slots.claim_files(tmp_path, 1, limits)
    refused = slots.claim_files(tmp_path, 1, limits)  # a user slot is free, the total is not
    async_to_sync(first.release)()
    # the refused claim gave back the user slot it had taken: both of user 1's are free
    both = [slots.claim_files(tmp_path, 1, Limits(per_user=2, total=2)) for _ in range(2)]

    assert refused is None
    assert all(slot is not None for slot in both)


def test_released_twice_is_harmless(tmp_path):
    slot = slots.claim_files(tmp_path, 1, Limits(per_user=1, total=1))
    async_to_sync(slot.release)()
    async_to_sync(slot.release)()

    assert slots.claim_files(tmp_path, 1, Limits(per_user=1, total=1)) is not None


def terminate(pid: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="advisory locks: PostgreSQL only")
def test_postgresql_slots_are_shared_and_die_with_their_session():
    limits = Limits(per_user=1, total=2)

    async def go() -> None:
        first = await slots.claim(1, limits)
        same_user = await slots.claim(1, limits)
        second = await slots.claim(2, limits)
        third_user = await slots.claim(3, limits)  # all 2 are taken
        # the first session dies without releasing anything (its process crashed); the
        # second argument waits (up to 10 s) until the backend is gone
        await sync_to_async(terminate)(first.connection.info.backend_pid)
        first.released = True  # nothing of ours runs for a crashed process
        after = await slots.claim(1, limits)
        for slot in (second, after):
            await slot.release()

        assert same_user is None and third_user is None
        assert second is not None and after is not None

    async_to_sync(go)()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="advisory locks: PostgreSQL only")
def test_postgresql_refuses_a_stream_over_the_cap_without_opening_a_connection(monkeypatch):
    import psycopg

    limits = Limits(per_user=1, total=2)

    async def go() -> None:
        held = [await slots.claim(1, limits), await slots.claim(2, limits)]
        opened = []
        real = psycopg.AsyncConnection.connect

        async def connect(*args, **kwargs):
            opened.append(kwargs)
            return await real(*args, **kwargs)

        monkeypatch.setattr(psycopg.AsyncConnection, "connect", connect)
        same_user = await slots.claim(1, limits)
        everyone_full = await slots.claim(3, limits)
        for slot in held:
            await slot.release()

        assert same_user is None and everyone_full is None
        assert opened == []  # both seen full in pg_locks over the request's connection

    async_to_sync(go)()
