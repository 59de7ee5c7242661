"""Burr's tracker directory, read (``LocalTrackingClient``, ``.with_tracker("local")``).

``<root>/<project>/<app_id>/`` holds ``metadata.json`` (partition key, ``parent_pointer`` of a
fork, ``spawning_parent_pointer`` of a sub-application), ``graph.json`` (the actions with their
reads and writes, the transitions), ``log.jsonl`` (one JSON object per line: ``begin_entry`` and
``end_entry`` of each step, ``begin_span``/``end_span``/``attribute`` logged by the step's
``__tracer``) and ``children.jsonl`` (the apps forked or spawned from it). The log is read one
line at a time: a step is handed on as soon as its ``end_entry`` is read, so memory does not
grow with the log.

Every file is read in chunks, and a line of the log (or a whole JSON file) that outgrows the
limit is refused as soon as it does: memory never holds more than the limit and a chunk of it.
Nothing is followed out of the directory given: a symlink, to a file or a directory, whose
target lies outside it is refused the same way wherever it is, with the same message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from runs.engine.errors import RewindError

LOG = "log.jsonl"
GRAPH = "graph.json"
METADATA = "metadata.json"
MAX_LINE = 64 * 1024 * 1024  # bytes: a longer line (or JSON file) is refused, never read whole
CHUNK = 64 * 1024  # bytes read at a time


class LogError(RewindError):
    """A line of a tracker file that cannot be read: names the file and the 1-based line."""

    def __init__(self, file: Path | str, line: int | None, error: str) -> None:
        self.file, self.line, self.error = str(file), line, error
        where = f"{self.file}:{line}" if line else self.file
        super().__init__(f"{where}: {error}")

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "error": self.error}


def leads_out(root: Path) -> str:
    """The one message for every symlink under ``root`` whose target lies outside it."""
    return f"a symlink leading out of {root}: not followed, and no app that needs it is imported"


def too_long(what: str, limit: int) -> str:
    return f"a {what} longer than {limit} bytes (the limit; --max-line raises it): refused"


def checked(root: Path | None, path: Path) -> Path:
    """``path`` (under ``root``) with its symlinks resolved; refused if that leads out of
    ``root`` (resolved) — a file or a directory, whether it exists or not."""
    real = path.resolve()
    if root is not None and not real.is_relative_to(root):
        raise LogError(path, None, leads_out(root))
    return real


@dataclass(frozen=True)
class Pointer:
    """Burr's ``PointerModel``: another app (and the step of it) this one comes from."""

    app_id: str
    sequence_id: int | None
    partition_key: str | None


@dataclass
class Span:
    id: str
    parent: str | None
    name: str
    start: str = ""
    end: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "parent": self.parent,
            "name": self.name,
            "start": self.start,
            "end": self.end,
            "attributes": self.attributes,
        }


@dataclass
class Step:
    """One step of the log: its ``begin_entry``, ``end_entry`` and what was logged inside it."""

    sequence_id: int
    action: str
    inputs: dict[str, Any]
    started: datetime | None
    ended: datetime | None = None
    state: dict[str, Any] | None = None  # the state after it, as Burr serialised it
    exception: str | None = None
    spans: list[Span] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)  # logged outside any span
    line: int = 0  # where its end_entry is

    @property
    def finished(self) -> bool:
        return self.state is not None or self.exception is not None


@dataclass
class AppDir:
    """An app's directory and what its small files say."""

    path: Path
    project: str
    app_id: str
    partition_key: str | None = None
    parent: Pointer | None = None  # forked from (``parent_pointer``)
    spawner: Pointer | None = None  # spawned by (``spawning_parent_pointer``)
    entrypoint: str = ""
    actions: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # reads, writes
    transitions: list[tuple[str, str, str]] = field(default_factory=list)
    root: Path | None = None  # the directory imported (resolved): nothing is read outside it
    limit: int = MAX_LINE  # bytes of a line of the log, or of a JSON file

    @property
    def log(self) -> Path:
        return self.path / LOG

    def file(self, name: str) -> Path:
        """The app's file ``name`` to open: its symlinks resolved, refused if they lead out."""
        return checked(self.root, self.path / name)

    def condition(self, source: str, target: str) -> str:
        """The label of the transition ``source`` → ``target`` (the first that matches)."""
        return next((c for a, b, c in self.transitions if a == source and b == target), "default")

    def writes(self, action: str) -> list[str]:
        return list(self.actions.get(action, {}).get("writes", []))

    def reads(self, action: str) -> list[str]:
        return list(self.actions.get(action, {}).get("reads", []))


