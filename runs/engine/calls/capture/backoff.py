"""A replayed failed attempt does not wait out the client's backoff (DESIGN.md, "Retries are part
of the recording").

When the cache gives a call a failed attempt (a 429, a 5xx the recording kept), the client
retries as it did when recorded — after sleeping its backoff: the openai and anthropic SDKs
``time.sleep`` (``anyio.sleep`` when async), tenacity ``time.sleep``, a hand-written loop
``time.sleep`` or ``asyncio.sleep``. The first such sleep the same thread or task asks for
before its next call returns at once; the sleep is still asked for, so the client's own logic
runs unchanged. Any other sleep — outside a step, in another thread, after the next call has
gone out, or on a live step, where the backoff is real — waits as asked.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import Any

# Set in the context of the thread or task that was given a failed attempt; spent by the next
# sleep, or forgotten when that context makes its next call (``core.StepCalls.prepare``).
_owed: contextvars.ContextVar[bool] = contextvars.ContextVar("rewind_backoff_owed", default=False)

_real_sleep = time.sleep
_real_async_sleep = asyncio.sleep
_installed = False


def owe() -> None:
    """The call just answered was a failed attempt from the cache: skip the next sleep here."""
    _owed.set(True)


def forget() -> None:
    """A new call goes out: a sleep after it is not the last attempt's backoff."""
    if _owed.get():
        _owed.set(False)


def _spend() -> bool:
    if _owed.get():
        _owed.set(False)
        return True
    return False


def sleep(seconds: float) -> None:
    if _spend():
        return
    _real_sleep(seconds)


async def async_sleep(delay: float, result: Any = None) -> Any:
    return await _real_async_sleep(0 if _spend() else delay, result)


async def anyio_sleep(delay: float) -> None:
    await _anyio_sleep(0 if _spend() else delay)


async def _anyio_sleep(delay: float) -> None:  # replaced by anyio's own at install
    await _real_async_sleep(delay)


def install() -> None:
    """Wrap ``time.sleep``, ``asyncio.sleep`` and ``anyio.sleep`` (once per process); outside
    the window after a replayed failed attempt they behave exactly as before."""
    global _installed, _anyio_sleep
    if _installed:
        return
    _installed = True
    time.sleep = sleep
    asyncio.sleep = async_sleep
    try:
        import anyio
    except ImportError:  # anyio comes with httpx; without it there is nothing to wrap
        return
    _anyio_sleep = anyio.sleep
    anyio.sleep = anyio_sleep
