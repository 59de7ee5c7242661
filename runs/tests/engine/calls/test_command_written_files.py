"""Files a command writes are part of its recording (DESIGN.md, "Hermetic replays"): a step that
runs ``sort -o out.txt in.txt`` and then reads ``out.txt`` replays identical in a fresh folder
where no ``out.txt`` exists — the replay writes what the recorded command left, byte for byte,
before the process it does not start "returns". So do an in-place edit (``sed -i``), a binary
file a shell line's redirect names, a file the command removed (``rm`` through ``os.system``)
and an asyncio process's output file. A file larger than a recording keeps is recorded as its
hash: its replay fails the step naming the command and the file, never the app's own
``FileNotFoundError``.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.calls.capture import commands
from runs.engine.calls.capture.commands import Command
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Node, Run, ToolCacheEntry

WORKDIR = "REWIND_TEST_FILES_WORKDIR"
LINES = "pear\napple\nfig\n"
NOTES = "The colour of the colour wheel.\n"
SCRATCH = "left over\n"


def here() -> str:
    return os.environ[WORKDIR]


# -- the app: each step runs a tool that writes a file, then reads the file ------------------


@action(reads=[], writes=["sorted"])
def sort_file(state: State) -> State:
    subprocess.run(["sort", "-o", "out.txt", "in.txt"], cwd=here(), check=True)
    with open(os.path.join(here(), "out.txt")) as handle:
        return state.update(sorted=handle.read())


@action(reads=[], writes=["notes"])
def format_in_place(state: State) -> State:
    subprocess.run(["sed", "-i", "s/colour/color/g", "notes.md"], cwd=here(), check=True)
    return state.update(notes=Path(here(), "notes.md").read_text())


@action(reads=[], writes=["packed"])
def pack(state: State) -> State:
    subprocess.run("gzip -n -c in.txt > in.txt.gz", shell=True, cwd=here(), check=True)
    data = Path(here(), "in.txt.gz").read_bytes()
    return state.update(
        packed={"sha256": hashlib.sha256(data).hexdigest(), "text": gzip.decompress(data).decode()}
    )


@action(reads=[], writes=["cleaned"])
def clean(state: State) -> State:
    status = os.system("rm scratch.txt")  # in the process's working directory
    return state.update(cleaned=[status, os.path.exists(os.path.join(here(), "scratch.txt"))])


def file_tools() -> Application:
    steps = {"sort": sort_file, "format": format_in_place, "pack": pack, "clean": clean}
    names = list(steps)
    return (
        ApplicationBuilder()
        .with_actions(**steps)
        .with_transitions(*zip(names, names[1:], strict=False))
        .with_entrypoint(names[0])
        .build()
    )


@action(reads=[], writes=["reversed"])
async def reverse_sort(state: State) -> State:
    process = await asyncio.create_subprocess_exec(
        "sort", "-r", "-o", "rev.txt", "in.txt", cwd=here()
    )
    code = await process.wait()
    return state.update(reversed=[code, Path(here(), "rev.txt").read_text()])


def async_tool() -> Application:
    return (
        ApplicationBuilder().with_actions(reverse=reverse_sort).with_entrypoint("reverse").build()
    )


@action(reads=[], writes=["copied"])
def copy_model(state: State) -> State:
    subprocess.run(["cp", "model.bin", "copy.bin"], cwd=here(), check=True)
    return state.update(copied=hashlib.sha256(Path(here(), "copy.bin").read_bytes()).hexdigest())


def big_file() -> Application:
    return ApplicationBuilder().with_actions(copy=copy_model).with_entrypoint("copy").build()


APPS = {name: f"{__name__}.{name}" for name in ("file_tools", "async_tool", "big_file")}


# -- the folders -------------------------------------------------------------------------------


@dataclass
class Folders:
    root: Path
    monkeypatch: pytest.MonkeyPatch

    def fresh(self, name: str, **extra: bytes) -> Path:
        """A new working folder holding the inputs only, made the one the app works in."""
        folder = self.root / name
        folder.mkdir()
        (folder / "in.txt").write_text(LINES)
        (folder / "notes.md").write_text(NOTES)
        (folder / "scratch.txt").write_text(SCRATCH)
        for file, data in extra.items():
            (folder / file.replace("_", ".")).write_bytes(data)
        self.monkeypatch.setenv(WORKDIR, str(folder))
        self.monkeypatch.chdir(folder)
        return folder


@pytest.fixture
def folders(rewind_settings, monkeypatch, tmp_path, db) -> Iterator[Folders]:
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield Folders(tmp_path, monkeypatch)
    registry._load.cache_clear()


def record(name: str) -> Run:
    run = execute_run(create_run(name, {}).pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def outputs(run: Run) -> dict[str, dict]:
    return {n.name: n.output for n in run.nodes.order_by("sequence_id")}


def stored_answer(tool: str) -> dict:
    entry = ToolCacheEntry.objects.get(tool=tool)
    return json.loads(entry.result["text"])


def test_files_the_commands_wrote_are_written_again_by_an_unchanged_replay(folders):
    first = folders.fresh("recorded")
    source = record("file_tools")
    recorded = outputs(source)
    assert recorded["sort"]["sorted"] == "apple\nfig\npear\n"
    assert recorded["format"]["notes"] == "The color of the color wheel.\n"
    assert recorded["pack"]["packed"]["text"] == LINES
    assert recorded["clean"]["cleaned"] == [0, False]
    packed = (first / "in.txt.gz").read_bytes()
    # What the command left is kept in its answer: text as it is, bytes as base64.
    answer = stored_answer("EXEC /sort")
    assert answer["contents"] == {"out.txt": "apple\nfig\npear\n"}
    assert list(answer["wrote"]) == ["out.txt"]
    assert answer["contents"].keys() == answer["wrote"].keys()
    assert "base64" in stored_answer("EXEC /gzip")["contents"]["in.txt.gz"]

    second = folders.fresh("replayed")  # no out.txt, notes.md unedited, scratch.txt there
    again = execute_run(create_replay(source).pk)

    assert again.status == Run.Status.COMPLETED, again.error
    assert replay_verdict(source, again).verdict == "identical"
    assert outputs(again) == recorded
    assert {n.cache_source for n in again.nodes.all()} == {Node.CacheSource.TOOL_CACHE}
    assert (second / "out.txt").read_text() == "apple\nfig\npear\n"
    assert (second / "notes.md").read_text() == "The color of the color wheel.\n"
    assert (second / "in.txt.gz").read_bytes() == packed
    assert not (second / "scratch.txt").exists()
    assert (second / "in.txt").read_text() == LINES  # read, not written: left alone


def test_an_asyncio_process_writes_its_file_again_on_replay(folders):
    folders.fresh("recorded")
    source = record("async_tool")
    assert outputs(source)["reverse"]["reversed"] == [0, "pear\nfig\napple\n"]

    second = folders.fresh("replayed")
    again = execute_run(create_replay(source).pk)

    assert replay_verdict(source, again).verdict == "identical", again.error
    assert (second / "rev.txt").read_text() == "pear\nfig\napple\n"


def test_a_file_over_the_bound_is_kept_as_its_hash_and_its_replay_refuses_naming_it(folders):
    model = os.urandom(commands.WRITTEN_BYTES + 1)
    first = folders.fresh("recorded", model_bin=model)
    source = record("big_file")
    answer = stored_answer("EXEC /cp")
    assert answer["wrote"] == {"copy.bin": f"sha256:{hashlib.sha256(model).hexdigest()}"}
    assert "contents" not in answer
    assert answer["hash_only"] == {"copy.bin": len(model)}
    assert str(len(model)) not in json.dumps(answer["wrote"])

    second = folders.fresh("replayed", model_bin=model)  # no copy.bin
    refused = execute_run(create_replay(source).pk)

    assert refused.status == Run.Status.FAILED
    error = refused.nodes.get(name="copy").error
    assert error.startswith("`cp model.bin copy.bin` wrote copy.bin"), error
    assert f"{len(model)} bytes" in error and "only its hash was recorded" in error
    assert "FileNotFoundError" not in error
    assert not (second / "copy.bin").exists()

    # A folder where the file already holds what the command left needs nothing written.
    (second / "copy.bin").write_bytes((first / "copy.bin").read_bytes())
    again = execute_run(create_replay(source).pk)
    assert replay_verdict(source, again).verdict == "identical", again.error


def test_a_command_keeps_the_contents_it_wrote_up_to_its_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(commands, "WRITTEN_BYTES", 100)
    monkeypatch.setattr(commands, "WRITTEN_TOTAL", 150)
    command = Command.of(["tool", "a.txt", "b.txt", "c.bin", "d.txt"], cwd=tmp_path)
    (tmp_path / "d.txt").write_text("gone soon")
    before = command.files()
    (tmp_path / "a.txt").write_text("a" * 80)
    (tmp_path / "b.txt").write_text("b" * 80)  # a + b: over the command's bound
    (tmp_path / "c.bin").write_bytes(b"\xff" * 120)  # over a file's bound
    (tmp_path / "d.txt").unlink()

    written = command.wrote(before)

    assert set(written.digests) == {"a.txt", "b.txt", "c.bin", "d.txt"}
    assert written.digests["d.txt"] is None
    assert written.contents == {"a.txt": "a" * 80}
    assert written.hash_only == {"b.txt": 80, "c.bin": 120}
