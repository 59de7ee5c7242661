"""The subprocess adapter (DESIGN.md, "Beyond HTTP libraries"): a process a step starts — through
``subprocess.run``, ``call``, ``check_call``, ``check_output``, ``getoutput``,
``getstatusoutput``, ``subprocess.Popen`` (and so ``os.popen``), ``os.system``, or asyncio's
``create_subprocess_exec``/``create_subprocess_shell`` — is a call of the step, keyed by its
command (``commands``: argv or shell line, stdin, the files its arguments name) and answered
by its exit code, stdout and stderr.

Where: ``Popen.__init__`` (every ``subprocess`` function and ``os.popen`` make a ``Popen``),
``os.system``, and the two asyncio functions. Outside a step each is what it was (one context
read); while the capture itself starts a process (``core.sending``) too, so the real ``Popen``
it starts — asyncio's own, under a captured asyncio process — is not captured again; and for
the standard library's probes of the machine (``PROBES``: ``platform.processor()`` runs
``uname -p``, once a process). An answer recorded live is stored when the step ends, in the
run's thread: a process is often waited for in a library's worker thread.

When the real process runs:

- On a step that follows a recording — it has its source step's pins (a replay, a fork), or
  is guarded — nothing starts when the process is made: it is deferred. Waiting for it
  (``communicate``, ``wait``, ``poll``, leaving its ``with``, reading a pipe to its end) is one
  ``StepCalls.exchange``/``aexchange``: the recorded answer, without starting the process; a
  hermetic miss naming the command; or, on a step that may go live, the real process, run then
  and recorded. What the caller wrote to its stdin before is its input.
- On a step that follows none (a new run) the real process starts when it is made, as the
  caller expects of a server it then talks to or a job it never waits for; waiting for it
  records what it answered, through the core's ``prepare`` and ``recorded`` as ``exchange``
  does after a live send — never from the cache, since its effect has happened.

Either way the caller gets its library's own kind of object: a ``Popen`` (a subclass, whose
``communicate``, ``wait``, ``poll``, ``returncode``, ``args``, ``pid``, pipes, text mode and
encoding behave as the library's: so ``run`` gives a ``CompletedProcess`` and, with
``check=True``, raises ``CalledProcessError``); ``os.system``'s wait status; an asyncio
``Process``. A process not started has the pid ``commands.PID``, above any system's range, which no
signal reaches. A wait that timed out raises ``TimeoutExpired`` and leaves the process running
(a failed attempt: the next wait is the next attempt); the ``poll()`` calls that found it
running are counted on its answer, so a replay finds it running as often. Output not piped
back to the terminal is the command's side effect: never recorded, never repeated; a file its
argv or shell line names (``-o out``, ``> out``) that it wrote is part of its answer, written
back by a replay before the process returns (``commands.restore``).

A process used while it runs — a pipe read line by line or in pieces, or handed on
(``fileno``) — cannot be captured: on a live step it runs on, uncaptured, and is noted; a
deferred one is refused on a guarded step before it starts (``processes.hold``). A whole read
of a pipe is a wait; writes to stdin are input.
"""

from __future__ import annotations

import asyncio
import asyncio.subprocess
import errno
import inspect
import io
import os
import subprocess
import sys
from typing import Any

from runs.engine.calls.capture import commands, guard, processes
from runs.engine.calls.capture.commands import Command, Outcome
from runs.engine.calls.capture.core import Answer, StepCalls, current, sending

# The standard library's probes of the machine (``platform.processor()`` runs ``uname -p``,
# ``ctypes.util.find_library`` runs ``ldconfig``, once a process): they describe this machine,
# not the step's world, and run wherever asked, uncaptured — so that a replay in a fresh
# process, or on another machine, asks its own instead of missing a call its recording's
# process had made before the step.
PROBES = frozenset({"platform", "ctypes.util", "ctypes._aix", "uuid"})
_Popen = subprocess.Popen
_TEXT = ("text", "universal_newlines", "encoding", "errors")


def install() -> None:
    """Wrap ``Popen.__init__``, ``os.system`` and asyncio's process functions (again, each, if
    something put its own in its place since); idle outside a step."""
    guard.wrap(subprocess.Popen, "__init__", _popen_init)
    guard.wrap(os, "system", _system)
    from runs.engine.calls.capture import async_processes

    for module in (asyncio, asyncio.subprocess):
        guard.wrap(module, "create_subprocess_exec", async_processes.wrap_exec)
        guard.wrap(module, "create_subprocess_shell", async_processes.wrap_shell)


# -- subprocess.Popen -------------------------------------------------------------------------


