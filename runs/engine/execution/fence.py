"""The fence between a run and a step it gave up on (a step timeout or a cancel).

Python cannot stop a thread: a step stuck in ``time.sleep(600)`` keeps sleeping. The run
stops waiting for it instead (``runs.engine.execution.watch``) and closes the fence; whatever
the abandoned step does when it wakes, it can no longer write — no state row, no step row,
no cache entry, no artifact. Every write a step makes goes through ``Fence.writing()``, and
closing takes the same lock, so a write is either wholly before the close or refused.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from runs.engine.errors import RewindError


class StepAbandoned(RewindError):
    """Raised in an abandoned step that tries to write: the run already stopped waiting."""


@dataclass(frozen=True)
class InFlight:
    """The step being executed: its sequence id, its action, when it began (monotonic)."""

    sequence_id: int
    name: str
    started: float


class Fence:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.step: InFlight | None = None
        self.reason: str | None = None

    @property
    def closed(self) -> bool:
        return self.reason is not None

    def begin(self, sequence_id: int, name: str) -> None:
        """A step begins: from now on its time counts against the step timeout."""
        self.step = InFlight(sequence_id, name, time.monotonic())

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the fence while writing; refused (``StepAbandoned``) once it is closed."""
        with self._lock:
            if self.reason is not None:
                raise StepAbandoned(f"not written: {self.reason}")
            yield

    def written(self) -> None:
        """The step in flight is recorded (call inside ``writing()``): nothing is in flight."""
        self.step = None

    def close(self, reason: str) -> InFlight | None:
        """Refuse every later write; returns the step that was in flight, not recorded."""
        with self._lock:
            self.reason = reason
            step, self.step = self.step, None
            return step
