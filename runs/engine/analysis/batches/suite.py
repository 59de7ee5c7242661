"""A finished batch exported as a regression suite: one pytest file, one JSON fixture.

One test per source row (``test_run_42``; ``test_run_42_value_2`` for a batch of several
values), each replaying the batch's fork of that source offline — the way ``rewind_export``
replays a run (``export``: the same fixture tables, the same child process with every socket
refused and a throwaway database) — and asserting each outcome after the change as the batch
recorded it: its value (or that it was missing) and, when the outcome has a check, whether it
passed. An answer edited in the fixture fails the test of every source whose fork read it,
naming the run and the outcome.

A source the change could not apply to, or whose fork did not complete, has no outcome after
the change to assert: its test is kept, and skipped with the reason (``pytest -rs`` lists
them). The outcomes are those of the batch's pipeline when it is exported (declared and added
on the dashboard), written into the test file with their checks, so the suite needs no
database of the user's to know what to read.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from string import Template
from typing import Any

from runs.engine.analysis.batches.results import SourceResult, batch_result
from runs.engine.analysis.export import (
    HARNESS_CHILD,
    HARNESS_HEAD,
    HARNESS_MAIN,
    HARNESS_RUNNER,
    ExportError,
    ExportFiles,
    fixture_file,
    fixture_tables,
    inline,
    masked_note,
)
from runs.engine.analysis.outcomes.values import outcomes_for
from runs.models import Batch

FORMAT = "rewind-batch-suite/1"


@dataclass(frozen=True)
class Suite(ExportFiles):
    """A batch's suite: ``tests`` test functions, ``skipped`` of them skipped with a reason."""

    batch: int
    tests: int
    skipped: int


def build_suite(batch: Batch) -> Suite:
    """The test file and fixture of ``batch``; nothing is written. Refused (``ExportError``)
    while any run of the batch is still going, and when there is nothing to assert."""
    result = batch_result(batch)
    if not result.progress.finished:
        done, total = result.progress.done, result.progress.total
        raise ExportError(
            f"batch {batch.pk} has not finished ({done} of {total} runs done); export it once "
            "every run has finished"
        )
    outcomes = outcomes_for(batch.pipeline)
    if not outcomes:
        raise ExportError(
            f"the {batch.pipeline} pipeline declares no outcome, so batch {batch.pk} has "
            "nothing to assert; add one (on a run's page or in REWIND_OUTCOMES)"
        )
    several = result.several_values
    sources = {_test_name(s, several): _expected(s, several) for s in result.sources}
    forks = [s.row.fork for s in result.sources if s.completed]
    if not forks:
        raise ExportError(f"no fork of batch {batch.pk} completed; there is nothing to assert")
    stem = f"rewind_batch_{batch.pk}"
    fixture_name = fixture_file(stem)
    fixture = {"format": FORMAT, "batch": batch.pk, **fixture_tables(forks)}
    skipped = sum(1 for row in sources.values() if row["skip"])
    source = SUITE_FILE.substitute(
        batch=batch.pk,
        fixture=fixture_name,
        about=_about(batch, fixture.get("masked") or ()),
        outcomes=_outcomes_literal([o.as_json() for o in outcomes]),
        sources=_sources_literal(sources),
        tests="".join(TEST_SOURCE.substitute(test=name) for name in sources),
    )
    return Suite(stem, source, fixture, batch.pk, len(sources), skipped)


def _test_name(source: SourceResult, several: bool) -> str:
    """``run_42``, or ``run_42_value_2`` (the value's place in the batch, from 1)."""
    name = f"run_{source.row.source_id}"
    return f"{name}_value_{source.row.value_index + 1}" if several else name


def _expected(source: SourceResult, several: bool) -> dict[str, Any]:
    row = source.row
    skip = None
    if row.fork_id is None:
        skip = f"the change does not apply to run {row.source_id}: {row.error}"
    elif not source.completed:
        why = f": {row.fork.error}" if row.fork.error else ""
        skip = (
            f"fork {row.fork_id} of run {row.source_id} {row.fork.status}{why}; it has no "
            "outcome after the change to assert"
        )
    return {
        "run": row.source_id,
        "value": source.value if several else None,
        "fork": row.fork_id if skip is None else None,
        "skip": skip,
        "outcomes": []
        if skip
        else [
            {
                "name": change.name,
                "value": None if change.after is None else change.after.value,
                "pass": None if change.after is None else change.after.passed,
                "missing": change.after is None or change.after.missing,
            }
            for change in source.outcomes
        ],
    }


def _outcomes_literal(outcomes: list[dict[str, Any]]) -> str:
    lines = ["["]
    lines += [
        f"    {inline({'name': o['name'], 'path': o['path'], 'check': o['check']})},"
        for o in outcomes
    ]
    return "\n".join([*lines, "]"])


def _sources_literal(sources: dict[str, dict[str, Any]]) -> str:
    lines = ["{"]
    for name, row in sources.items():
        lines += [f"    {inline(name)}: {{"]
        lines += [f"        {inline(key)}: {inline(row[key])}," for key in row if key != "outcomes"]
        lines += ['        "outcomes": [']
        lines += [f"            {inline(outcome)}," for outcome in row["outcomes"]]
        lines += ["        ],", "    },"]
    return "\n".join([*lines, "}"])