def _load_json(path: Path, limit: int) -> Any:
    try:
        with open(path, "rb") as f:
            data = bytearray()
            while chunk := f.read(CHUNK):
                data += chunk
                if len(data) > limit:
                    raise LogError(path, None, too_long("file", limit))
        return json.loads(data.decode("utf-8", errors="strict"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LogError(path, getattr(exc, "lineno", None), f"not valid JSON: {exc}") from None


def _pointer(value: Any, path: Path) -> Pointer | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("app_id"), str):
        raise LogError(path, None, "a parent pointer without an app_id")
    seq = value.get("sequence_id")
    return Pointer(
        value["app_id"], seq if isinstance(seq, int) else None, value.get("partition_key")
    )


def read_app(
    path: Path, project: str, *, root: Path | None = None, limit: int | None = None
) -> AppDir:
    """The app at ``path`` (its metadata and graph; the log is read by ``steps``), under
    ``root`` (resolved): the directory and every file of it checked alike, before any is
    read. ``limit``: the longest line or JSON file read (``MAX_LINE`` by default)."""
    app = AppDir(path=path, project=project, app_id=path.name, root=root)
    app.limit = MAX_LINE if limit is None else limit
    checked(root, path)
    for name in (LOG, METADATA, GRAPH):
        app.file(name)
    meta = _load_json(app.file(METADATA), app.limit) or {}
    if not isinstance(meta, dict):
        raise LogError(path / METADATA, 1, "not an object")
    app.partition_key = meta.get("partition_key")
    app.parent = _pointer(meta.get("parent_pointer"), path / METADATA)
    app.spawner = _pointer(meta.get("spawning_parent_pointer"), path / METADATA)
    graph = _load_json(app.file(GRAPH), app.limit) or {}
    if not isinstance(graph, dict):
        raise LogError(path / GRAPH, 1, "not an object")
    app.entrypoint = str(graph.get("entrypoint") or "")
    for action in graph.get("actions") or []:
        if isinstance(action, dict) and isinstance(action.get("name"), str):
            app.actions[action["name"]] = {
                "reads": [str(k) for k in action.get("reads") or []],
                "writes": [str(k) for k in action.get("writes") or []],
            }
    for t in graph.get("transitions") or []:
        if isinstance(t, dict):
            app.transitions.append(
                (str(t.get("from_", "")), str(t.get("to", "")), str(t.get("condition", "default")))
            )
    return app


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _lines(f: Any, path: Path, limit: int) -> Iterator[tuple[int, bytearray]]:
    """(1-based number, line) for each line of ``f`` from where it stands, its newline kept
    (the last line may have none), read ``CHUNK`` bytes at a time. A line is refused as soon
    as it outgrows ``limit`` bytes (its newline not counted), before more of it is read."""
    number, line = 1, bytearray()
    while chunk := f.read(CHUNK):
        view, start = memoryview(chunk), 0
        while (end := chunk.find(b"\n", start)) >= 0:
            line += view[start : end + 1]
            if len(line) - 1 > limit:
                raise LogError(path, number, too_long("line", limit))
            yield number, line
            number, line, start = number + 1, bytearray(), end + 1
        line += view[start:]
        if len(line) > limit:
            raise LogError(path, number, too_long("line", limit))
    if line:
        yield number, line


def _record(raw: bytes | bytearray, path: Path, number: int) -> dict[str, Any]:
    try:
        record = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        text = raw.decode("utf-8", "replace")[:60]
        raise LogError(path, number, f"not a JSON object ({exc}): {text!r}") from None
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        raise LogError(path, number, "not a tracker entry (no 'type')")
    return record


def steps(
    app: AppDir, *, after: int = -1, offset: int = 0, following: bool = False
) -> Iterator[tuple[Step, int]]:
    """The finished steps of ``app``'s log whose sequence id is above ``after``, each with the
    byte offset just past its ``end_entry`` (``--follow`` reads on from there). A step begun
    but not ended is handed on last, unfinished, with the offset of its ``begin_entry``. Reading
    starts at byte ``offset`` (the start of a line). A last line without its newline is one
    being written when ``following`` (read again at the next look), else a truncated line,
    read — and reported if it is not whole."""
    path = app.file(LOG)
    open_step: Step | None = None
    open_at = offset
    spans: dict[str, Span] = {}
    with open(path, "rb") as f:
        if offset:
            f.seek(offset)
        position = offset
        for number, raw in _lines(f, path, app.limit):
            if following and not raw.endswith(b"\n"):
                break  # a line still being written: read again at the next look
            begin, position = position, position + len(raw)
            if not raw.strip():
                continue
            record = _record(raw, path, number)
            kind = record["type"]
            seq = record.get("sequence_id", record.get("action_sequence_id"))
            if kind == "begin_entry":
                if not isinstance(seq, int) or not isinstance(record.get("action"), str):
                    raise LogError(path, number, "a begin_entry without action or sequence_id")
                inputs = record.get("inputs")
                open_step = Step(
                    sequence_id=seq,
                    action=record["action"],
                    inputs=inputs if isinstance(inputs, dict) else {},
                    started=_time(record.get("start_time")),
                )
                open_at, spans = begin, {}
            elif kind == "end_entry":
                if open_step is None or seq != open_step.sequence_id:
                    raise LogError(path, number, f"an end_entry of step {seq} that never began")
                state = record.get("state")
                if state is not None and not isinstance(state, dict):
                    raise LogError(path, number, "an end_entry whose state is not an object")
                open_step.state = state
                exception = record.get("exception")
                open_step.exception = str(exception) if exception else None
                open_step.ended = _time(record.get("end_time"))
                open_step.line = number
                if open_step.state is None and open_step.exception is None:
                    open_step.exception = "the log recorded no state after this step"
                if seq > after:
                    yield open_step, position
                open_step = None
            elif open_step is not None and seq == open_step.sequence_id:
                _span_record(open_step, spans, kind, record)
    if open_step is not None and open_step.sequence_id > after:
        yield open_step, open_at


def _span_record(step: Step, spans: dict[str, Span], kind: str, record: dict[str, Any]) -> None:
    span_id = record.get("span_id")
    if kind == "begin_span" and isinstance(span_id, str):
        span = Span(
            id=span_id,
            parent=record.get("parent_span_id"),
            name=str(record.get("span_name", "")),
            start=str(record.get("start_time", "")),
        )
        spans[span_id] = span
        step.spans.append(span)
    elif kind == "end_span" and span_id in spans:
        spans[span_id].end = str(record.get("end_time", ""))
    elif kind == "attribute" and isinstance(record.get("key"), str):
        target = spans[span_id].attributes if span_id in spans else step.attributes
        target[record["key"]] = record.get("value")


def _has_log(directory: Path) -> bool:
    """A log is there (a symlink to one counts: it is refused later, not passed over)."""
    log = directory / LOG
    return log.is_file() or log.is_symlink()


def app_dirs(path: Path, project: str | None = None) -> Iterator[tuple[str, Path]]:
    """(project, app directory) for every app under ``path``: ``path`` may be Burr's root
    (``~/.burr``: projects of apps), one project's directory, or one app's. Nothing is
    followed out of ``path``: a directory that is a symlink leading out of it is not looked
    into but handed on as it is, for ``read_app`` to refuse as it refuses such a file."""
    root = path.resolve(strict=True)

    def directories(parent: Path) -> tuple[list[Path], list[Path]]:
        inner, outer = [], []
        for p in sorted(parent.iterdir()):
            if p.is_dir():
                (inner if p.resolve().is_relative_to(root) else outer).append(p)
        return inner, outer

    if _has_log(root):
        yield project or root.parent.name, root
        return
    children, leading_out = directories(root)
    if any(_has_log(p) for p in children):  # a project's directory: apps
        for p in [*filter(_has_log, children), *leading_out]:
            yield project or root.name, p
        return
    for proj in children:  # Burr's root: projects of apps
        apps, apps_leading_out = directories(proj)
        for p in [*filter(_has_log, apps), *apps_leading_out]:
            yield project or proj.name, p
    for p in leading_out:
        yield project or p.name, p


def file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
