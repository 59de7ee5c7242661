"""Export a run as a test: a pytest file and a JSON fixture that replay it offline.

The fixture holds exactly what the engine reads when it replays the run, and nothing of the
machine it came from: the rows of the run and of every run it descends from or inherits a
step from (their overrides apply again on a replay, DESIGN.md "Forks of forks"), its steps,
the Burr state row a fork starts from, and the LLM and tool cache entries its steps pinned
(``Node.cache_entries``: a replay reads exactly those). With ``against`` (usually the run's
parent) both runs are replayed and the fields their diff changes are asserted too: the
counterfactual itself becomes a test.

The test file needs Rewind installed (the ``runs`` package importable) and nothing else: it
builds a throwaway SQLite database in a child process, loads the fixture, replays through
``runs.engine.forking.replays`` / ``runs.engine.execution.runner`` with every socket refused, and compares
each step's output hash, the trajectory hash and the artifact hash with the recording. An
edited answer in the fixture fails it, naming the step.
"""

from __future__ import annotations

import io
import json
import math
import textwrap
import zipfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models

from runs.engine.errors import RewindError
from runs.engine.execution.persister import PARTITION_KEY
from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry

if TYPE_CHECKING:
    from runs.engine.analysis.diff import RunDiff

FORMAT = "rewind-export/1"

# The columns a fixture carries, per table. Explicit rather than "every field": a fixture is a
# contract with the tests already exported, and timestamps, heartbeats, hit counts and server
# paths mean nothing in another database (columns added later keep their defaults there).
RUN_FIELDS = (
    "id",
    "pipeline",
    "inputs",
    "provider",  # a snapshot: model, temperature, preset, base URL without credentials
    "status",
    "error",
    "parent_id",
    "root_id",
    "fork_node",
    "fork_sequence_id",
    "override",
    "turns",
    "halt",
    "mode",
    "artifact_sha256",
    "trajectory_sha256",
)
NODE_FIELDS = (
    "run_id",
    "sequence_id",
    "name",
    "kind",
    "status",
    "inputs",
    "output",
    "output_sha256",
    "prompt",
    "model_requested",
    "model_answered",
    "temperature",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cost_usd",
    "cache_source",
    "cache_key",
    "cache_entries",
    "calls",
    "cache_note",
    "src_run_id",
    "src_sequence_id",
    "error",
    "raw_output",
)
EDGE_FIELDS = ("run_id", "sequence_id", "from_node", "to_node", "condition")
STATE_FIELDS = ("partition_key", "app_id", "sequence_id", "position", "status", "state")
LLM_FIELDS = (
    "id",
    "key",
    "occurrence",
    "node_name",
    "model_requested",
    "model_answered",
    "request",
    "response",
    "response_sha256",
    "usage",
)
TOOL_FIELDS = (
    "id",
    "key",
    "occurrence",
    "tool",
    "tool_version",
    "args",
    "result",
    "result_sha256",
)


class ExportError(RewindError):
    """A run that cannot be exported as a test (not completed, a row it needs is gone, …)."""


@dataclass(frozen=True)
class ExportFiles:
    """The two files of an export, named after ``stem``: ``test_name`` (pytest) and
    ``fixture_name`` (JSON, ``fixture_file(stem)``: the test source names it)."""

    stem: str
    test_source: str
    fixture: dict[str, Any]

    @property
    def test_name(self) -> str:
        return f"test_{self.stem}.py"

    @property
    def fixture_name(self) -> str:
        return fixture_file(self.stem)

    @property
    def folder(self) -> str:
        """The folder a download unpacks into."""
        return self.stem.replace("_", "-")

    def files(self) -> dict[str, bytes]:
        fixture = json.dumps(self.fixture, indent=1, ensure_ascii=False)
        return {
            self.test_name: self.test_source.encode("utf-8"),
            self.fixture_name: (fixture + "\n").encode("utf-8"),
        }


@dataclass(frozen=True)
class Export(ExportFiles):
    """An exported run (and the run it is diffed ``against``)."""

    run: int
    against: int | None


