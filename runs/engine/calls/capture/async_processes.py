"""asyncio's processes for the subprocess adapter (``subprocess_adapter``, whose docstring says
what is captured and when the real process runs): ``create_subprocess_exec`` and
``create_subprocess_shell`` while a step runs give a ``CapturedProcess`` — an asyncio
``Process`` whose ``communicate``, ``wait``, ``returncode`` and pipes behave as the library's,
deferred on a step that follows a recording, around the real process otherwise.
"""

from __future__ import annotations

import asyncio
import asyncio.subprocess
import inspect
import signal
import subprocess
from collections.abc import Awaitable, Callable
from typing import Any

from runs.engine.calls.capture import commands, processes
from runs.engine.calls.capture.commands import Command
from runs.engine.calls.capture.core import Answer, StepCalls, current, sending


def wrap_exec(original: Any) -> Any:
    limit_default = inspect.signature(original).parameters["limit"].default

    async def create_subprocess_exec(
        program: Any,
        *args: Any,
        stdin: Any = None,
        stdout: Any = None,
        stderr: Any = None,
        limit: int = limit_default,
        **kwds: Any,
    ) -> Any:
        def create() -> Awaitable[Any]:
            return original(
                program, *args, stdin=stdin, stdout=stdout, stderr=stderr, limit=limit, **kwds
            )

        calls = current()
        if calls is None:
            return await create()
        command = Command.of(
            [program, *args], executable=kwds.get("executable"), cwd=kwds.get("cwd")
        )
        return await CapturedProcess.made(calls, command, create, (stdin, stdout, stderr), limit)

    return create_subprocess_exec


def wrap_shell(original: Any) -> Any:
    limit_default = inspect.signature(original).parameters["limit"].default

    async def create_subprocess_shell(
        cmd: Any,
        stdin: Any = None,
        stdout: Any = None,
        stderr: Any = None,
        limit: int = limit_default,
        **kwds: Any,
    ) -> Any:
        def create() -> Awaitable[Any]:
            return original(cmd, stdin=stdin, stdout=stdout, stderr=stderr, limit=limit, **kwds)

        calls = current()
        if calls is None:
            return await create()
        command = Command.of(cmd, shell=True, cwd=kwds.get("cwd"))
        return await CapturedProcess.made(calls, command, create, (stdin, stdout, stderr), limit)

    return create_subprocess_shell


