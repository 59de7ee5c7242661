"""Burr apps whose actions shell out as agents do (``test_capture_subprocess.py``): a Python
one-liner with ``subprocess.run``, ``git`` through ``check_output`` with a stdin, a script
file named in argv, ``os.system``, ``Popen`` + ``communicate``, ``check=True`` on a failing
command, ``getoutput`` and ``os.popen``, asyncio's process functions, a process used while it
runs, a ``multiprocessing`` child, a credential in argv.

Every command the apps run appends ``<label> <pid>`` to the file ``SIDE_EFFECTS`` names (the
environment, which is not part of a command's key): its side effect, and the proof of whether
a process was started at all. Commands run in the directory ``WORKDIR`` names, which holds
``script.py``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import subprocess
import sys
import time

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

SIDE_EFFECTS = "REWIND_TEST_SIDE_EFFECTS"
WORKDIR = "REWIND_TEST_WORKDIR"
WORD = "REWIND_TEST_WORD"  # a word a command takes from the environment (changed: a miss)
INPUT = "REWIND_TEST_INPUT"  # what a command is given on its stdin (changed: a miss)
CANARY = "sk-canary-5e1d7c3b9a2f4e6d8c0b"  # a key shape
PLAIN_CANARY = "plain-canary-91c3e5a7"  # no known shape: a credential by its flag's name
BEARER_CANARY = "bearer-canary-2d4f6b8e"
PYTHON = sys.executable

# Appends "<label> <pid>" to the side-effect file, then prints what it was asked.
APPEND = (
    "import os, sys\n"
    "with open(os.environ['REWIND_TEST_SIDE_EFFECTS'], 'a') as f:\n"
    "    f.write(f'{sys.argv[1]} {os.getpid()}\\n')\n"
    "print('did', *sys.argv[1:])\n"
)
SCRIPT = (
    "import os, sys\n"
    "with open(os.environ['REWIND_TEST_SIDE_EFFECTS'], 'a') as f:\n"
    "    f.write(f'script {os.getpid()}\\n')\n"
    "print('script says', sys.argv[1])\n"
)


def append(label: str) -> str:
    """A shell line that appends ``<label> <pid>`` (the shell's pid) to the side-effect file."""
    return f'echo "{label} $$" >> "${SIDE_EFFECTS}"'


def workdir() -> str:
    return os.environ[WORKDIR]


# -- the shell agent: one action per way of starting a process ------------------------------


@action(reads=[], writes=["ran"])
def run_one_liner(state: State) -> State:
    done = subprocess.run(
        [PYTHON, "-c", APPEND, "one-liner", os.environ.get(WORD, "hello")],
        capture_output=True,
        text=True,
        check=True,
    )
    return state.update(ran={"out": done.stdout, "code": done.returncode})


@action(reads=[], writes=["blob"])
def hash_with_git(state: State) -> State:
    # A real tool, its stdin the input: git prints the object id of what it read.
    blob = subprocess.check_output(["git", "hash-object", "--stdin"], input="notes\n", text=True)
    return state.update(blob=blob.strip())


@action(reads=[], writes=["script"])
def run_script(state: State) -> State:
    done = subprocess.run(
        [PYTHON, "script.py", "from-argv"], cwd=workdir(), capture_output=True, text=True
    )
    return state.update(script=done.stdout)


@action(reads=[], writes=["status"])
def system_call(state: State) -> State:
    return state.update(status=os.system(append("system") + " && exit 4"))


@action(reads=[], writes=["shouted"])
def pipe_upper(state: State) -> State:
    upper = "import sys; print(sys.stdin.read().upper(), end='')"
    process = subprocess.Popen(
        [PYTHON, "-c", upper], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    out, err = process.communicate(os.environ.get(INPUT, "quiet words") + "\n")
    return state.update(shouted={"out": out, "err": err, "code": process.returncode})


@action(reads=[], writes=["failure"])
def failing_check(state: State) -> State:
    fail = APPEND + "sys.stderr.write('no such branch'); sys.exit(3)\n"
    try:
        subprocess.run([PYTHON, "-c", fail, "failing"], check=True, capture_output=True)
    except subprocess.CalledProcessError as exc:
        return state.update(
            failure={
                "code": exc.returncode,
                "stderr": exc.stderr.decode(),
                "out": exc.output.decode(),
            }
        )
    return state.update(failure=None)


@action(reads=[], writes=["misc"])
def misc(state: State) -> State:
    answer = subprocess.getoutput(append("getoutput") + "; echo $((6 * 7))")
    with os.popen(append("popen") + "; echo from popen") as pipe:
        popen = pipe.read()
    status, text = subprocess.getstatusoutput("exit 2")
    return state.update(misc=[answer, popen, status, text])


def shell_agent() -> Application:
    steps = {
        "one_liner": run_one_liner,
        "git": hash_with_git,
        "script": run_script,
        "system": system_call,
        "upper": pipe_upper,
        "failing": failing_check,
        "misc": misc,
    }
    names = list(steps)
    return (
        ApplicationBuilder()
        .with_actions(**steps)
        .with_transitions(*zip(names, names[1:], strict=False))
        .with_entrypoint(names[0])
        .build()
    )


# The side-effect lines one run of ``shell_agent`` appends (git and the upper-caser add none).
SHELL_AGENT_EFFECTS = ["one-liner", "script", "system", "failing", "getoutput", "popen"]


# -- asyncio ---------------------------------------------------------------------------------


@action(reads=[], writes=["echoed", "listed", "code"])
async def async_tools(state: State) -> State:
    process = await asyncio.create_subprocess_exec(
        PYTHON,
        "-c",
        APPEND + "print(sys.stdin.read()[::-1])",
        "async-exec",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate(b"stressed")
    shell = await asyncio.create_subprocess_shell(
        append("async-shell") + "; printf 'a\\nb\\n'", stdout=asyncio.subprocess.PIPE
    )
    listed = await shell.stdout.read()
    code = await shell.wait()
    return state.update(
        echoed=[out.decode(), err.decode(), process.returncode],
        listed=listed.decode(),
        code=[code, shell.returncode],
    )


def async_agent() -> Application:
    return ApplicationBuilder().with_actions(tools=async_tools).with_entrypoint("tools").build()


# -- what cannot be captured -----------------------------------------------------------------


@action(reads=[], writes=["reply"])
def converse(state: State) -> State:
    # A conversation: a line written, lines read back while the process runs, another written.
    echo = APPEND + "print(input().upper(), flush=True)\nprint(input()[::-1])\n"
    with subprocess.Popen(
        [PYTHON, "-c", echo, "interactive"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        process.stdin.write("first\n")
        process.stdin.flush()
        lines = [process.stdout.readline(), process.stdout.readline()]
        process.stdin.write("second\n")
        process.stdin.close()
        lines.append(process.stdout.read())
    return state.update(reply=[*lines, process.returncode])


def interactive() -> Application:
    return ApplicationBuilder().with_actions(converse=converse).with_entrypoint("converse").build()


def append_line(label: str) -> None:
    """A ``multiprocessing`` child's work (importable: the child is spawned)."""
    with open(os.environ[SIDE_EFFECTS], "a") as f:
        f.write(f"{label} {os.getpid()}\n")


@action(reads=[], writes=["exitcode"])
def start_child(state: State) -> State:
    child = multiprocessing.get_context("spawn").Process(target=append_line, args=("child",))
    child.start()
    child.join(30)
    return state.update(exitcode=child.exitcode)


def multiprocessing_child() -> Application:
    return ApplicationBuilder().with_actions(child=start_child).with_entrypoint("child").build()


@action(reads=[], writes=["status"])
def spawn(state: State) -> State:
    pid = os.posix_spawn(PYTHON, [PYTHON, "-c", APPEND, "spawned"], dict(os.environ))
    _, status = os.waitpid(pid, 0)
    return state.update(status=os.waitstatus_to_exitcode(status))


def posix_spawned() -> Application:
    return ApplicationBuilder().with_actions(spawn=spawn).with_entrypoint("spawn").build()


# -- credentials, files, timeouts, polls -------------------------------------------------------


@action(reads=[], writes=["words"])
def with_credentials(state: State) -> State:
    done = subprocess.run(
        [
            PYTHON, "-c", APPEND + "print(*sys.argv[2:])", "credentials",
            f"--token={CANARY}", "--password", PLAIN_CANARY,
            "-H", f"Authorization: Bearer {BEARER_CANARY}",
        ],
        capture_output=True, text=True,
    )  # fmt: skip
    status = os.system(f"API_TOKEN={PLAIN_CANARY} " + append("credentials-shell"))
    # What the command echoed (the credentials among it) is not kept: how many words it was.
    return state.update(words=[len(done.stdout.split()), done.returncode, status])


def credentials() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(secrets=with_credentials)
        .with_entrypoint("secrets")
        .build()
    )


@action(reads=[], writes=["written"])
def write_output(state: State) -> State:
    # The command writes the file its argument names (as ``curl -o``, ``sed -i`` do).
    write = APPEND + "open(sys.argv[2], 'a').write('line\\n')\n"
    done = subprocess.run(
        [PYTHON, "-c", write, "writer", "out.txt"], cwd=workdir(), capture_output=True, text=True
    )
    return state.update(written=done.stdout)


def writes_its_file() -> Application:
    return ApplicationBuilder().with_actions(write=write_output).with_entrypoint("write").build()


@action(reads=[], writes=["timed_out"])
def too_slow(state: State) -> State:
    slow = APPEND + "import time; time.sleep(30)\n"
    try:
        subprocess.run([PYTHON, "-c", slow, "slow"], capture_output=True, timeout=1.5)
    except subprocess.TimeoutExpired as exc:
        return state.update(timed_out={"after": exc.timeout, "out": (exc.output or b"").decode()})
    return state.update(timed_out=None)


def timeout() -> Application:
    return ApplicationBuilder().with_actions(slow=too_slow).with_entrypoint("slow").build()


@action(reads=[], writes=["polled"])
def poll_until_done(state: State) -> State:
    job = APPEND + "import time; time.sleep(0.4)\n"
    process = subprocess.Popen([PYTHON, "-c", job, "polled"], stdout=subprocess.DEVNULL)
    running = 0
    while process.poll() is None:
        running += 1
        time.sleep(0.05)
    return state.update(polled={"running": running, "code": process.returncode})


def polls() -> Application:
    return ApplicationBuilder().with_actions(poll=poll_until_done).with_entrypoint("poll").build()


APPS = {
    name: f"runs.tests.helpers.process_apps.{name}"
    for name in (
        "shell_agent",
        "async_agent",
        "interactive",
        "multiprocessing_child",
        "posix_spawned",
        "credentials",
        "writes_its_file",
        "timeout",
        "polls",
    )
}
