"""The files of a tracker directory, read (issue 34, item 4): every file and directory that is a
symlink leading out of the path given is skipped the same way, with the same message, and
nothing of its app is imported; a line (or a JSON file) longer than the limit is refused while
it is read — never read whole — naming the file and the limit, and nothing of its app is
written."""

from __future__ import annotations

import builtins
import json
import shutil
from pathlib import Path

import burr
import pytest

from runs.engine.imports import tracker
from runs.engine.imports.service import import_path
from runs.models import Node, Run

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"
LIMIT = 4096  # bytes: a small limit, so a refused line need not be large


def _copy(root: Path, *apps: str) -> Path:
    for app in apps:
        shutil.copytree(DEMO / "demo_counter" / app, root / "demo_counter" / app)
    return root.resolve()


# --- symlinks leading out ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["log.jsonl", "graph.json", "metadata.json"])
def test_a_symlinked_file_leading_out_skips_its_app_with_the_one_message(db, tmp_path, name):
    outside = _copy(tmp_path / "elsewhere", "count-to-1")
    target = outside / "demo_counter" / "count-to-1" / name
    if name == "graph.json":  # what a graph leading out would bring in, were it followed
        graph = json.loads(target.read_text())
        graph["actions"][0]["name"] = "read_from_outside"
        target.write_text(json.dumps(graph))
    root = _copy(tmp_path / "burr", "count-to-10", "count-to-42")
    link = root / "demo_counter" / "count-to-10" / name
    link.unlink()
    link.symlink_to(target)
    # A symlink that stays inside the directory is followed.
    inside = root / "demo_counter" / "count-to-42" / name
    (inside.parent / "kept").mkdir()
    inside.rename(inside.parent / "kept" / name)
    inside.symlink_to(Path("kept", name))
    report = import_path(root)
    assert [(e.file, e.line) for e in report.errors] == [(str(link), None)]
    assert report.errors[0].error == tracker.leads_out(root.resolve())
    # Nothing of that app; its sibling imported whole; nothing read from outside kept.
    assert list(Run.objects.values_list("imported_from__app_id", flat=True)) == ["count-to-42"]
    assert Run.objects.get().nodes.count() == 43
    assert not Node.objects.filter(name="read_from_outside").exists()


def test_a_symlinked_directory_leading_out_is_skipped_with_the_same_message(db, tmp_path):
    outside = _copy(tmp_path / "elsewhere", "count-to-1", "count-to-10")
    root = _copy(tmp_path / "burr", "count-to-42")
    app_link = root / "demo_counter" / "escape"
    app_link.symlink_to(outside / "demo_counter" / "count-to-1")
    project_link = root / "other_project"
    project_link.symlink_to(outside / "demo_counter")
    report = import_path(root)
    assert sorted((e.file, e.error) for e in report.errors) == sorted(
        [(str(app_link), tracker.leads_out(root.resolve())),
         (str(project_link), tracker.leads_out(root.resolve()))]
    )  # fmt: skip
    assert list(Run.objects.values_list("imported_from__app_id", flat=True)) == ["count-to-42"]


# --- lines and files over the limit --------------------------------------------------------


def over(what: str) -> str:
    return f"a {what} longer than {LIMIT} bytes (the limit; --max-line raises it): refused"


class Counting:
    """Every file the tracker opens, wrapped: how many bytes were read from each."""

    def __init__(self) -> None:
        self.read: dict[str, int] = {}

    def open(self, path, mode="r", *args, **kwargs):
        f = builtins.open(path, mode, *args, **kwargs)
        counts, name = self.read, str(path)
        counts.setdefault(name, 0)

        class Reader:
            def __getattr__(self, attr):
                return getattr(f, attr)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                f.close()

            def read(self, size=-1):
                data = f.read(size)
                counts[name] += len(data)
                return data

            def readline(self, size=-1):
                data = f.readline(size)
                counts[name] += len(data)
                return data

            def __iter__(self):
                for line in f:
                    counts[name] += len(line)
                    yield line

        return Reader()


@pytest.fixture
def counting(monkeypatch) -> Counting:
    counter = Counting()
    monkeypatch.setattr(tracker, "open", counter.open, raising=False)
    return counter


def _long_log(root: Path, length: int) -> Path:
    """count-to-1 with one more line, its second, of ``length`` bytes (its newline included):
    an attribute its first step logged."""
    _copy(root, "count-to-1")
    log = root / "demo_counter" / "count-to-1" / "log.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    head = b'{"type": "attribute", "action_sequence_id": 0, "key": "k", "value": "'
    lines[1:1] = [head + b"x" * (length - len(head) - 3) + b'"}\n']
    log.write_bytes(b"".join(lines))
    return log


def test_a_line_over_the_limit_is_refused_while_it_is_read(db, tmp_path, counting):
    log = _long_log(tmp_path / "burr", 8 * 1024 * 1024)  # 8 MB on one line
    report = import_path(tmp_path / "burr", max_line=LIMIT)
    assert [(e.file, e.line) for e in report.errors] == [(str(log.resolve()), 2)]
    assert str(report.errors[0]) == f"{log.resolve()}:2: {over('line')}"
    assert Run.objects.count() == 0 and Node.objects.count() == 0
    # Read no further than the limit and one chunk past the first line: not the 8 MB.
    first = len(log.read_bytes().split(b"\n", 1)[0]) + 1
    assert counting.read[str(log.resolve())] <= first + LIMIT + tracker.CHUNK


def test_a_line_at_the_limit_is_read(db, tmp_path):
    _long_log(tmp_path / "burr", LIMIT + 1)  # LIMIT bytes and its newline
    report = import_path(tmp_path / "burr", max_line=LIMIT)
    assert report.errors == [] and Run.objects.get().nodes.count() == 2
    _long_log(tmp_path / "more", LIMIT + 2)  # one byte more
    assert str(import_path(tmp_path / "more", max_line=LIMIT).errors[0]).endswith(over("line"))


@pytest.mark.parametrize("name", ["graph.json", "metadata.json"])
def test_a_json_file_over_the_limit_is_refused_while_it_is_read(db, tmp_path, counting, name):
    root = _copy(tmp_path / "burr", "count-to-1")
    path = root / "demo_counter" / "count-to-1" / name
    path.write_text(json.dumps({"padding": "x" * (4 * 1024 * 1024)}))
    report = import_path(root, max_line=LIMIT)
    assert str(report.errors[0]) == f"{path.resolve()}: {over('file')}"
    assert Run.objects.count() == 0
    assert counting.read[str(path.resolve())] <= LIMIT + tracker.CHUNK


def test_the_command_refuses_it_in_one_line(db, tmp_path, capsys):
    from django.core.management import call_command

    log = _long_log(tmp_path / "burr", 64 * 1024)
    call_command("rewind_import", str(tmp_path / "burr"), "--max-line", str(LIMIT))
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {log.resolve()}:2: {over('line')}"]
    assert Run.objects.count() == 0
