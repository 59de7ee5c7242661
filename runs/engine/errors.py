"""Errors the engine raises. Each carries one clear line for a person to read."""

from __future__ import annotations


class RewindError(Exception):
    """Base class: anything a command or view reports as a clear message, not a traceback."""


class PipelineError(RewindError):
    """A pipeline is unknown or declared wrongly."""


class InputError(RewindError):
    """A run input the pipeline does not take, or of the wrong type."""


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


def storable_text(text: str) -> str:
    """``text`` made safe for any database: NUL characters and lone surrogates (which
    PostgreSQL or UTF-8 refuse) are written as visible escapes, so raw model output can
    always be kept for inspection."""
    text = text.replace("\x00", "\\x00")
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def unstorable_reason(value: object) -> str | None:
    """Why ``value`` (a parsed output) cannot be stored as JSON alike on every database."""
    from runs.lib.hashing import canonical_json

    text = canonical_json(value)
    if "\\u0000" in text or "\x00" in text:
        return "contains NUL characters"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains text that is not valid Unicode"
    return None


class OutcomeError(RewindError):
    """An outcome declared wrongly: a bad name or path, a check that cannot work (a regex that
    does not compile, bounds that are not numbers, a schema that is not one)."""


class BisectError(RewindError):
    """A bisect that cannot be made or finished: runs of different pipelines, an outcome they
    agree on or that the pipeline lacks, a fork that failed."""