def _popen_init(original: Any) -> Any:
    signature = inspect.signature(original)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        calls = current()
        if calls is None:
            return original(self, *args, **kwargs)
        caller = _starter(sys._getframe(1))
        if caller in PROBES:
            with sending():
                return original(self, *args, **kwargs)
        options = dict(signature.bind(self, *args, **kwargs).arguments)
        del options["self"]
        if type(self) is _Popen and not caller.startswith("asyncio"):
            self.__class__ = CapturedPopen
            self._capture(calls, options)
            return None
        # A Popen subclass, or asyncio's own loop (anyio, ``loop.subprocess_exec``): its pipes
        # are used in ways no answer can stand in for.
        made_by = "asyncio's event loop" if caller.startswith("asyncio") else type(self).__name__
        endpoint, detail = _named(options, f"made by {made_by}, which the capture cannot answer")
        processes.hold(endpoint, detail)
        with sending():
            original(self, *args, **kwargs)
        return None

    return __init__


def _starter(frame: Any) -> str:
    """The module that asked for the process (past ``subprocess``'s and ``os``'s own frames)."""
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name not in ("subprocess", "os"):
            return name
        frame = frame.f_back
    return ""


def _named(options: dict[str, Any], how: str) -> tuple[str, str]:
    try:
        command = Command.of(options.get("args", ()), shell=bool(options.get("shell")))
    except TypeError:
        return "a process", how
    return f"process {command.program}", f"`{command.label}`, {how}"


def _text_mode(options: dict[str, Any]) -> tuple[bool, str | None, str]:
    encoding, errors = options.get("encoding"), options.get("errors")
    text = bool(encoding or errors or options.get("text") or options.get("universal_newlines"))
    if text and encoding is None:
        encoding = subprocess._text_encoding()  # what Popen itself defaults to
    return text, encoding, errors or "strict"


def _binary(options: dict[str, Any], text: bool) -> dict[str, Any]:
    """The options of the real process the adapter reads: bytes (it decodes them itself)."""
    real = {k: v for k, v in options.items() if k not in _TEXT}
    if text and real.get("bufsize") == 1:  # line buffering means nothing in binary mode
        del real["bufsize"]
    return real


