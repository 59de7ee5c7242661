"""Errors the engine raises. Each carries one clear line for a person to read."""

from __future__ import annotations


class RewindError(Exception):
    """Base class: anything a command or view reports as a clear message, not a traceback."""


class PipelineError(RewindError):
    """A pipeline is unknown or declared wrongly."""


class OverrideError(RewindError):
    """An override the node cannot consume, or a value of the wrong type. Raised before
    anything is written or run."""


class ForkError(RewindError):
    """A fork that cannot be made (unknown node, source still running, …)."""


class NodeFailure(RewindError):
    """A node failed; the run fails with it. ``raw`` keeps what the model or tool really
    returned so the failure can be inspected, never patched."""

    def __init__(self, message: str, *, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw
