"""What a command is to the capture (DESIGN.md, "Beyond HTTP libraries"): the request a process
start makes — its argv (or shell line), its stdin and the content of the files its arguments
name — and the answer it got: its exit code, stdout and stderr.

A command is keyed by what decides its answer and reads the same on every machine: never its
environment or the path of its working directory (credentials live in the one; the other
differs between machines), but the content of each file an argument names — relative to the
working directory or absolute, a regular file that exists as the process starts — so that a
script or an input that changed makes a replay miss instead of giving the old answer. The
program (argv[0]) is the tool, not an input: it is named, not hashed. A file is hashed in
chunks, the first ``FILE_BYTES`` of it (its size says the rest), at most ``MAX_FILES`` a
command.

A file the command itself writes (``-o out.json``, ``sed -i``, a formatter, a shell line's
``> out``) is part of its answer: each named file it created, changed or removed is in
``"wrote"`` (its hash, or null: removed) and, up to ``WRITTEN_BYTES`` a file and
``WRITTEN_TOTAL`` a command, its content in ``"contents"`` (text, or ``{"base64": …}``); a file
over the bound is kept as its hash and its size (``"hash_only"``). A replay that answers the
command from its recording writes each file back (``restore``) before the process it does not
start "returns" — the same bytes at the same path relative to the working directory, removed if
the command removed it; a file kept as its hash only, and not already holding that content,
fails the step naming the command and the file. The file is not an input of its replay either:
a replay whose file holds exactly what the command left is keyed with the content the recorded
command found (``as_recorded``) — found among its step's pinned entries, in memory.

Credentials an argument carries by its position are never stored (``argv_credentials.scan``:
each stands as its keyed fingerprint where it stood, in the body keyed and stored alike, so two
commands that differ in the credential never share a key); one of ``MIN_SECRET`` characters or
more is marked wherever it reappears (another argument, the shell line, the stdin). They are
handed to the core as the request's credential headers, so that an answer or an error quoting
them is marked too. What only looks like a secret (a key's shape in an argument, a private key
on the stdin) is content: kept exactly, and keyed. A stdin the command reads a credential from
(``--password-stdin``, ``htpasswd -i``, ``sshpass`` without ``-p``) is keyed by its hash only.

To the core a command is an ``Outgoing`` with the method ``EXEC`` and the URL
``exec:///<program>``; its answer is JSON ``{"returncode", "stdout", "stderr"}`` (text, or
``{"base64": …}`` when not UTF-8; null for a stream not piped back to the caller), status 200
whatever the exit code — an exit code is the command's answer, not a transport failure. A
wait that timed out is a failed attempt (504): given back to the same wait of a replay, never
to a new run's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
import stat
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn
from urllib.parse import quote

from runs.engine.calls.capture import redaction
from runs.engine.calls.capture.argv_credentials import (
    VARIABLE,
    known_secrets,
    marked_line,
    scan,
    shell_words,
)
from runs.engine.calls.capture.core import Answer, Outgoing, StepCalls, sending
from runs.engine.errors import NodeFailure

METHOD = "EXEC"
OK, TIMED_OUT = 200, 504
JSON = {"content-type": "application/json"}
MAX_FILES = 64  # named files hashed per command
FILE_BYTES = 64 << 20  # of each file, hashed
CHUNK = 1 << 20
WRITTEN_BYTES = 1 << 20  # of a file a command wrote, its content kept (a larger one: its hash)
WRITTEN_TOTAL = 4 << 20  # of all the files a command wrote, their contents kept
STDIN_TEXT = 64 << 10  # a stdin up to this size is kept as text; a larger one as its hash
LABEL_CHARS = 120  # of a command, in a message
_MAX_ARG = 4096  # a longer argument is no path


@dataclass
class Command:
    """A command as the capture keys it: what it asks (argv or shell line, its credentials each
    a keyed fingerprint), the program it names, the files its arguments name, and the
    credentials it carries."""

    body: dict[str, Any]  # {"argv": [...]} or {"shell": "...", "argv": [...]}; "executable"
    program: str
    label: str  # for messages: the command as keyed, shortened
    paths: list[tuple[str, str]]  # (the argument, as keyed; the path it names)
    headers: list[tuple[str, str]]  # the credentials, as the core reads them
    secrets: frozenset[str]
    secret_stdin: bool = False

    @classmethod
    def of(
        cls, args: Any, *, shell: bool = False, executable: Any = None, cwd: Any = None
    ) -> Command:
        seq = [args] if isinstance(args, str | bytes | os.PathLike) else list(args)
        given = [os.fsdecode(a) for a in seq]  # TypeError for what no process takes either
        base = os.fsdecode(cwd) if cwd is not None else os.getcwd()
        if shell:
            line, rest = (given[0] if given else ""), given[1:]
            found, shown = marked_line(line, rest=rest)
            words = shell_words(line)
            body: dict[str, Any] = {"shell": shown}
            if rest:
                body["argv"] = found.tokens[len(words) :]
            # Its program: the first word after the variables it sets (``KEY=… git push``).
            programs = [w for w in words if not VARIABLE.match(w)]
            program = os.path.basename(programs[0]) if programs else "sh"
            label = body["shell"]
            named = list(enumerate(words + rest))[1:]
        else:
            found = scan(given)
            body = {"argv": found.tokens}
            program = os.path.basename(given[0]) if given else ""
            label = shlex.join([program, *found.tokens[1:]])
            named = list(enumerate(given))[1:]
        if executable is not None:
            body["executable"] = os.fsdecode(executable)
        keyed = found.tokens
        paths = []
        for i, token in named:
            if i in found.secret_positions:
                continue
            for candidate in _candidates(token):
                if len(paths) < MAX_FILES * 4:
                    arg = keyed[i] if i < len(keyed) and candidate == token else candidate
                    paths.append((arg, os.path.join(base, candidate)))
        secrets = frozenset(found.secrets)
        headers = found.headers + [("x-api-key", s) for s in sorted(secrets)]
        label = label.replace("\n", "\\n")  # one line in a message
        short = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
        return cls(body, program or "sh", short, paths, headers, secrets, found.secret_stdin)

    def files(self) -> dict[str, str]:
        """The content of each named file that exists now (a regular file): its sha256."""
        found: dict[str, str] = {}
        for arg, path in self.paths:
            if len(found) >= MAX_FILES:
                break
            if arg not in found:
                digest = file_digest(path)
                if digest is not None:
                    found[arg] = digest
        return found

    def wrote(self, before: dict[str, str]) -> Written:
        """The named files whose content the command changed (``before``: as it found them):
        what each holds now (None: it removed it), with its content up to the bounds."""
        after = self.files()
        changed = sorted(a for a in {*before, *after} if before.get(a) != after.get(a))
        written = Written({a: after.get(a) for a in changed})
        where = self._where()
        budget = WRITTEN_TOTAL
        for arg in changed:
            if written.digests[arg] is None:
                continue
            data, size = _content(where[arg], min(WRITTEN_BYTES, budget))
            if data is None:
                written.hash_only[arg] = size
                continue
            budget -= len(data)
            # The bytes kept and their hash read at once (the hash taken first may be older).
            written.digests[arg] = f"sha256:{hashlib.sha256(data).hexdigest()}"
            written.contents[arg] = _stream(data)
        return written

    def _where(self) -> dict[str, str]:
        """Each named argument's path (the first, where one names two)."""
        where: dict[str, str] = {}
        for arg, path in self.paths:
            where.setdefault(arg, path)
        return where

    def stdin_field(self, data: bytes | None) -> Any:
        """How a stdin is keyed: its text, or its hash (large, binary, or a credential)."""
        if data is None:
            return None
        if not self.secret_stdin and len(data) <= STDIN_TEXT:
            try:
                return known_secrets(set(self.secrets)).marked(data.decode("utf-8"))
            except UnicodeDecodeError:
                pass
        return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def request(
        self,
        library: str,
        stdin: bytes | None,
        files: dict[str, str],
        calls: StepCalls | None = None,
    ) -> Outgoing:
        """The ``Outgoing`` the core keys: ``stdin`` None when the process reads none from the
        caller (not piped); ``files`` as the process found them."""
        body = dict(self.body)
        field_ = self.stdin_field(stdin)
        if field_ is not None:
            body["stdin"] = field_
        if files:
            body["files"] = files
        if calls is not None:
            body = as_recorded(calls, body, self.headers)
        content = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        url = f"exec:///{quote(self.program, safe='')}"
        return Outgoing(METHOD, url, list(self.headers), content.encode("utf-8"), library)


def _candidates(token: str) -> list[str]:
    """What an argument may name as a file: itself, and the value of ``--flag=value``."""
    out = [token]
    if token.startswith("-") and "=" in token:
        out.append(token.partition("=")[2])
    return [t for t in out if t and len(t) < _MAX_ARG and "\0" not in t]


def _content(path: str, limit: int) -> tuple[bytes | None, int]:
    """A regular file's bytes (None when it holds more than ``limit``), and its size."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                return None, size
            data = handle.read(limit + 1)
    except (OSError, ValueError):
        return None, 0
    return (data, len(data)) if len(data) <= limit else (None, len(data))


def file_digest(path: str) -> str | None:
    """``sha256:<hex>`` of a regular file's content (its first ``FILE_BYTES``), or None."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        digest = hashlib.sha256()
        left = FILE_BYTES
        with open(path, "rb") as handle:
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)
    except (OSError, ValueError):
        return None
    more = "" if info.st_size <= FILE_BYTES else f" (first {FILE_BYTES} of {info.st_size} bytes)"
    return f"sha256:{digest.hexdigest()}{more}"


def as_recorded(calls: StepCalls, body: dict[str, Any], headers: list[tuple[str, str]]) -> dict:
    """``body`` with its files as the recorded command found them, when each named file now
    holds either that or what the recorded command left in it — the same command (argv,
    stdin), asked in this step of the run being followed. Otherwise ``body`` as it is."""
    files = body.get("files") or {}
    if not calls.pins:
        return body
    asked = {k: v for k, v in as_stored(body, headers).items() if k != "files"}
    chosen = None
    for (sequence_id, _, _), entry in list(calls.pins.items()):
        args = getattr(entry, "args", None)
        if sequence_id != calls.sequence_id or not isinstance(args, dict):
            continue
        recorded = args.get("body")
        if args.get("method") != METHOD or not isinstance(recorded, dict):
            continue
        if {k: v for k, v in recorded.items() if k != "files"} != asked:
            continue
        before = recorded.get("files") or {}
        if before == files:
            return body
        wrote = _wrote(entry)
        if all(
            files.get(a) == before.get(a) or (a in wrote and files.get(a) == wrote[a])
            for a in {*files, *before}
        ):
            chosen = before
    if chosen is None:
        return body
    kept = {k: v for k, v in body.items() if k != "files"}
    return {**kept, "files": chosen} if chosen else kept