def _about(batch: Batch, masked_rows: Sequence[str] = ()) -> str:
    values = ", ".join(repr(v) for v in batch.values)
    if batch.is_regression:
        what = (
            f"Regression replay {batch.pk} re-ran the recorded runs of the {batch.pipeline} "
            f"pipeline with its code at {batch.code_label}. One test per recorded run: its "
            "regression run is replayed offline and each outcome with that code must be what "
            "the regression replay recorded (its value, and whether its check passed)."
        )
    else:
        what = (
            f"Batch {batch.pk} set {batch.field} of step {batch.node} to {values} in runs of "
            f"the {batch.pipeline} pipeline. One test per source run: the batch's fork of it is "
            "replayed offline and each outcome after the change must be what the batch "
            "recorded (its value, and whether its check passed)."
        )
    paragraphs = [
        what,
        "Run it with `pytest` (`-rs` lists the skipped sources and why). It needs Rewind "
        "installed (the `runs` and `rewind_site` packages importable) and nothing else: no "
        "Rewind database, no network, no API key. A child process builds a throwaway SQLite "
        "database, loads the fixture (the forks' rows and their sources', their steps, the "
        "Burr state each fork starts from and the LLM and tool answers the forks pinned), "
        "replays every fork with every socket refused and reads its outcomes. Edit a recorded "
        "answer in the fixture and the test of each run that read it fails, naming the run "
        "and the outcome.",
    ]
    text = "\n\n".join(textwrap.fill(p, width=92) for p in paragraphs)
    return text + ("\n\n" + masked_note(masked_rows) if masked_rows else "")


TEST_SOURCE = Template("""

def test_${test}(replayed: dict) -> None:
    check_outcomes("${test}", replayed)
""")

SUITE_FILE = Template(
    '''"""Rewind: batch $batch as a regression suite.

Made by: python manage.py rewind_export --batch $batch --out DIR
Fixture: $fixture

$about
"""

'''
    + HARNESS_HEAD
    + """BATCH = $batch
# The outcomes of the pipeline, as REWIND_OUTCOMES declares them: where each is read, its check.
OUTCOMES = $outcomes
# Per test: the source run, the value of the change (a batch of several values), the fork the
# batch made (null: skipped, ``skip`` says why) and each outcome after the change, as recorded.
SOURCES = $sources

"""
    + HARNESS_RUNNER
    + "$tests"
    + '''

# --- the checks ---------------------------------------------------------------------------


def shown(outcome: dict) -> str:
    if outcome["missing"]:
        return "missing"
    text = repr(outcome["value"])
    return text if len(text) <= 70 else text[:69] + "…"


def same(a: object, b: object) -> bool:
    """Equal as JSON: 1 and True, or 1 and 1.0, are different answers."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def check_outcomes(test: str, replayed: dict) -> None:
    """Each outcome of the replayed fork against the recording; every difference is named."""
    row = SOURCES[test]
    if row["skip"]:
        pytest.skip(row["skip"])
    where = f"run {row['run']}" + (f" (value {row['value']!r})" if row["value"] is not None else "")
    got = replayed[str(row["fork"])]
    have = {o["name"]: o for o in got["outcomes"]}
    wrong = []
    for want in row["outcomes"]:
        name, now = want["name"], have.get(want["name"])
        if now is None:
            wrong.append(f"outcome {name} was not read: {got['error'] or 'the replay stopped'}")
        elif now["missing"] != want["missing"] or not same(now["value"], want["value"]):
            wrong.append(f"outcome {name} was {shown(now)}, expected {shown(want)}")
        elif now["pass"] != want["pass"]:
            wrong.append(
                f"outcome {name}'s check gave pass={now['pass']}, expected pass={want['pass']}"
                + (f" ({now['why']})" if now["why"] else "")
            )
    replay = f"the replay of fork {row['fork']} {got['status']}: {got['error']}"
    if wrong:
        ended = "" if got["status"] == "completed" else f"\\n{where}: {replay}"
        pytest.fail("\\n".join(f"{where}: {line}" for line in wrong) + ended, pytrace=False)
    if got["status"] != "completed":
        pytest.fail(f"{where}: {replay}", pytrace=False)


'''
    + HARNESS_CHILD
    + '''def replay_offline(fixture_path: Path, result_path: Path) -> None:
    """Replay every fork of the fixture and read its outcomes; a fork that cannot be replayed
    is reported as failed, and only its own test fails."""
    load_fixture(fixture_path)
    from runs.engine.analysis.outcomes.declared import outcome_from_json
    from runs.engine.analysis.outcomes.values import evaluate
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.replays import create_replay
    from runs.models import Run

    outcomes = [outcome_from_json(o) for o in OUTCOMES]
    result: dict = {}
    for fork in sorted({row["fork"] for row in SOURCES.values() if row["fork"]}):
        try:
            replay = execute_run(create_replay(Run.objects.get(pk=fork)).pk)
        except Exception as exc:  # noqa: BLE001 - reported to the fork's own test
            result[str(fork)] = {"status": "failed", "error": repr(exc), "outcomes": []}
            continue
        result[str(fork)] = {
            "replay": replay.pk,
            "status": replay.status,
            "error": replay.error,
            "outcomes": [
                {"name": o.name, "value": o.value, "pass": o.passed, "missing": o.missing, "why": o.why}
                for o in evaluate(replay, outcomes=outcomes)
            ],
        }
    result_path.write_text(json.dumps(result, ensure_ascii=False, default=str), encoding="utf-8")


'''
    + HARNESS_MAIN
)