class CapturedProcess(asyncio.subprocess.Process):
    """An asyncio ``Process`` made while a step runs: deferred, or around the real one."""

    def __init__(
        self,
        command: Command,
        create: Callable[[], Awaitable[Any]],
        pipes: tuple[Any, Any, Any],
        limit: int,
    ) -> None:  # not the base's: no transport of its own
        self._command = command
        self._create = create
        self._limit = limit
        self._piped = pipes[0] == subprocess.PIPE
        self.stdin: Any = _AsyncInput(self) if self._piped else None
        self.stdout: Any = _AsyncOutput(self, "stdout") if pipes[1] == subprocess.PIPE else None
        self.stderr: Any = _AsyncOutput(self, "stderr") if pipes[2] == subprocess.PIPE else None
        self.pid = commands.PID
        self._code: int | None = None
        self._real: Any = None
        self._loose = False
        self._finished = False
        self._failure: Exception | None = None
        self._written = bytearray()
        self._sent = 0
        self._files = command.files()

    @classmethod
    async def made(
        cls,
        calls: StepCalls,
        command: Command,
        create: Callable[[], Awaitable[Any]],
        pipes: tuple[Any, Any, Any],
        limit: int,
    ) -> CapturedProcess:
        process = cls(command, create, pipes, limit)
        if not commands.follows(calls):
            await process._start()
        return process

    def __repr__(self) -> str:
        return f"<Process {self.pid}>"

    @property
    def returncode(self) -> int | None:
        if self._real is not None and not self._finished:
            return self._real.returncode
        return self._code

    async def _start(self) -> None:
        with sending():
            self._real = await self._create()
        self.pid = self._real.pid

    async def _finish(self) -> tuple[Answer, int]:
        if self._real is None:
            await self._start()
        real = self._real
        rest = bytes(self._written[self._sent :])
        self._sent = len(self._written)
        out, err = await real.communicate(rest if self._piped and rest else None)
        wrote = self._command.wrote(self._files)
        return commands.answer(real.returncode, out, err, wrote=wrote), real.pid

    async def _settle(self, more: bytes | None) -> None:
        if self._finished:
            return
        if self._failure is not None:
            raise self._failure
        if more:
            self._written += more
        calls = current()
        stdin = bytes(self._written) if self._piped else None
        try:
            if calls is None:
                answer, pid = await self._finish()
            elif self._real is None:
                out = self._command.request("asyncio", stdin, self._files, calls)
                answer, pid = await calls.aexchange(out, lambda _: self._finish())
                if self._real is None:  # answered from the recording: its files written back
                    commands.restore(calls, self._command, answer)
            else:
                out = self._command.request("asyncio", stdin, self._files)
                answer, pid = await commands.arecord(calls, out, self._finish)
        except Exception as exc:
            self._failure = exc
            raise
        if pid is not None:
            self.pid = pid
        result = commands.outcome(answer)
        self._finished = True
        self._code = result.returncode
        for pipe, data in ((self.stdout, result.stdout), (self.stderr, result.stderr)):
            if isinstance(pipe, _AsyncOutput):
                pipe._back(data or b"")

    async def _go_loose(self, how: str) -> None:
        if self._loose:
            return
        endpoint = f"process {self._command.program}"
        detail = f"`{self._command.label}`, {how} while it ran: such a process cannot be captured"
        processes.hold(endpoint, detail)
        if self._real is None:
            await self._start()
        real = self._real
        rest = bytes(self._written[self._sent :])
        self._sent = len(self._written)
        if real.stdin is not None:
            if rest:
                real.stdin.write(rest)
                await real.stdin.drain()
            if isinstance(self.stdin, _AsyncInput) and self.stdin._closed:
                real.stdin.close()
        self._loose = True
        for pipe in (self.stdin, self.stdout, self.stderr):
            if isinstance(pipe, _AsyncInput | _AsyncOutput):
                pipe._target = getattr(real, pipe._name)

    async def communicate(self, input: bytes | None = None) -> tuple[Any, Any]:
        if self._loose:
            return await self._real.communicate(input)
        await self._settle(bytes(input) if input is not None and self._piped else None)
        return (
            await self.stdout._drain() if self.stdout is not None else None,
            await self.stderr._drain() if self.stderr is not None else None,
        )

    async def wait(self) -> int:
        if self._loose:
            return await self._real.wait()
        await self._settle(None)
        assert self._code is not None
        return self._code

    def send_signal(self, sig: int) -> None:
        if self._real is not None and not self._finished:
            self._real.send_signal(sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class _AsyncOutput:
    """stdout or stderr of a captured asyncio process (see ``_Output``)."""

    def __init__(self, process: CapturedProcess, name: str) -> None:
        self._process = process
        self._name = name
        self._target: Any = None

    async def _loose(self, how: str) -> Any:
        if self._target is None:
            await self._process._go_loose(how)
        return self._target

    async def read(self, n: int = -1) -> bytes:
        if self._target is None and n < 0:
            await self._process._settle(None)
        return await (await self._loose(f"read {n} bytes of its {self._name}")).read(n)

    async def readline(self) -> bytes:
        return await (await self._loose(f"read its {self._name} line by line")).readline()

    async def readexactly(self, n: int) -> bytes:
        return await (await self._loose(f"read {n} bytes of its {self._name}")).readexactly(n)

    async def readuntil(self, separator: bytes = b"\n") -> bytes:
        how = f"read its {self._name} in pieces"
        return await (await self._loose(how)).readuntil(separator)

    def at_eof(self) -> bool:
        return self._target.at_eof() if self._target is not None else False

    def __aiter__(self) -> _AsyncOutput:
        return self

    async def __anext__(self) -> bytes:
        line = await self.readline()
        if not line:
            raise StopAsyncIteration
        return line

    def _back(self, data: bytes) -> None:
        if self._target is not None:
            return
        reader = asyncio.StreamReader(limit=self._process._limit)
        reader.feed_data(data)
        reader.feed_eof()
        self._target = reader

    async def _drain(self) -> bytes | None:
        return await self._target.read() if self._target is not None else None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or self._target is None:
            raise AttributeError(name)
        return getattr(self._target, name)


class _AsyncInput:
    """stdin of a captured asyncio process: writes are its input (sent on, if it runs)."""

    def __init__(self, process: CapturedProcess) -> None:
        self._process = process
        self._name = "stdin"
        self._target: Any = None
        self._closed = False

    def _real_stdin(self) -> Any:
        real = self._process._real
        return real.stdin if real is not None else None

    def write(self, data: bytes) -> None:
        if self._target is not None:
            self._target.write(data)
            return
        raw = bytes(data)
        self._process._written += raw
        stdin = self._real_stdin()
        if stdin is not None:
            stdin.write(raw)
            self._process._sent = len(self._process._written)

    def writelines(self, data: Any) -> None:
        for chunk in data:
            self.write(chunk)

    async def drain(self) -> None:
        stdin = self._target if self._target is not None else self._real_stdin()
        if stdin is not None:
            await stdin.drain()

    def close(self) -> None:
        stdin = self._target if self._target is not None else self._real_stdin()
        if stdin is not None:
            stdin.close()
        self._closed = True

    def write_eof(self) -> None:
        self.close()

    def can_write_eof(self) -> bool:
        return True

    def is_closing(self) -> bool:
        stdin = self._target if self._target is not None else self._real_stdin()
        return stdin.is_closing() if stdin is not None else self._closed

    async def wait_closed(self) -> None:
        stdin = self._target if self._target is not None else self._real_stdin()
        if stdin is not None:
            await stdin.wait_closed()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        stdin = self._target if self._target is not None else self._real_stdin()
        return stdin.get_extra_info(name, default) if stdin is not None else default
