"""Which branch of a step a call is made in, and how its occurrences are numbered: the
bookkeeping ``threads`` keeps and the core reads (see ``threads`` for why branches exist)."""

from __future__ import annotations

import contextvars
import zlib

_branch: contextvars.ContextVar[tuple[int, ...]] = contextvars.ContextVar(
    "rewind_branch", default=()
)
# A branch's occurrences are numbered apart from the step's own: BRANCH_STRIDE × (a number
# taken from its path) + the n-th call of that key in the branch (stored as a positive int).
BRANCH_STRIDE = 1000
BRANCH_NUMBERS = 2_000_000


def branch() -> tuple[int, ...]:
    """The path of the branch this code runs in (``()`` in the step's own thread or task)."""
    return _branch.get()


def occurrence(path: tuple[int, ...], n: int) -> int:
    """The stored occurrence of the ``n``-th call of a key made in branch ``path``."""
    if not path:
        return n
    number = 1 + zlib.crc32(repr(path).encode()) % BRANCH_NUMBERS
    return BRANCH_STRIDE * number + min(n, BRANCH_STRIDE - 1)


def context_for(path: tuple[int, ...]) -> contextvars.Context:
    """A copy of the current context in which code runs as branch ``path``."""
    context = contextvars.copy_context()
    context.run(_branch.set, path)
    return context