def as_stored(body: dict[str, Any], headers: list[tuple[str, str]]) -> Any:
    """A command's body as the core keeps it in a tool entry's args (``describe_request``,
    ``_entry_fields``): the request's credentials marked in its strings, and — when its content
    looks like a secret somewhere — that content as its fingerprint (``masked_shapes``)."""
    known = redaction.KnownSecrets(
        redaction.secrets_in_headers(headers) | redaction.secrets_in_body(body)
    )
    keyed = redaction.keyed_body(body, known)
    return redaction.masked_shapes(keyed) if redaction.kinds_of_secrets(keyed) else keyed


def _wrote(entry: Any) -> dict[str, Any]:
    try:
        answer = json.loads((getattr(entry, "result", None) or {}).get("text") or "{}")
    except (TypeError, ValueError):
        return {}
    wrote = answer.get("wrote") if isinstance(answer, dict) else None
    return wrote if isinstance(wrote, dict) else {}


# -- answers --------------------------------------------------------------------------------


@dataclass
class Written:
    """What a command left in the named files it changed: each one's hash (None: removed), the
    content of those within the bounds (text, or ``{"base64": …}``), the size of the others."""

    digests: dict[str, str | None]
    contents: dict[str, Any] = field(default_factory=dict)
    hash_only: dict[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.digests)


class NotRestored(NodeFailure):
    """A replay could not write back a file the recorded command wrote (kept as its hash)."""


