"""One run's export: its fixture and the test that replays it (and the run it is diffed
against) offline; what it carries masked (``fixture``) named in the test's docstring. May
import ``runs.models``, ``runs.engine.analysis.diff`` and the export's other modules.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runs.engine.analysis.export.files import ExportError, ExportFiles, fixture_file
from runs.engine.analysis.export.fixture import fixture_tables, holds_secret, masked
from runs.engine.analysis.export.literals import _changed_literal, _expected_literal
from runs.engine.analysis.export.template import TEST_DIFF, TEST_FILE, TEST_RUN
from runs.models import Run

if TYPE_CHECKING:
    from runs.engine.analysis.diff import RunDiff

FORMAT = "rewind-export/1"


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
    if changed is not None and _mask_changed(changed):
        fixture["masked"].append(
            f"the fields that differ from run {against.pk} to run {run.pk} (CHANGED below)"
        )
    source = _test_source(run, against, fixture_name, expected, changed, fixture["masked"])
    return Export(stem, source, fixture, run.pk, against.pk if against else None)


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


def _mask_changed(changed: list[dict[str, Any]]) -> bool:
    """Mask, in place, the values of the diff's leaves that hold a secret (as the fixture's);
    whether any did."""
    hit = False
    for step in changed:
        for leaf in step["fields"]:
            for side in ("a", "b"):
                if holds_secret(leaf[side]):
                    leaf[side], hit = masked(leaf[side]), True
    return hit


def _fixture(run: Run, against: Run | None, replayed: list[Run]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "run": run.pk,
        "against": against.pk if against is not None else None,
        **fixture_tables(replayed),
    }


def _test_source(
    run: Run,
    against: Run | None,
    fixture_name: str,
    expected: dict[str, Any],
    changed: list[dict[str, Any]] | None,
    masked_rows: Sequence[str],
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
        about=_about(run, against, masked_rows),
        expected=_expected_literal(expected),
        changed=_changed_literal(changed),
        tests=tests,
    )


def _about(run: Run, against: Run | None, masked_rows: Sequence[str] = ()) -> str:
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
    text = "\n\n".join(textwrap.fill(p, width=92) for p in paragraphs)
    if masked_rows:
        text += "\n\n" + masked_note(masked_rows)
    return text


def masked_note(masked_rows: Sequence[str]) -> str:
    """What an export says of the values it carries masked (``fixture["masked"]``)."""
    head = textwrap.fill(
        "Masked: these hold what looks like a secret (a private key, a token). Rewind keeps such "
        "content exactly, encrypted, in its own database only; the fixture carries it as "
        "`[redacted]`, so what reads it will not replay as recorded and its test fails there:",
        width=92,
    )
    return (
        head
        + "\n"
        + "\n".join(
            textwrap.fill(line, width=92, initial_indent="- ", subsequent_indent="  ")
            for line in masked_rows
        )
    )