class CapturedPopen(subprocess.Popen):
    """A ``Popen`` made while a step runs: deferred, or around the real process it started
    (``_real``, in binary mode). See the module docstring."""

    def _capture(self, calls: StepCalls, options: dict[str, Any]) -> None:
        """In place of ``Popen.__init__``."""
        self.args = options["args"]
        self._options = options
        self.text_mode, self.encoding, self.errors = _text_mode(options)
        self.returncode: int | None = None
        self.pid = commands.PID
        self._child_created = False  # none of its own: ``__del__`` has nothing to reap
        self._sigint_wait_secs = 0
        self._communication_started = False
        self._input = None
        self._command = Command.of(
            self.args,
            shell=bool(options.get("shell")),
            executable=options.get("executable"),
            cwd=options.get("cwd"),
        )
        self._piped = options.get("stdin") == subprocess.PIPE
        self._written = bytearray()  # stdin the caller wrote (the input of the next wait)
        self._sent = 0  # of it, what reached the real process already
        self._real: subprocess.Popen | None = None
        self._loose = False  # used while it ran: the real process, uncaptured from here
        self._finished = False
        self._failure: Exception | None = None
        self._fetched: Outcome | None = None  # an answer got, not yet given (polls pending)
        self._polls = 0  # polls that found the real process running, since its last answer
        self.stdin = _Input(self) if self._piped else None
        self.stdout = _Output(self, "stdout") if options.get("stdout") == subprocess.PIPE else None
        self.stderr = _Output(self, "stderr") if options.get("stderr") == subprocess.PIPE else None
        self._files = self._command.files()  # as the process finds them when it starts
        if not commands.follows(calls):
            self._start()

    # -- the real process ---------------------------------------------------------------

    def _start(self) -> None:
        with sending():
            self._real = _Popen(**_binary(self._options, self.text_mode))
        self.pid = self._real.pid

    def _finish(self, timeout: float | None) -> tuple[Answer, int]:
        """Run the real process (started now if it was deferred) to its end, giving it the
        stdin written since: its answer — a timed-out wait's too, the process left running."""
        if self._real is None:
            self._start()
        real = self._real
        assert real is not None
        rest = bytes(self._written[self._sent :])
        self._sent = len(self._written)
        polls, self._polls = self._polls, 0
        try:
            out, err = real.communicate(rest if self._piped and rest else None, timeout)
        except subprocess.TimeoutExpired as exc:
            timed_out = commands.answer(
                None, exc.output, exc.stderr, timeout=exc.timeout, polls=polls
            )
            return timed_out, real.pid
        wrote = self._command.wrote(self._files)
        return commands.answer(real.returncode, out, err, wrote=wrote, polls=polls), real.pid

    def _next_answer(self, timeout: float | None) -> Outcome:
        """The process's next answer: from the core (a deferred process: ``exchange``), or as
        the running one gives it (recorded); uncaptured outside a step."""
        if self._failure is not None:
            raise self._failure
        if self._fetched is not None:
            fetched, self._fetched = self._fetched, None
            return fetched
        calls = current()
        stdin = bytes(self._written) if self._piped else None
        try:
            if calls is None:
                answer, pid = self._finish(timeout)
            elif self._real is None:
                out = self._command.request("subprocess", stdin, self._files, calls)
                answer, pid = calls.exchange(out, lambda _: self._finish(timeout))
                if self._real is None:  # answered from the recording: its files written back
                    commands.restore(calls, self._command, answer)
            else:
                out = self._command.request("subprocess", stdin, self._files)
                answer, pid = commands.record(calls, out, lambda: self._finish(timeout))
        except Exception as exc:
            self._failure = exc  # a refusal stands: the process was never started
            raise
        if pid is not None:
            self.pid = pid
        return commands.outcome(answer)

    def _settle(self, more: bytes | None, timeout: float | None) -> None:
        """Wait for the process to end: its answer given to the pipes, or ``TimeoutExpired``."""
        if self._finished:
            return
        if more:
            self._written += more
        result = self._next_answer(timeout)
        if result.timeout is not None:
            waited = timeout if timeout is not None else result.timeout
            raise subprocess.TimeoutExpired(self.args, waited, result.stdout, result.stderr)
        self._finished = True
        self.returncode = result.returncode
        for pipe, data in ((self.stdout, result.stdout), (self.stderr, result.stderr)):
            if isinstance(pipe, _Output):
                pipe._back(data or b"")

    def _go_loose(self, how: str) -> None:
        """The caller uses the process while it runs: noted (started now, if deferred), or
        refused on a guarded step; from here the real process, uncaptured."""
        if self._loose:
            return
        endpoint = f"process {self._command.program}"
        detail = f"`{self._command.label}`, {how} while it ran: such a process cannot be captured"
        processes.hold(endpoint, detail)
        if self._real is None:
            self._start()
        real = self._real
        assert real is not None
        rest = bytes(self._written[self._sent :])
        self._sent = len(self._written)
        if real.stdin is not None:
            if rest:
                real.stdin.write(rest)
                real.stdin.flush()
            if isinstance(self.stdin, _Input) and self.stdin._closed:
                real.stdin.close()
        self._loose = True
        for pipe in (self.stdin, self.stdout, self.stderr):
            if isinstance(pipe, _Pipe):
                pipe._target = self._wrapped(getattr(real, pipe._name), pipe._name == "stdin")

    def _wrapped(self, stream: Any, writing: bool) -> Any:
        if not self.text_mode or stream is None:
            return stream
        return io.TextIOWrapper(
            stream, encoding=self.encoding, errors=self.errors, write_through=writing
        )

    def _encode(self, data: Any) -> bytes | None:
        if data is None:
            return None
        if isinstance(data, str):
            return data.encode(self.encoding or "utf-8", self.errors)
        return bytes(memoryview(data))

    def _decode(self, data: bytes | None) -> Any:
        if data is None or not self.text_mode:
            return data
        text = data.decode(self.encoding or "utf-8", self.errors)
        return text.replace("\r\n", "\n").replace("\r", "\n")

    # -- Popen's own ----------------------------------------------------------------------

    def communicate(self, input: Any = None, timeout: float | None = None) -> tuple[Any, Any]:
        if self._loose:
            assert self._real is not None
            out, err = self._real.communicate(self._encode(input), timeout)
            self.returncode = self._real.returncode
            return self._decode(out), self._decode(err)
        if self._communication_started and input:
            raise ValueError("Cannot send input after starting communication")
        self._communication_started = True
        self._settle(self._encode(input) if self._piped else None, timeout)
        return (
            self.stdout._drain() if isinstance(self.stdout, _Output) else None,
            self.stderr._drain() if isinstance(self.stderr, _Output) else None,
        )

    def wait(self, timeout: float | None = None) -> int:
        if self._loose:
            assert self._real is not None
            self.returncode = self._real.wait(timeout)
            return self.returncode
        self._settle(None, timeout)
        assert self.returncode is not None
        return self.returncode

    def poll(self) -> int | None:
        if self._loose:
            assert self._real is not None
            self.returncode = self._real.poll()
            return self.returncode
        if self._finished:
            return self.returncode
        if self._real is not None and self._fetched is None:
            if self._real.poll() is None:
                self._polls += 1  # running: said so again on a replay (its answer counts)
                return None
        elif self._fetched is None:
            self._fetched = self._next_answer(None)
        fetched = self._fetched
        if fetched is not None and fetched.polls > 0:
            fetched.polls -= 1
            return None
        if fetched is not None and fetched.timeout is not None:
            return None  # the recorded wait timed out: the process runs on
        self._settle(None, None)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        # A deferred process is not running: its answer tells how it ended (signalled or not).
        if self._real is not None and not self._finished:
            self._real.send_signal(sig)

    def __del__(self) -> None:
        pass  # the real process, if any, is its own Popen (and reaps itself)


