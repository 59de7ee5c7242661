"""Values a person keeps live: what a step reads from the clock or from randomness inside
``live_values()`` is neither recorded nor replayed (``runs.engine.calls.capture.values``).

Here, apart from the capture, so that a program imports the context manager (``from
runs.recording import live_values``) without setting up Django or the engine: outside a
recorded step it does nothing at all.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

_live: contextvars.ContextVar[bool] = contextvars.ContextVar("rewind_live_values", default=False)


@contextmanager
def live_values() -> Iterator[None]:
    """Inside: the clock, ``random``, ``secrets``, ``os.urandom`` and ``uuid`` give live values
    in a recorded step and in its replays alike (a nonce that must be fresh, a timestamp that
    must be now) — and threads and tasks started inside inherit it."""
    token = _live.set(True)
    try:
        yield
    finally:
        _live.reset(token)


def kept_live() -> bool:
    """Whether this context is inside ``live_values()``."""
    return _live.get()
