"""Run artifacts on disk: written atomically by the artifact node, found again by run only.

The path is recorded on the run, never hashed (rule 4). Reading goes through
``artifact_file``: only a file inside ``REWIND_ARTIFACT_DIR`` whose bytes still hash to the
recorded sha256 counts as the run's artifact, so a tampered row cannot make a page show
another file, and a leftover file of another run (ids restart with a new database) is not
taken for this run's.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from runs.engine.errors import NodeFailure
from runs.lib.hashing import sha256_bytes

if TYPE_CHECKING:
    from runs.models import Run


def write_artifact(directory: Path, run_id: int, text: Any) -> tuple[str, str]:
    """Write the run's artifact atomically; returns (path, sha256 of the bytes)."""
    if not isinstance(text, str):
        raise NodeFailure("the artifact node must produce text", raw=repr(text)[:2000])
    data = text.encode("utf-8")
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{run_id}.md"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{run_id}.", suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, target)
    return str(target), sha256_bytes(data)


def artifact_file(run: Run) -> Path | None:
    if not run.artifact_sha256:
        return None
    directory = Path(settings.REWIND_ARTIFACT_DIR).resolve()
    candidates = [Path(run.artifact_path)] if run.artifact_path else []
    candidates.append(directory / f"{run.pk}.md")
    for path in candidates:
        resolved = (directory / path).resolve() if not path.is_absolute() else path.resolve()
        if not resolved.is_relative_to(directory) or not resolved.is_file():
            continue
        if sha256_bytes(resolved.read_bytes()) == run.artifact_sha256:
            return resolved
    return None


def artifact_text(run: Run) -> str | None:
    path = artifact_file(run)
    return path.read_text(encoding="utf-8", errors="replace") if path else None
