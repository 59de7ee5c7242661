"""What a regression replay found (``rewind_regress --json``) and whether it fails a CI gate.

A regression replay is a batch (``run_sets.batches.plan_regression``) whose change is the app's code:
its per-source rows and its per-outcome rates are ``results.batch_result``'s; this adds what
only a code change asks — per run the first step whose output differs from the recorded run's
(``first_divergence``), the steps whose code version changed (``code_changed``, the
``Node.code_changed`` each step records; ``code_changes``, each with why: "helpers.py changed",
``versions.step_changes``), each outcome's pass before → after — and the gate:

- ``regress`` (the default): an outcome that passed now does not (fails, is missing, or its
  check cannot be evaluated);
- ``flip``: an outcome's value changed;
- ``diverge``: any step's output changed.

With samples an outcome change counts only when the noise rule calls it ``beyond-noise`` (a
source none of whose samples finished has no verdict, and counts). A regression run that did
not complete — the new code raised, a worker refused other code — fails every gate: the
question it was asked has no answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from runs.engine.analysis.batches.results import (
    BatchResult,
    OutcomeChange,
    SourceResult,
    batch_result,
    counts,
    regressed,
)
from runs.engine.apps.versions import step_changes
from runs.models import Batch, Node

FAIL_ON = ("regress", "flip", "diverge")


def _passed(value: Any) -> bool | None:
    return None if value is None else value.passed


@dataclass(frozen=True)
class RunRegression:
    """One source run under the new code."""

    source: SourceResult
    first_divergence: dict[str, Any] | None
    code_changed: list[str]
    # Each step of ``code_changed`` and why: {"node", "why": ["helpers.py changed", ...]}.
    code_changes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def run(self) -> int | None:
        return self.source.row.fork_id

    @property
    def completed(self) -> bool:
        return self.source.completed

    @property
    def regressions(self) -> list[OutcomeChange]:
        return [c for c in self.source.outcomes if regressed(c)]

    def problems(self, fail_on: str) -> list[str]:
        """Why this run fails the gate ``fail_on`` (none: it passes; a row that could not be
        re-run is skipped, not failed)."""
        row = self.source.row
        if row.fork_id is None:
            return []
        if not self.completed:
            return [f"the regression run {self.source.status}: {row.fork.error or 'no reason'}"]
        if fail_on == "diverge":
            if self.first_divergence is None:
                return []
            where = self.first_divergence
            return [f"step {where['node']} ({where['sequence_id']}) differs first"]
        wanted = regressed if fail_on == "regress" else (lambda c: bool(c.flipped) and counts(c))
        return [describe(c) for c in self.source.outcomes if wanted(c)]

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source.row.source_id,
            "run": self.run,
            "status": self.source.status,
            "first_divergence": self.first_divergence,
            "code_changed": self.code_changed,
            "code_changes": self.code_changes,
            "outcomes": [
                {
                    "name": change.name,
                    "before": change.as_json()["before"],
                    "after": change.as_json()["after"],
                    "passed_before": _passed(change.before),
                    "passed_after": _passed(change.after) if change.flipped is not None else None,
                    "flipped": change.flipped,
                    "verdict": change.verdict,
                }
                for change in self.source.outcomes
            ],
            "total_tokens": self.source.tokens,
            "error": self.source.row.error
            or (self.source.row.fork.error if self.source.row.fork_id else "")
            or None,
        }


def describe(change: OutcomeChange) -> str:
    """``best_group: "A" (pass) → "B" (fail), beyond-noise``."""
    data = change.as_json()

    def side(value: Any, outcome: Any) -> str:
        passed = _passed(outcome)
        mark = {True: " (pass)", False: " (fail)"}.get(passed, "")
        return ("missing" if outcome is None or outcome.missing else _short(value)) + mark

    text = f"{change.name}: {side(data['before'], change.before)} → "
    text += side(data["after"], change.after)
    return text + (f", {change.verdict}" if change.verdict else "")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


@dataclass
class RegressionResult:
    batch: Batch
    result: BatchResult
    runs: list[RunRegression]

    @property
    def regressions(self) -> int:
        """Outcomes that passed and now fail, over every run (not only a page of them)."""
        return sum(s.regressed for s in self.result.summary)

    def failures(self, fail_on: str) -> list[tuple[RunRegression, list[str]]]:
        found = [(run, run.problems(fail_on)) for run in self.runs]
        return [(run, problems) for run, problems in found if problems]

    def as_json(self) -> dict[str, Any]:
        batch = self.batch
        return {
            "batch": batch.pk,
            "pipeline": batch.pipeline,
            "code_version": batch.code_version,
            "commit": batch.code_commit or None,
            "samples": batch.samples,
            "finished": self.result.progress.finished,
            "progress": {"done": self.result.progress.done, "total": self.result.progress.total},
            "runs": [run.as_json() for run in self.runs],
            "outcomes": [
                {
                    "name": s.outcome,
                    "flipped": s.flipped,
                    "of": s.n,
                    "rate": None if s.rate is None else round(s.rate, 6),
                    "low": round(s.interval[0], 6),
                    "high": round(s.interval[1], 6),
                    "beyond_noise": s.beyond,
                    "within_noise": s.within,
                    "regressed": s.regressed,
                }
                for s in self.result.summary
            ],
            "regressions": self.regressions,
        }


def regression_result(batch: Batch, page: list[int] | None = None) -> RegressionResult:
    """The batch's result and, in one more query, each run's divergence and changed code
    (``page``: the row positions wanted, as ``batch_result`` takes them)."""
    result = batch_result(batch, page=page)
    pairs = [(s.row.source_id, s.row.fork_id) for s in result.sources if s.row.fork_id]
    steps = _steps([pk for pair in pairs for pk in pair])
    runs = []
    for source in result.sources:
        fork = source.row.fork_id
        finished = bool(fork) and source.row.fork.is_finished  # queued or running: no answer yet
        mine = steps.get(fork, []) if fork else []
        was = steps.get(source.row.source_id, [])
        changes = _code_changes(was, mine)
        runs.append(
            RunRegression(
                source,
                _first_divergence(was, mine) if finished else None,
                list(dict.fromkeys(change["node"] for change in changes)),
                changes,
            )
        )
    return RegressionResult(batch, result, runs)


def _code_changes(source: list[tuple], run: list[tuple]) -> list[dict[str, Any]]:
    """Each step (by name, first visit) that recorded ``code_changed``, with why: its parts
    against those of the recorded step at its sequence id."""
    recorded = {step[0]: step for step in source}
    changes: dict[str, dict[str, Any]] = {}
    for sequence_id, name, _, changed, version, parts in run:
        if not changed or name in changes:
            continue
        was = recorded.get(sequence_id)
        why = step_changes(was[4], was[5], version, parts) if was and was[1] == name else []
        changes[name] = {"node": name, "why": why or ["the code changed"]}
    return list(changes.values())


def _steps(ids: list[int]) -> dict[int, list[tuple]]:
    found: dict[int, list[tuple]] = {}
    if not ids:
        return found
    columns = ("sequence_id", "name", "output_sha256", "code_changed", "code_version", "code_parts")
    rows = (
        Node.objects.filter(run_id__in=ids)
        .order_by("run_id", "sequence_id")
        .values_list("run_id", *columns)
    )
    for run_id, *step in rows:
        found.setdefault(run_id, []).append(tuple(step))
    return found


def _first_divergence(source: list[tuple], run: list[tuple]) -> dict[str, Any] | None:
    """The first step (in order) whose name or output differs, or that only one run has."""
    for index in range(max(len(source), len(run))):
        was = source[index] if index < len(source) else None
        now = run[index] if index < len(run) else None
        if was is None or now is None or was[1:3] != now[1:3] or not now[2]:
            step = now or was
            return {"node": step[1], "sequence_id": step[0]}
    return None