class _Pipe:
    """One pipe of a captured ``Popen``: backed by its recorded output once the process
    ended, or by the real pipe once it is used while the process runs."""

    def __init__(self, process: CapturedPopen, name: str) -> None:
        self._process = process
        self._name = name
        self._target: Any = None
        self._closed = False

    def _loose(self, how: str) -> Any:
        if self._target is None:
            self._process._go_loose(how)
        return self._target

    @property
    def closed(self) -> bool:
        return self._target.closed if self._target is not None else self._closed

    def fileno(self) -> int:
        return self._loose(f"handed on its {self._name}").fileno()

    def isatty(self) -> bool:
        return False

    def __enter__(self) -> _Pipe:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._loose(f"used its {self._name} ({name})"), name)


class _Input(_Pipe):
    """stdin: what the caller writes is the process's input (sent on, if it runs)."""

    def __init__(self, process: CapturedPopen) -> None:
        super().__init__(process, "stdin")

    def write(self, data: Any) -> int:
        if self._target is not None:
            return self._target.write(data)
        process = self._process
        if self._closed:
            raise ValueError("I/O operation on closed file.")
        if process._finished:
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        raw = process._encode(data) or b""
        process._written += raw
        real = process._real
        if real is not None and real.stdin is not None:
            real.stdin.write(raw)
            process._sent = len(process._written)
        return len(data)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._target is not None:
            self._target.flush()
        elif self._process._real is not None and self._process._real.stdin is not None:
            self._process._real.stdin.flush()

    def close(self) -> None:
        if self._target is not None:
            self._target.close()
        elif self._process._real is not None and self._process._real.stdin is not None:
            self._process._real.stdin.close()
        self._closed = True

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False


class _Output(_Pipe):
    """stdout or stderr: read to its end, it is a wait; read in pieces, the process is used
    while it runs."""

    def _whole(self) -> Any:
        if self._target is None:
            self._process._settle(None, None)
        return self._target

    def read(self, size: int | None = -1) -> Any:
        if size is None or size < 0:
            return self._whole().read()
        return self._loose(f"read {size} of its {self._name}").read(size)

    def readlines(self, hint: int = -1) -> list[Any]:
        if hint is None or hint <= 0:
            return self._whole().readlines()
        return self._loose(f"read its {self._name} in lines").readlines(hint)

    def readline(self, size: int = -1) -> Any:
        return self._loose(f"read its {self._name} line by line").readline(size)

    def __iter__(self) -> Any:
        return iter(self._loose(f"read its {self._name} line by line"))

    def __next__(self) -> Any:
        return next(self._loose(f"read its {self._name} line by line"))

    def close(self) -> None:
        if self._target is not None:
            self._target.close()
        self._closed = True

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    def _back(self, data: bytes) -> None:
        """The process ended: its recorded output, to read."""
        if self._target is not None:
            return
        buffer: Any = io.BytesIO(data)
        if self._process.text_mode:
            buffer = io.TextIOWrapper(
                buffer, encoding=self._process.encoding, errors=self._process.errors
            )
        if self._closed:
            buffer.close()
        self._target = buffer

    def _drain(self) -> Any:
        """What ``communicate`` returns: the rest of the output (the pipe is then closed)."""
        if self._target is None or self._target.closed:
            return None
        data = self._target.read()
        self._target.close()
        return data


# -- os.system --------------------------------------------------------------------------------


def _system(original: Any) -> Any:
    def system(command: Any) -> int:
        calls = current()
        if calls is None:
            return original(command)
        shell = Command.of(command, shell=True)
        files = shell.files()

        def live(_: Any = None) -> tuple[Answer, int]:
            status = original(command)
            wrote = shell.wrote(files)
            return commands.answer(_exit_code(status), None, None, wrote=wrote), status

        if commands.follows(calls):
            out = shell.request("os.system", None, files, calls)
            answer, status = calls.exchange(out, live)
            if status is None:  # answered from the recording: its files written back
                commands.restore(calls, shell, answer)
        else:
            answer, _ = commands.record(calls, shell.request("os.system", None, files), live)
        code = commands.outcome(answer).returncode or 0
        return code << 8 if code >= 0 else -code  # the wait status, as os.system gives it

    return system


def _exit_code(status: int) -> int:
    try:
        return os.waitstatus_to_exitcode(status)
    except ValueError:  # no status: the shell could not be started
        return -1