def build_export(run: Run, against: Run | None = None) -> Export:
    """The test and fixture that replay ``run`` (and ``against``) offline; nothing is written."""
    replayed = [run] if against is None else [run, against]
    if against is not None and against.pk == run.pk:
        raise ExportError(f"--against names run {run.pk} itself; name another run (its parent)")
    for each in replayed:
        if each.status != Run.Status.COMPLETED or not each.trajectory_sha256:
            raise ExportError(
                f"run {each.pk} is {each.status}; only a completed run has a trajectory to "
                "assert, so only a completed run can be exported"
            )
    fixture = _fixture(run, against, replayed)
    stem = f"rewind_run_{run.pk}" + (f"_against_{against.pk}" if against is not None else "")
    fixture_name = fixture_file(stem)
    expected = {
        each.pk: {
            "trajectory_sha256": each.trajectory_sha256,
            "artifact_sha256": each.artifact_sha256,
            "steps": [
                [n["sequence_id"], n["name"], n["output_sha256"]]
                for n in fixture["nodes"]
                if n["run_id"] == each.pk
            ],
        }
        for each in replayed
    }
    changed = None
    if against is not None:
        from runs.engine.analysis.diff import diff_runs  # reads artifact files; only needed here

        changed = changed_fields(diff_runs(against, run))
    source = _test_source(run, against, fixture_name, expected, changed)
    return Export(stem, source, fixture, run.pk, against.pk if against else None)


def fixture_file(stem: str) -> str:
    return f"{stem}.json"


def changed_fields(diff: RunDiff) -> list[dict[str, Any]]:
    """The leaves that differ, step by step, in a ``diff_runs`` result (what the test asserts)."""
    return [
        {
            "node": change["name"],
            "fields": sorted(
                ({"path": f["path"], "a": f["a"], "b": f["b"]} for f in change["fields"]),
                key=lambda f: f["path"],
            ),
        }
        for change in diff.changes
        if not change["same"]
    ]


