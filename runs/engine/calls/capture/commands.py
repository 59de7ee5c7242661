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

A file the command itself writes (``-o out.json``, ``sed -i``, a formatter) is not an input of
its replay: the answer keeps what the command left in each named file it changed
(``"wrote"``), and a replay whose file holds exactly that is keyed with the content the
recorded command found (``as_recorded``) — found among its step's pinned entries, in memory.

Credentials an argument carries (``--token=…``, ``-H "Authorization: Bearer …"``, a
``user:password@`` URL, ``OPENAI_API_KEY=…`` before a shell command, a key's known shape) are
replaced before anything is keyed or stored, and handed to the core as the request's
credential headers, so that an answer or an error quoting them is redacted too. A stdin the
command reads a credential from (``--password-stdin``) is keyed by its hash only.

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
import re
import shlex
import stat
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from runs.engine.calls.capture import redaction
from runs.engine.calls.capture.core import Answer, Outgoing, StepCalls, sending

METHOD = "EXEC"
OK, TIMED_OUT = 200, 504
JSON = {"content-type": "application/json"}
MAX_FILES = 64  # named files hashed per command
FILE_BYTES = 64 << 20  # of each file, hashed
CHUNK = 1 << 20
STDIN_TEXT = 64 << 10  # a stdin up to this size is kept as text; a larger one as its hash
LABEL_CHARS = 120  # of a command, in a message
_MAX_ARG = 4096  # a longer argument is no path

# --name=value, -name=value and NAME=value (an assignment before a shell command).
_ASSIGNED = re.compile(r"^-{0,2}([A-Za-z_][A-Za-z0-9_.-]*)=(.+)$", re.S)
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_HEADER = re.compile(r"^\s*([A-Za-z0-9-]+)\s*:\s*(\S.*)$", re.S)
_URL_PASSWORD = re.compile(r"://[^/\s:@]+:([^/\s@]+)@")
_USER_FLAGS = frozenset({"-u", "--user", "--proxy-user"})  # curl's user:password
_LOOKS = "0123456789abcdefXY"  # a value that looks like a secret, to ask a name


def _credential(name: str, value: str) -> bool:
    """Whether ``name`` (a flag, a variable: ``--api-key``, ``OPENAI_API_KEY``) names a
    credential — itself or any of its ``_``-separated tails (``api_key``)."""
    parts = name.strip("-").lower().replace("-", "_").replace(".", "_").split("_")
    return any(redaction.is_credential("_".join(parts[i:]), value) for i in range(len(parts)))


@dataclass
class Scan:
    """The credentials among a command's tokens, and the tokens without them."""

    tokens: list[str]
    secrets: set[str] = field(default_factory=set)
    headers: list[tuple[str, str]] = field(default_factory=list)
    secret_positions: set[int] = field(default_factory=set)
    secret_stdin: bool = False


def scan(tokens: Sequence[str]) -> Scan:
    found = Scan(list(tokens))
    for i, token in enumerate(tokens):
        value, kept = None, token
        previous = tokens[i - 1] if i else ""
        assigned = _ASSIGNED.match(token)
        header = _HEADER.match(token)
        if assigned and _credential(assigned[1], assigned[2]):
            value = assigned[2]
            kept = token[: len(token) - len(value)] + redaction.REDACTED
        elif header and (
            header[1].lower() in redaction.CREDENTIAL_HEADERS
            or _credential(header[1], header[2].split()[-1])  # X-RapidAPI-Key: …
        ):
            *scheme, value = header[2].split()  # "Bearer <token>": the token
            found.headers.append((header[1].lower(), value))
            kept = " ".join([f"{header[1]}:", *scheme, redaction.REDACTED])
        elif previous in _USER_FLAGS and ":" in token:
            user, _, value = token.partition(":")
            kept = f"{user}:{redaction.REDACTED}"
        elif (
            previous.startswith("-")
            and "=" not in previous
            and not token.startswith("-")
            and _credential(previous, token)
        ):
            value, kept = token, redaction.REDACTED
        name = token.strip("-").lower().replace("-", "_")
        if token.startswith("-") and name.endswith("_stdin") and _credential(name[:-6], _LOOKS):
            found.secret_stdin = True
        for password in _URL_PASSWORD.findall(token):
            found.secrets.add(password)
            kept = kept.replace(password, redaction.REDACTED)
        if value:
            found.secrets.add(value)
            found.secret_positions.add(i)
        found.secrets.update(redaction.KEY_SHAPES.findall(token))
        found.tokens[i] = redaction.redact_text(kept)
    return found


@dataclass
class Command:
    """A command as the capture keys it: what it asks (argv or shell line, redacted), the
    program it names, the files its arguments name, and the credentials it carries."""

    body: dict[str, Any]  # {"argv": [...]} or {"shell": "...", "argv": [...]}; "executable"
    program: str
    label: str  # for messages: the command, redacted and shortened
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
            try:
                words = shlex.split(line)
            except ValueError:  # unbalanced quotes: the shell will say so
                words = line.split()
            found = scan(words + rest)
            shown = line
            for secret in sorted(found.secrets, key=len, reverse=True):
                shown = shown.replace(secret, redaction.REDACTED)
            body: dict[str, Any] = {"shell": redaction.redact_text(shown)}
            if rest:
                body["argv"] = found.tokens[len(words) :]
            # Its program: the first word after the variables it sets (``KEY=… git push``).
            programs = [w for w in words if not _VARIABLE.match(w)]
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

    def wrote(self, before: dict[str, str]) -> dict[str, str | None]:
        """The named files whose content the command changed: what each holds now (None: it
        removed it)."""
        after = self.files()
        return {a: after.get(a) for a in {*before, *after} if before.get(a) != after.get(a)}

    def stdin_field(self, data: bytes | None) -> Any:
        """How a stdin is keyed: its text, or its hash (large, binary, or a credential)."""
        if data is None:
            return None
        if not self.secret_stdin and len(data) <= STDIN_TEXT:
            try:
                return redaction.redact_text(data.decode("utf-8"), self.secrets)
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
            body = as_recorded(calls, body, self.secrets)
        content = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        url = f"exec:///{quote(self.program, safe='')}"
        return Outgoing(METHOD, url, list(self.headers), content.encode("utf-8"), library)


def _candidates(token: str) -> list[str]:
    """What an argument may name as a file: itself, and the value of ``--flag=value``."""
    out = [token]
    if token.startswith("-") and "=" in token:
        out.append(token.partition("=")[2])
    return [t for t in out if t and len(t) < _MAX_ARG and "\0" not in t]


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


def as_recorded(calls: StepCalls, body: dict[str, Any], secrets: frozenset[str]) -> dict:
    """``body`` with its files as the recorded command found them, when each named file now
    holds either that or what the recorded command left in it — the same command (argv,
    stdin), asked in this step of the run being followed. Otherwise ``body`` as it is."""
    files = body.get("files") or {}
    if not calls.pins:
        return body
    asked = redaction.redact_body({k: v for k, v in body.items() if k != "files"}, secrets)
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


def _wrote(entry: Any) -> dict[str, Any]:
    try:
        answer = json.loads((getattr(entry, "result", None) or {}).get("text") or "{}")
    except (TypeError, ValueError):
        return {}
    wrote = answer.get("wrote") if isinstance(answer, dict) else None
    return wrote if isinstance(wrote, dict) else {}


# -- answers --------------------------------------------------------------------------------


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
    wrote: dict[str, str | None] | None = None,
    timeout: float | None = None,
    polls: int = 0,
) -> Answer:
    data: dict[str, Any] = {
        "returncode": returncode,
        "stdout": _stream(stdout),
        "stderr": _stream(stderr),
    }
    if wrote:
        data["wrote"] = wrote
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