def restore(calls: StepCalls, command: Command, given: Answer) -> None:
    """Write back the files the recorded command wrote, as it left them, before its replayed
    process returns: the same bytes at the same path (relative to this process's working
    directory, or the ``cwd`` it is given), a file it removed removed. A file already holding
    what the command left is not touched; one kept as its hash only (over the bounds, or
    recorded before contents were kept) fails the step naming the command and the file — the
    app would otherwise read a file that is not there, or stale."""
    if given.status != OK:
        return
    try:
        data = json.loads(given.body)
    except ValueError:
        return
    wrote = data.get("wrote") if isinstance(data, dict) else None
    if not isinstance(wrote, dict) or not wrote:
        return
    contents = data.get("contents") or {}
    sizes = data.get("hash_only") or {}
    where = command._where()
    for arg in sorted(wrote):
        digest, path = wrote[arg], where.get(arg)
        if path is None:
            _refuse(
                calls, f"`{command.label}` wrote {arg}, which this replay's command never names"
            )
        try:
            if digest is None:
                if os.path.lexists(path) and not os.path.isdir(path):
                    os.unlink(path)
            elif file_digest(path) == digest:
                continue
            elif arg in contents:
                folder = os.path.dirname(path)
                if folder:
                    os.makedirs(folder, exist_ok=True)
                with open(path, "wb") as handle:
                    handle.write(_bytes(contents[arg]) or b"")
            else:
                size = sizes.get(arg)
                why = (
                    f" ({size} bytes), over the {WRITTEN_BYTES} bytes a recording keeps of a "
                    f"file ({WRITTEN_TOTAL} of a command)"
                    if isinstance(size, int)
                    else ", recorded before a command's files were kept"
                )
                _refuse(
                    calls,
                    f"`{command.label}` wrote {arg}{why}: only its hash was recorded, so this "
                    "replay cannot write it back; record the step again (a new run) to replay "
                    "a step that reads it",
                )
        except OSError as exc:
            _refuse(
                calls, f"`{command.label}` wrote {arg}, which this replay could not write: {exc}"
            )


def _refuse(calls: StepCalls, message: str) -> NoReturn:
    # The step fails even if the app catches the error (``recorder.step_failure``).
    calls.refused = calls.refused or message
    raise NotRestored(message)


@dataclass
class Outcome:
    """What a command answered, as its caller reads it back."""

    returncode: int | None
    stdout: bytes | None
    stderr: bytes | None
    timeout: float | None = None  # the wait timed out: the process had not finished
    polls: int = 0  # ``poll()`` calls that found it running before this answer


def answer(
    returncode: int | None,
    stdout: bytes | None,
    stderr: bytes | None,
    *,
    wrote: Written | None = None,
    timeout: float | None = None,
    polls: int = 0,
) -> Answer:
    data: dict[str, Any] = {
        "returncode": returncode,
        "stdout": _stream(stdout),
        "stderr": _stream(stderr),
    }
    if wrote:
        data["wrote"] = wrote.digests
        if wrote.contents:
            data["contents"] = wrote.contents
        if wrote.hash_only:
            data["hash_only"] = wrote.hash_only
    if timeout is not None:
        data["timeout"] = timeout
    if polls:
        data["polls"] = polls
    body = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return Answer(OK if timeout is None else TIMED_OUT, dict(JSON), body)


def outcome(given: Answer) -> Outcome:
    data = json.loads(given.body)
    timeout = data.get("timeout")
    return Outcome(
        data.get("returncode"),
        _bytes(data.get("stdout")),
        _bytes(data.get("stderr")),
        float(timeout) if timeout is not None else None,
        int(data.get("polls") or 0),
    )


def _stream(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return base64.b64decode(value.get("base64", ""))
    return str(value).encode("utf-8")


PID = 4_194_305  # the pid of a process not started: above Linux's (and any) pid limit


# -- recording a process that runs ------------------------------------------------------------


def follows(calls: StepCalls) -> bool:
    """Whether the step answers its processes from a recording (they are deferred)."""
    if calls.guarded or calls.preview:
        return True
    return not calls.live and any(key[0] == calls.sequence_id for key in list(calls.pins))


def record(calls: StepCalls, out: Outgoing, finish: Callable[[], tuple[Answer, Any]]) -> Any:
    """A process already running, recorded as it answers: what ``exchange`` does with a live
    send (key and occurrence, the answer stored, a failure noted) without asking the cache."""
    _, call, described = calls.prepare(out)
    started = time.perf_counter()
    try:
        with sending():
            answer, native = finish()
    except Exception as exc:
        calls.failed(call, started, exc)
        raise
    # Stored when the step ends, in the run's thread (``store_pending``): a process is often
    # waited for in a thread of the step's library (``asyncio.to_thread``), with no database.
    calls.recorded(call, described, answer, started, now=False)
    return answer, native


async def arecord(
    calls: StepCalls, out: Outgoing, finish: Callable[[], Awaitable[tuple[Answer, Any]]]
) -> Any:
    _, call, described = calls.prepare(out)
    started = time.perf_counter()
    try:
        with sending():
            answer, native = await finish()
    except Exception as exc:
        calls.failed(call, started, exc)
        raise
    calls.recorded(call, described, answer, started, now=False)  # stored at the step's end
    return answer, native