def write_export(export: ExportFiles, out: Path) -> list[Path]:
    """Write the export's files into ``out`` (created if missing); the paths written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, data in export.files().items():
            path = out / name
            path.write_bytes(data)
            written.append(path)
    except OSError as exc:
        raise ExportError(f"cannot write the export into {out}: {exc.strerror or exc}") from None
    return written


def zip_export(export: ExportFiles) -> bytes:
    """The export as a zip holding one folder. Entries carry a fixed date, so the same run
    (or batch) always gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in export.files().items():
            info = zipfile.ZipInfo(f"{export.folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


# --------------------------------------------------------------------------- the fixture


def _row(obj: models.Model, fields: tuple[str, ...]) -> dict[str, Any]:
    row = {}
    for name in fields:
        value = getattr(obj, name)
        row[name] = str(value) if isinstance(value, Decimal) else value
    return row


def _fixture(run: Run, against: Run | None, replayed: list[Run]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "run": run.pk,
        "against": against.pk if against is not None else None,
        **fixture_tables(replayed),
    }


def fixture_tables(replayed: list[Run]) -> dict[str, Any]:
    """What replaying each of ``replayed`` offline reads: the tables ``load_fixture`` (in the
    exported file) loads into the throwaway database, and the pipelines to register."""
    ids = [each.pk for each in replayed]
    nodes = list(Node.objects.filter(run_id__in=ids).order_by("run_id", "sequence_id"))
    edges = list(Edge.objects.filter(run_id__in=ids).order_by("run_id", "sequence_id"))
    runs = _runs_needed(set(ids) | {n.src_run_id for n in nodes})
    return {
        # The registry entry of each pipeline, so the test can set REWIND_PIPELINES.
        "pipelines": _registry({r.pipeline for r in runs}),
        "runs": [_row(r, RUN_FIELDS) for r in runs],
        "nodes": [_row(n, NODE_FIELDS) for n in nodes],
        "edges": [_row(e, EDGE_FIELDS) for e in edges],
        "burr_state": [_row(s, STATE_FIELDS) for s in _start_states(replayed, nodes)],
        **_pinned_entries(nodes),
    }


def _runs_needed(wanted: set[int]) -> list[Run]:
    """``wanted`` and every run they point at (parent, root), transitively: the rows the
    foreign keys need, and the ancestors whose overrides a replay applies again."""
    found: dict[int, Run] = {}
    pending = set(wanted)
    while pending:
        batch = list(Run.objects.filter(pk__in=pending))
        missing = pending - {r.pk for r in batch}
        if missing:
            raise ExportError(f"run {min(missing)} is gone; the export needs it")
        found.update((r.pk, r) for r in batch)
        pending = {pk for r in batch for pk in (r.parent_id, r.root_id) if pk} - found.keys()
    return [found[pk] for pk in sorted(found)]


def _registry(names: set[str]) -> dict[str, str]:
    registry = {}
    for name in sorted(names):
        if name not in settings.REWIND_PIPELINES:
            raise ExportError(f"pipeline {name!r} is not registered in REWIND_PIPELINES here")
        registry[name] = settings.REWIND_PIPELINES[name]
    return registry


def _start_states(replayed: list[Run], nodes: list[Node]) -> list[BurrState]:
    """The Burr state row each replay starts from: a fork's replay starts after its last
    inherited step, from the row of the run that really executed it."""
    rows = []
    for each in replayed:
        inherited = [
            n for n in nodes if n.run_id == each.pk and n.cache_source == Node.CacheSource.INHERITED
        ]
        if not inherited:
            continue  # a root run (or a fork of its first step) starts from its inputs
        last = max(inherited, key=lambda n: n.sequence_id)
        row = (
            BurrState.objects.filter(
                partition_key=PARTITION_KEY,
                app_id=str(last.src_run_id),
                sequence_id=last.src_sequence_id,
                status="completed",
            )
            .order_by("-id")
            .first()
        )
        if row is None:
            raise ExportError(
                f"run {each.pk} starts after step {last.sequence_id} ({last.name}) of run "
                f"{last.src_run_id}, whose state row is gone; it cannot be replayed"
            )
        rows.append(row)
    return rows


def _pinned_entries(nodes: list[Node]) -> dict[str, list[dict[str, Any]]]:
    """The cache entries the replayed runs' executed steps pinned: what their replays read.
    Inherited steps are not executed again, so their entries are not needed."""
    wanted: dict[str, dict[int, Node]] = {"llm": {}, "tool": {}}
    for node in nodes:
        if node.cache_source == Node.CacheSource.INHERITED:
            continue
        for pin in node.cache_entries or []:
            table, _, pk = str(pin).partition(":")
            if table in wanted and pk.isdigit():
                wanted[table].setdefault(int(pk), node)
    found = {
        "llm": list(LLMCacheEntry.objects.filter(pk__in=wanted["llm"]).order_by("pk")),
        "tool": list(ToolCacheEntry.objects.filter(pk__in=wanted["tool"]).order_by("pk")),
    }
    for table, entries in found.items():
        missing = wanted[table].keys() - {e.pk for e in entries}
        if missing:
            pk = min(missing)
            node = wanted[table][pk]
            raise ExportError(
                f"step {node.name} (sequence {node.sequence_id}) of run {node.run_id} read "
                f"cache entry {table}:{pk}, which was deleted; replay the run and export the "
                "replay instead"
            )
    return {
        "llm_cache": [_row(e, LLM_FIELDS) for e in found["llm"]],
        "tool_cache": [_row(e, TOOL_FIELDS) for e in found["tool"]],
    }


# --------------------------------------------------------------------------- the test file


def inline(value: Any) -> str:
    """Plain JSON data as a one-line Python literal that loads: JSON's ASCII string escapes are
    Python's (a lone surrogate included), and a float JSON would write as ``NaN`` or
    ``Infinity`` — names Python does not know — is written ``float("nan")``."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{inline(str(k))}: {inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return json.dumps(value)


def _expected_literal(expected: dict[int, dict[str, Any]]) -> str:
    lines = ["{"]
    for run, facts in expected.items():
        lines += [
            f"    {run}: {{",
            f'        "trajectory_sha256": {inline(facts["trajectory_sha256"])},',
            f'        "artifact_sha256": {inline(facts["artifact_sha256"])},',
            '        "steps": [',
            *(
                f"            ({seq}, {inline(name)}, {inline(sha)}),"
                for seq, name, sha in facts["steps"]
            ),
            "        ],",
            "    },",
        ]
    return "\n".join([*lines, "}"])


def _changed_literal(changed: list[dict[str, Any]] | None) -> str:
    if changed is None:
        return "None"
    lines = ["["]
    for change in changed:
        lines += [
            "    {",
            f'        "node": {inline(change["node"])},',
            '        "fields": [',
            *(f"            {inline(field)}," for field in change["fields"]),
            "        ],",
            "    },",
        ]
    return "\n".join([*lines, "]"])


def _test_source(
    run: Run,
    against: Run | None,
    fixture_name: str,
    expected: dict[str, Any],
    changed: list[dict[str, Any]] | None,
) -> str:
    command = (
        f"rewind_export {run.pk}" + (f" --against {against.pk}" if against else "") + " --out DIR"
    )
    tests = TEST_RUN.substitute(run=run.pk)
    if against is not None:
        tests += TEST_RUN.substitute(run=against.pk) + TEST_DIFF.substitute(
            run=run.pk, against=against.pk
        )
    what = f"run {run.pk}" + (f" and run {against.pk}" if against else "")
    return TEST_FILE.substitute(
        what=what,
        command=command,
        fixture=fixture_name,
        run=run.pk,
        against=against.pk if against else None,
        about=_about(run, against),
        expected=_expected_literal(expected),
        changed=_changed_literal(changed),
        tests=tests,
    )


def _about(run: Run, against: Run | None) -> str:
    checks = "each step's output hash, the trajectory hash and the artifact hash"
    if against is not None:
        checks += f", and the leaves that differ from run {against.pk} to run {run.pk}"
    paragraphs = [
        "Run it with `pytest`. It needs Rewind installed (the `runs` and `rewind_site` "
        "packages importable) and nothing else: no Rewind database, no network, no API key.",
        "A child process builds a throwaway SQLite database, migrates it, loads the fixture "
        "(the runs' rows, their steps, the Burr state a fork starts from and the LLM and tool "
        "answers the steps pinned), replays through Rewind's engine with every socket refused, "
        f"and reports what it got. The tests compare that with the recording: {checks}. Edit "
        "a recorded answer in the fixture and a test fails, naming the step.",
    ]
    return "\n\n".join(textwrap.fill(p, width=92) for p in paragraphs)


TEST_RUN = Template("""

def test_run_${run}_replays_offline_as_recorded(replayed: dict) -> None:
    check_replay($run, replayed)
""")

TEST_DIFF = Template("""

def test_run_${run}_differs_from_run_${against}_in_the_recorded_fields(replayed: dict) -> None:
    got = replayed["changed"]
    if got is None:
        pytest.fail("run $run and run $against did not both replay; see their own tests", pytrace=False)
    if got != CHANGED:
        pytest.fail(
            "run $against -> run $run: the diff of the replays is not the recorded one:\\n"
            + describe_changes(CHANGED, got),
            pytrace=False,
        )
""")

# The parts of an exported test file that every export shares, in the order they stand in
# the file: the imports and where the fixture is (HARNESS_HEAD, then the export's own
# constants), the module fixture ``replayed`` that runs the child process (HARNESS_RUNNER, then
# the export's tests and checks), the child's environment, refused sockets and throwaway
# database loaded from the fixture (HARNESS_CHILD, then the export's ``replay_offline``) and
# the entry point of the child (HARNESS_MAIN). Each needs ``$fixture``, the fixture's name.
# A batch's suite (batches/suite.py) is built from the same parts.


HARNESS_HEAD = """from __future__ import annotations

import importlib.util
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "$fixture"
"""


HARNESS_RUNNER = '''TIMEOUT_SECONDS = 900
# The endpoint a provider client is pointed at: nothing answers there, and sockets are refused
# anyway. A call that misses the recorded answers fails its step instead of reaching anything.
NOWHERE = "http://127.0.0.1:9/v1"
KEPT = ("REWIND_DATA_DIR", "REWIND_DATA_FILE_MAX_BYTES")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """What the offline replays produced (``replay_offline``, run in a child process)."""
    work = tmp_path_factory.mktemp("rewind-replay")
    result = work / "result.json"
    child = subprocess.run(
        [sys.executable, __file__, str(FIXTURE), str(result)],
        cwd=work,
        env=environment(work),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    if child.returncode != 0 or not result.exists():
        pytest.fail(
            f"the offline replay stopped (exit {child.returncode}):\\n{child.stderr[-6000:]}",
            pytrace=False,
        )
    return json.loads(result.read_text(encoding="utf-8"))
'''


HARNESS_CHILD = '''# --- the child process: a throwaway database, the fixture, the replays -------------------------


def environment(work: Path) -> dict[str, str]:
    """The child's environment: its own database and artifact folder, the pipelines the
    fixture names, a provider endpoint where nothing answers and no key of yours."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name in KEPT or not name.startswith(("REWIND_", "OPENAI_", "DJANGO_"))
    }
    for name in ("DATABASE_URL", "SECRET_KEY", "DEBUG"):
        env.pop(name, None)
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    # Rewind as this process finds it (installed, or on this process's path).
    found = [importlib.util.find_spec(name) for name in ("runs", "rewind_site")]
    if not all(spec and spec.origin for spec in found):
        pytest.fail("Rewind is not importable here: install it (pip install -e <rewind>)", pytrace=False)
    roots = {str(Path(spec.origin).parent.parent) for spec in found}
    env.update(
        DJANGO_SETTINGS_MODULE="rewind_site.settings",
        DATABASE_URL=f"sqlite:///{work / 'rewind.sqlite3'}",
        REWIND_ARTIFACT_DIR=str(work / "artifacts"),
        REWIND_PIPELINES=",".join(f"{k}={v}" for k, v in fixture["pipelines"].items()),
        REWIND_LLM_PRESET="custom",
        REWIND_LLM_BASE_URL=NOWHERE,
        REWIND_LLM_RETRIES="0",
        REWIND_LLM_TIMEOUT="5",
        SECRET_KEY=secrets.token_urlsafe(50),
        # A Burr app's own client may insist on a key and a URL to be built; neither is used.
        OPENAI_API_KEY="sk-rewind-offline-replay",
        OPENAI_BASE_URL=NOWHERE,
        PYTHONPATH=os.pathsep.join([*sorted(roots), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    return env


def refuse_sockets() -> None:
    """No connection and no name lookup: a replay reads recorded answers only."""
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network access is refused in an offline Rewind replay")

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(sock: socket.socket, address: object) -> None:
        if sock.family != socket.AF_UNIX:
            refuse()
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: object) -> int:
        if sock.family != socket.AF_UNIX:
            refuse()
        return real_connect_ex(sock, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
    socket.gethostbyname = refuse  # type: ignore[assignment]


def load_fixture(fixture_path: Path) -> dict:
    """Sockets refused, Django set up on the throwaway database (migrated), the fixture's rows
    loaded into it: what a replay reads. The fixture, as read."""
    refuse_sockets()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction

    from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry

    call_command("migrate", verbosity=0, interactive=False)
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    tables = [
        (Run, "runs"),
        (Node, "nodes"),
        (Edge, "edges"),
        (BurrState, "burr_state"),
        (LLMCacheEntry, "llm_cache"),
        (ToolCacheEntry, "tool_cache"),
    ]
    with transaction.atomic():
        for model, key in tables:
            model.objects.bulk_create([model(**row) for row in fixture[key]])
    return fixture


'''


HARNESS_MAIN = """if __name__ == "__main__":
    replay_offline(Path(sys.argv[1]), Path(sys.argv[2]))
"""


TEST_FILE = Template(
    '''"""Rewind: $what replayed offline, as a test.

Made by: python manage.py $command
Fixture: $fixture

$about
"""

'''
    + HARNESS_HEAD
    + """RUN = $run
AGAINST = $against
# Per replayed run: its steps as [sequence id, name, output sha256], its trajectory and
# artifact hashes, as recorded.
EXPECTED = $expected
# The leaves that differ from run AGAINST to run RUN, step by step (`rewind_diff AGAINST RUN`).
CHANGED = $changed

"""
    + HARNESS_RUNNER
    + "$tests"
    + '''

# --- the checks ---------------------------------------------------------------------------


def check_replay(run: int, replayed: dict) -> None:
    """Step by step, then the trajectory and the artifact; the first difference fails."""
    expected, got = EXPECTED[run], replayed["runs"][str(run)]
    steps = got["steps"]
    for index, (sequence_id, name, sha256) in enumerate(expected["steps"]):
        where = f"run {run} did not replay as recorded: step {name} (sequence {sequence_id})"
        if index >= len(steps):
            pytest.fail(f"{where} was not reached: {got['error'] or 'the run stopped'}", pytrace=False)
        step = steps[index]
        if step["name"] != name:
            pytest.fail(f"{where}: the replay ran {step['name']} there instead", pytrace=False)
        if step["status"] != "completed":
            pytest.fail(f"{where} failed: {step['error'] or got['error']}", pytrace=False)
        if step["output_sha256"] != sha256:
            pytest.fail(
                f"{where} wrote a different output (sha256 {step['output_sha256'][:12]}, "
                f"recorded {sha256[:12]}): " + describe_fields(step["changes"]),
                pytrace=False,
            )
        if step["cache_source"] == "live" and step["kind"] != "code":
            pytest.fail(f"{where} was not answered from the recorded responses", pytrace=False)
    if len(steps) > len(expected["steps"]):
        extra = steps[len(expected["steps"])]
        pytest.fail(
            f"run {run} did not replay as recorded: it ran step {extra['name']} "
            f"(sequence {extra['sequence_id']}) past its recorded end",
            pytrace=False,
        )
    assert got["status"] == "completed", f"run {run}'s replay {got['status']}: {got['error']}"
    assert got["trajectory_sha256"] == expected["trajectory_sha256"], f"run {run}: trajectory hash"
    if expected["artifact_sha256"]:
        assert got["artifact_sha256"] == expected["artifact_sha256"], f"run {run}: artifact hash"


def shorten(value: object, width: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def describe_fields(fields: list[dict], limit: int = 4) -> str:
    if not fields:
        return "no leaf of the output differs from the fixture's (was the hash edited?)"
    lines = [f"{f['path']}: {shorten(f['a'])} -> {shorten(f['b'])}" for f in fields[:limit]]
    more = f" (and {len(fields) - limit} more)" if len(fields) > limit else ""
    return "; ".join(lines) + more


def describe_changes(expected: list[dict], got: list[dict]) -> str:
    want = {c["node"]: c["fields"] for c in expected}
    have = {c["node"]: c["fields"] for c in got}
    lines = []
    for node in list(want) + [n for n in have if n not in want]:
        if want.get(node) != have.get(node):
            lines.append(
                f"step {node}: recorded {describe_fields(want.get(node) or [])}; "
                f"replayed {describe_fields(have.get(node) or [])}"
            )
    return "\\n".join(lines)


'''
    + HARNESS_CHILD
    + """def replay_offline(fixture_path: Path, result_path: Path) -> None:
    fixture = load_fixture(fixture_path)
    from runs.engine.analysis.diff import diff_runs, diff_values
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.replays import create_replay
    from runs.models import Run

    recorded = {(n["run_id"], n["sequence_id"]): n for n in fixture["nodes"]}

    result: dict = {"runs": {}, "changed": None}
    replays = {}
    for run in [RUN] if AGAINST is None else [RUN, AGAINST]:
        replay = execute_run(create_replay(Run.objects.get(pk=run)).pk)
        replays[run] = replay
        steps = []
        for node in replay.nodes.order_by("sequence_id"):
            before = recorded.get((run, node.sequence_id))
            differs = before is not None and before["output_sha256"] != node.output_sha256
            steps.append(
                {
                    "sequence_id": node.sequence_id,
                    "name": node.name,
                    "kind": node.kind,
                    "status": node.status,
                    "cache_source": node.cache_source,
                    "output_sha256": node.output_sha256,
                    "error": node.error,
                    "changes": diff_values(before["output"], node.output) if differs else [],
                }
            )
        result["runs"][str(run)] = {
            "replay": replay.pk,
            "status": replay.status,
            "error": replay.error,
            "trajectory_sha256": replay.trajectory_sha256,
            "artifact_sha256": replay.artifact_sha256,
            "steps": steps,
        }
    if AGAINST is not None and all(r.status == "completed" for r in replays.values()):
        diff = diff_runs(replays[AGAINST], replays[RUN])
        result["changed"] = [
            {
                "node": c["name"],
                "fields": sorted(
                    ({"path": f["path"], "a": f["a"], "b": f["b"]} for f in c["fields"]),
                    key=lambda f: f["path"],
                ),
            }
            for c in diff.changes
            if not c["same"]
        ]
    result_path.write_text(json.dumps(result, ensure_ascii=False, default=str), encoding="utf-8")


"""
    + HARNESS_MAIN
)
