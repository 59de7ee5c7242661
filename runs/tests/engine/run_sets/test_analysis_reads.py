"""``runs.engine.analysis`` reads finished runs; planning, writing and executing sets of runs is
``runs.engine.run_sets``' (issue 42, item 4). The modules' source is parsed — a writer imported
or a row created anywhere under analysis fails here, naming the module and the line."""

from __future__ import annotations

import ast
from pathlib import Path

import runs.engine.analysis

ANALYSIS = Path(runs.engine.analysis.__file__).parent

# What makes or executes runs: imported by name, it is a writer.
WRITERS = frozenset(
    {
        "make_fork",
        "open_fork",
        "create_run",
        "create_replay",
        "execute_run",
        "execute",
        "make_samples",
        "make_batch",
    }
)
WRITER_MODULES = ("runs.engine.run_sets",)
CREATES = frozenset({"create", "bulk_create", "get_or_create", "update_or_create"})
# Rows that are not runs: what a person asks to read (an outcome added on the dashboard).
ALLOWED_CREATES = {"outcomes/dashboard.py": "Outcome rows, the dashboard's outcome definitions"}


def writes(source: str, where: str) -> list[str]:
    """Each import of a writer and each ``.objects.create``-like call in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.startswith(WRITER_MODULES):
                found.append(f"{where}:{node.lineno} imports {module}")
            found += [
                f"{where}:{node.lineno} imports {alias.name} from {module}"
                for alias in node.names
                if alias.name in WRITERS
            ]
        elif isinstance(node, ast.Import):
            found += [
                f"{where}:{node.lineno} imports {alias.name}"
                for alias in node.names
                if alias.name.startswith(WRITER_MODULES)
            ]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            call = node.func
            on_manager = isinstance(call.value, ast.Attribute) and call.value.attr == "objects"
            if call.attr == "bulk_create" or (call.attr in CREATES and on_manager):
                found.append(f"{where}:{node.lineno} calls .{call.attr}")
            elif call.attr in WRITERS - {"execute"}:  # ``runner.execute_run(…)``
                found.append(f"{where}:{node.lineno} calls .{call.attr}")
    return sorted(found, key=lambda hit: int(hit.split(":")[1].split(" ")[0]))


def test_no_module_under_analysis_makes_or_executes_runs():
    modules = sorted(ANALYSIS.rglob("*.py"))
    assert len(modules) > 20  # the whole package is read, not an empty glob
    found = []
    for path in modules:
        where = path.relative_to(ANALYSIS).as_posix()
        hits = writes(path.read_text(encoding="utf-8"), where)
        if where in ALLOWED_CREATES:
            hits = [h for h in hits if h.rsplit(".", 1)[-1] not in CREATES]
        found += hits
    assert found == []


def test_the_guard_sees_a_writer():
    planted = """
from runs.engine.forking.forks import make_fork
from runs.engine.run_sets.batches import plan_batch
import runs.engine.run_sets.execution
from runs.engine.execution import runner

def f(source):
    runner.execute_run(1)
    Run.objects.create(pipeline="p")
    BatchSource.objects.bulk_create([])
    return make_fork(source)
"""
    hits = writes(planted, "planted.py")
    assert [h.split(" ", 1)[0] for h in hits] == [
        "planted.py:2",
        "planted.py:3",
        "planted.py:4",
        "planted.py:8",
        "planted.py:9",
        "planted.py:10",
    ]
