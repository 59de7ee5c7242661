"""Subprocesses are captured (issue 29, item 3; ``capture.subprocess_adapter``): a process a
Burr step starts — ``subprocess.run``/``check_output``/``getoutput``, a script named in argv,
``os.system``, ``os.popen``, ``Popen`` + ``communicate``, asyncio's process functions — is a
call of the step keyed by argv, stdin and the files it names, and an unchanged replay answers
it with its recorded stdout, stderr and exit code without starting it: the side-effect file
every command appends its pid to is unchanged. A command that changed is refused naming it;
a process used while it runs and a ``multiprocessing`` child are noted when recorded and
refused on a replay unless the network is allowed (``processes``); a credential in argv is
never stored.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from runs.engine.apps import registry
from runs.engine.calls import capture
from runs.engine.calls.capture import commands, subprocess_adapter
from runs.engine.calls.capture.subprocess_adapter import CapturedPopen
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.lib import sealing
from runs.models import Node, Run, ToolCacheEntry
from runs.tests.conftest import everything_stored
from runs.tests.helpers import process_apps
from runs.tests.helpers.process_apps import APPS, SIDE_EFFECTS, WORKDIR


@dataclass
class Workspace:
    work: Path  # the commands' working directory (script.py)
    effects: Path  # one line per process started

    def started(self) -> list[str]:
        """The label of each process started so far (their side effect), in order."""
        return [line.split()[0] for line in self.effects.read_text().splitlines()]


@pytest.fixture
def workspace(rewind_settings, monkeypatch, tmp_path, db) -> Iterator[Workspace]:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    work = tmp_path / "work"
    work.mkdir()
    (work / "script.py").write_text(process_apps.SCRIPT)
    effects = tmp_path / "side-effects.txt"
    effects.touch()
    monkeypatch.setenv(SIDE_EFFECTS, str(effects))
    monkeypatch.setenv(WORKDIR, str(work))
    for name in (process_apps.WORD, process_apps.INPUT):
        monkeypatch.delenv(name, raising=False)
    yield Workspace(work, effects)
    registry._load.cache_clear()


def record(name: str) -> Run:
    run = execute_run(create_run(name, {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def replay(source: Run, **kwargs) -> Run:
    return execute_run(create_replay(source, **kwargs).pk)


def outputs(run: Run) -> dict[str, dict]:
    return {n.name: n.output for n in run.nodes.order_by("sequence_id")}


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 — git's id


def test_an_agent_that_shells_out_replays_identical_without_starting_a_process(workspace, capsys):
    source = record("shell_agent")

    assert workspace.started() == process_apps.SHELL_AGENT_EFFECTS
    recorded = workspace.effects.read_text()
    out = outputs(source)
    assert out["one_liner"]["ran"] == {"out": "did one-liner hello\n", "code": 0}
    assert out["git"]["blob"] == git_blob_id(b"notes\n")  # the real git read its stdin
    assert out["script"]["script"] == "script says from-argv\n"
    assert out["system"]["status"] == 4 << 8  # os.system's wait status
    assert out["upper"]["shouted"] == {"out": "QUIET WORDS\n", "err": None, "code": 0}
    assert out["failing"]["failure"] == {
        "code": 3,
        "stderr": "no such branch",
        "out": "did failing\n",
    }
    assert out["misc"]["misc"] == ["42", "from popen\n", 2, ""]
    calls = {n.name: n.calls for n in source.nodes.all()}
    assert [(c["method"], c["endpoint"], c["library"]) for c in calls["git"]] == [
        ("EXEC", "/git", "subprocess")
    ]
    assert [c["library"] for c in calls["system"]] == ["os.system"]
    assert all(c["kind"] == "tool" and c["cache_source"] == "live" for c in calls["misc"])
    assert len(calls["misc"]) == 3
    entry = ToolCacheEntry.objects.get(pk=int(calls["script"][0]["entry"][5:]))
    assert entry.args["body"]["argv"][1:] == ["script.py", "from-argv"]
    assert list(entry.args["body"]["files"]) == ["script.py"]  # its content, not its path
    assert str(workspace.work) not in json.dumps(entry.args)

    again = replay(source)

    assert again.status == Run.Status.COMPLETED, again.error
    assert replay_verdict(source, again).verdict == "identical"
    assert outputs(again) == out
    assert workspace.effects.read_text() == recorded  # no process was started
    assert {n.cache_source for n in again.nodes.all()} == {Node.CacheSource.TOOL_CACHE}

    call_command("rewind_replay", str(source.pk), "--json")
    assert json.loads(capsys.readouterr().out)["results"][0]["verdict"] == "identical"
    assert workspace.effects.read_text() == recorded


def test_asyncio_processes_are_captured_and_replayed(workspace):
    source = record("async_agent")

    assert workspace.started() == ["async-exec", "async-shell"]
    recorded = workspace.effects.read_text()
    assert outputs(source)["tools"] == {
        "echoed": ["did async-exec\ndesserts\n", "", 0],
        "listed": "a\nb\n",
        "code": [0, 0],
    }
    calls = source.nodes.get(name="tools").calls
    assert [(c["library"], c["endpoint"]) for c in calls] == [
        ("asyncio", "/python"),
        ("asyncio", "/echo"),  # a shell line is named by its first word
    ]

    again = replay(source)

    assert replay_verdict(source, again).verdict == "identical", again.error
    assert workspace.effects.read_text() == recorded


@pytest.mark.parametrize(
    ("change", "step", "differs"),
    [
        ("argv", "one_liner", 'body.argv[4]: "hello" → "goodbye"'),
        ("stdin", "upper", 'body.stdin: "quiet words\\n" → "loud words\\n"'),
        ("file", "script", "body.files.script.py"),
    ],
)
def test_a_command_that_changed_is_refused_on_replay_naming_it(
    workspace, monkeypatch, change, step, differs
):
    source = record("shell_agent")
    recorded = workspace.effects.read_text()
    if change == "argv":
        monkeypatch.setenv(process_apps.WORD, "goodbye")
    elif change == "stdin":
        monkeypatch.setenv(process_apps.INPUT, "loud words")
    else:
        (workspace.work / "script.py").write_text(process_apps.SCRIPT + "print('edited')\n")

    again = replay(source)

    assert again.status == Run.Status.FAILED
    failed = again.nodes.get(name=step)
    assert failed.status == Node.Status.FAILED
    assert "a call the recorded run never made: EXEC /" in failed.error, failed.error
    assert differs in failed.error, failed.error
    assert again.error.startswith(f"{step}: a call the recorded run never made")
    assert workspace.effects.read_text() == recorded  # the changed command never ran


def test_a_process_used_while_it_runs_is_noted_refused_on_replay_and_let_run_by_allow_network(
    workspace,
):
    source = record("interactive")

    reply = ["did interactive\n", "FIRST\n", "dnoces\n", 0]
    assert outputs(source)["converse"]["reply"] == reply
    assert workspace.started() == ["interactive"]
    [warning] = source.warnings
    assert warning.startswith("converse started process python outside capture (from ")
    assert "process_apps.py:" in warning and "its replay will not be hermetic" in warning

    refused = replay(source)

    assert refused.status == Run.Status.FAILED
    error = refused.nodes.get(name="converse").error
    assert "started process python (`python -c" in error, error
    assert "line by line while it ran" in error and "process_apps.py:" in error
    assert "a replay never starts a process it did not record" in error
    assert "--allow-network" in error
    assert workspace.started() == ["interactive"]  # it was refused before it started

    allowed = replay(source, allow_network=True)

    assert allowed.status == Run.Status.COMPLETED, allowed.error
    assert workspace.started() == ["interactive", "interactive"]
    assert replay_verdict(source, allowed).verdict == "not-hermetic"


def test_a_multiprocessing_child_is_noted_refused_on_replay_and_let_run_by_allow_network(
    workspace,
):
    source = record("multiprocessing_child")

    assert outputs(source)["child"] == {"exitcode": 0}
    assert workspace.started() == ["child"]
    [warning] = source.warnings
    assert warning.startswith("child started a multiprocessing child (target append_line)")

    refused = replay(source)

    assert refused.status == Run.Status.FAILED
    error = refused.nodes.get(name="child").error
    assert error.startswith("started a multiprocessing child (target append_line) outside")
    assert "process_apps.py:" in error and "--allow-network" in error
    assert workspace.started() == ["child"]

    allowed = replay(source, allow_network=True)

    assert allowed.status == Run.Status.COMPLETED, allowed.error
    assert workspace.started() == ["child", "child"]


def test_a_posix_spawn_is_noted_live_and_refused_on_replay_naming_its_argv(workspace):
    source = record("posix_spawned")
    assert outputs(source)["spawn"] == {"status": 0}
    [warning] = source.warnings
    assert warning.startswith("spawn started process python outside capture (from ")

    refused = replay(source)

    error = refused.nodes.get(name="spawn").error
    assert error.startswith("started process python (os.posix_spawn of `python -c"), error
    assert "`) outside capture during a replay (from " in error and "process_apps.py:" in error
    assert workspace.started() == ["spawned"]
    allowed = replay(source, allow_network=True)
    assert allowed.status == Run.Status.COMPLETED, allowed.error
    assert workspace.started() == ["spawned", "spawned"]


def test_a_credential_in_argv_is_never_stored(workspace, caplog):
    source = record("credentials")
    assert workspace.started() == ["credentials", "credentials-shell"]
    [echoed, code, status] = outputs(source)["secrets"]["words"]
    assert (echoed, code, status) == (16, 0, 0)

    again = replay(source)

    assert replay_verdict(source, again).verdict == "identical", again.error
    stored = everything_stored()
    for canary in (process_apps.CANARY, process_apps.PLAIN_CANARY, process_apps.BEARER_CANARY):
        assert canary not in stored, canary
        assert canary not in caplog.text
    entry = ToolCacheEntry.objects.filter(tool="EXEC /python").get()
    argv = entry.args["body"]["argv"]
    token, plain, bearer = (
        sealing.mark(c)
        for c in (process_apps.CANARY, process_apps.PLAIN_CANARY, process_apps.BEARER_CANARY)
    )  # each its keyed fingerprint, where it stood
    assert argv[4:] == [
        f"--token={token}", "--password", plain, "-H", f"Authorization: Bearer {bearer}"
    ]  # fmt: skip
    assert token in entry.result["text"]  # the echo of them, too
    shell = ToolCacheEntry.objects.filter(tool="EXEC /echo").get()
    assert shell.args["body"]["shell"].startswith(f"API_TOKEN={plain} echo")


def test_a_file_the_command_writes_itself_is_not_a_changed_input_of_its_replay(workspace):
    source = record("writes_its_file")
    out_file = workspace.work / "out.txt"
    assert out_file.read_text() == "line\n"

    again = replay(source)

    assert replay_verdict(source, again).verdict == "identical", again.error
    assert out_file.read_text() == "line\n"  # not written again
    assert workspace.started() == ["writer"]
    out_file.write_text("someone else's\n")  # a file that changed since is an input that did
    refused = replay(source)
    assert "body.files.out.txt" in refused.nodes.get(name="write").error


def test_a_timed_out_command_replays_its_timeout_without_waiting(workspace):
    source = record("timeout")
    assert outputs(source)["slow"]["timed_out"]["after"] == 1.5
    calls = source.nodes.get(name="slow").calls
    # The wait that timed out (a failed attempt, the process left running), then the wait
    # after run() killed it.
    assert [c["status"] for c in calls] == [504, 200]

    started = time.perf_counter()
    again = replay(source)

    assert time.perf_counter() - started < 1.5
    assert replay_verdict(source, again).verdict == "identical", again.error
    assert workspace.started() == ["slow"]


def test_polls_that_found_the_process_running_find_it_running_on_replay(workspace):
    source = record("polls")
    polled = outputs(source)["poll"]["polled"]
    assert polled["running"] > 0 and polled["code"] == 0

    again = replay(source)

    assert replay_verdict(source, again).verdict == "identical", again.error
    assert outputs(again)["poll"]["polled"] == polled
    assert workspace.started() == ["polled"]


def test_outside_a_step_a_process_is_the_library_own():
    capture.install()
    assert subprocess.Popen.__init__.__module__ == subprocess_adapter.__name__  # in place
    process = subprocess.Popen([sys.executable, "-c", "print('plain')"], stdout=subprocess.PIPE)
    assert type(process) is subprocess.Popen and not isinstance(process, CapturedPopen)
    assert process.pid != commands.PID
    assert process.communicate()[0] == b"plain\n"
    assert subprocess.run("exit 5", shell=True).returncode == 5


def test_a_failed_replay_of_the_shell_agent_exits_nonzero_on_the_command_line(
    workspace, monkeypatch, capsys
):
    source = record("shell_agent")
    monkeypatch.setenv(process_apps.WORD, "changed")
    with pytest.raises(CommandError, match="1 of 1 replay"):
        call_command("rewind_replay", str(source.pk), "--json")
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["verdict"] == "failed" and "EXEC /python" in result["error"]
