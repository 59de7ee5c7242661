"""What a batch found, read from its runs: per source each outcome before → after, flipped or
not, and its noise verdict; per outcome (and value) the flip rate with a 95 % Wilson interval.

Nothing is stored per source but the run ids: the outcomes are read (``evaluate_runs``) from
the sources, the forks and the samples in a bounded number of queries, whatever the batch's
size — the rows (one), the samples' runs (one), the outcomes (three at most), the tokens the
forks spent (one).

- ``flipped``: the outcome's value after the change differs from the source's (a value that
  is missing on one side and not the other differs; missing on both does not).
- ``verdict``: ``no-samples`` when the source has no finished sample — neither the batch's
  own nor one it already had (a stability run, an earlier batch); otherwise the noise rule
  (``noise.judge``) on the value after, against the source's value and its samples'. An
  outcome that did not flip is within-noise by that rule (its value is the source's own).
  A regression replay's samples are live re-runs with the new code (the old code cannot run
  again, and samples the source already has may be of either): the rule is asked the other
  way round — the source's value against the value after and those samples'.
- A source whose fork has not completed (still running, failed) counts in no rate: its
  outcomes after the change are not there to compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, Sum

from runs.engine.analysis.batches.wilson import wilson
from runs.engine.analysis.noise import NO_SAMPLES, WITHIN, judge
from runs.engine.analysis.outcomes.values import OutcomeValue, evaluate_runs
from runs.lib.hashing import canonical_json
from runs.models import Batch, BatchSource, Node, Run

_ABSENT = "<absent>"  # a missing value, as the noise rule names a leaf a run did not have


def _key(value: OutcomeValue | None) -> Any:
    return _ABSENT if value is None or value.missing else value.value


@dataclass(frozen=True)
class OutcomeChange:
    """One outcome of one source under the change. ``flipped`` and ``verdict`` are None while
    the fork has not completed."""

    name: str
    before: OutcomeValue | None
    after: OutcomeValue | None
    flipped: bool | None
    verdict: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "before": None if self.before is None or self.before.missing else self.before.value,
            "after": None if self.after is None or self.after.missing else self.after.value,
            "flipped": self.flipped,
            "verdict": self.verdict,
        }


@dataclass
class SourceResult:
    row: BatchSource
    value: str
    outcomes: list[OutcomeChange]
    tokens: int
    samples_finished: int

    @property
    def status(self) -> str:
        return self.row.fork.status if self.row.fork_id else "skipped"

    @property
    def completed(self) -> bool:
        return self.row.fork_id is not None and self.row.fork.status == Run.Status.COMPLETED

    def as_json(self, several_values: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "run": self.row.source_id,
            "fork": self.row.fork_id,
            "outcomes": [o.as_json() for o in self.outcomes],
            "status": self.status,
            "tokens": self.tokens,
            "samples": list(self.row.samples),
            "error": self.row.error or (self.row.fork.error if self.row.fork_id else "") or None,
        }
        if several_values:
            data["value"] = self.value
        return data


def counts(change: OutcomeChange) -> bool:
    """A change a gate counts: any, unless the noise rule calls it the model's jitter."""
    return change.verdict != WITHIN


def regressed(change: OutcomeChange) -> bool:
    """Passed before, not after the change — fails, is missing or cannot be checked — beyond
    noise when the source was sampled."""
    before = change.before is not None and change.before.passed is True
    after = change.after is not None and change.after.passed is True
    return change.flipped is not None and before and not after and counts(change)


@dataclass(frozen=True)
class Summary:
    """The flip rate of one outcome (under one value) over the sources whose fork completed."""

    outcome: str
    value: str
    n: int
    flipped: int
    beyond: int  # flips judged beyond-noise
    within: int  # flips judged within-noise
    regressed: int = 0  # passed before, not after (``regressed``)

    @property
    def rate(self) -> float | None:
        return self.flipped / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.flipped, self.n)

    @property
    def bar(self) -> tuple[float, float, float]:
        """The interval and the rate on a 0–100 axis, for drawing: (start, width, rate)."""
        low, high = self.interval
        rate = 100 * (self.rate or 0.0)
        return round(100 * low, 2), round(100 * (high - low), 2), round(rate, 2)

    def as_json(self, several_values: bool) -> dict[str, Any]:
        low, high = self.interval
        data: dict[str, Any] = {
            "outcome": self.outcome,
            "n": self.n,
            "flipped": self.flipped,
            "rate": None if self.rate is None else round(self.rate, 6),
            "low": round(low, 6),
            "high": round(high, 6),
            "beyond_noise": self.beyond,
            "within_noise": self.within,
        }
        if several_values:
            data["value"] = self.value
        return data


@dataclass(frozen=True)
class Progress:
    """Runs of the batch (forks and samples) finished, of all it made."""

    done: int
    total: int

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    @property
    def percent(self) -> int:
        return 100 if not self.total else int(100 * self.done / self.total)


@dataclass
class BatchResult:
    batch: Batch
    progress: Progress
    summary: list[Summary]
    sources: list[SourceResult] = field(default_factory=list)

    @property
    def several_values(self) -> bool:
        return len(self.batch.values) > 1

    def as_json(self) -> dict[str, Any]:
        """The contract object: ``batch``, ``sources``, ``summary`` (plus what was asked)."""
        batch, several = self.batch, self.several_values
        return {
            "batch": batch.pk,
            "pipeline": batch.pipeline,
            "selection": batch.selection,
            "node": batch.node,
            "field": batch.field,
            "values": batch.values,
            "samples": batch.samples,
            "finished": self.progress.finished,
            "progress": {"done": self.progress.done, "total": self.progress.total},
            "sources": [s.as_json(several) for s in self.sources],
            "summary": [s.as_json(several) for s in self.summary],
        }


def batch_run_ids(batch: Batch) -> list[int]:
    """The runs the batch executes, per source: its fork(s), then its samples."""
    ids: list[int] = []
    for fork_id, samples in batch.sources.order_by("position").values_list("fork_id", "samples"):
        if fork_id is not None:
            ids.append(fork_id)
        ids.extend(samples)
    return ids


def batch_progress(batch: Batch) -> Progress:
    """Two queries: the batch's run ids, then how many of them have finished."""
    ids = batch_run_ids(batch)
    done = Run.objects.filter(pk__in=ids, status__in=list(Run.FINISHED)).count() if ids else 0
    return Progress(done, len(ids))


def batch_result(batch: Batch, page: list[int] | None = None) -> BatchResult:
    """Everything the batch found. ``page``: the row positions whose per-source detail is
    wanted (None: every row); the summary always covers every row."""
    rows = list(batch.sources.select_related("source", "fork").order_by("position"))
    sample_ids = [pk for row in rows for pk in row.samples]
    # The batch's own samples, and — in the same query — the finished samples its sources
    # already had (a stability run, an earlier batch's), which judge noise as well.
    mine = set(sample_ids)
    wanted = Q(pk__in=sample_ids)
    if not batch.is_regression:  # a regression replay's samples are of the new code: its own
        wanted |= Q(sample_of_id__in={row.source_id for row in rows}, status=Run.Status.COMPLETED)
    found = Run.objects.filter(wanted).only("id", "pipeline", "status", "sample_of_id")
    samples = [s for s in found if s.pk in mine]
    had = [s for s in found if s.pk not in mine]
    by_pk = {s.pk: s for s in [*samples, *had]}
    runs: dict[int, Run] = {}
    for row in rows:
        runs[row.source_id] = row.source
        if row.fork_id:
            runs[row.fork_id] = row.fork
    runs.update(by_pk)
    values = evaluate_runs(list(runs.values())) if runs else {}
    total = len([r for r in rows if r.fork_id]) + len(sample_ids)
    done = sum(1 for r in rows if r.fork_id and r.fork.is_finished)
    done += sum(1 for s in samples if s.is_finished)
    positions = None if page is None else set(page)
    wanted = rows if positions is None else [r for r in rows if r.position in positions]
    fork_ids = [r.fork_id for r in wanted if r.fork_id]
    tokens = dict(
        Node.objects.filter(run_id__in=fork_ids)
        .values("run_id")
        .annotate(total=Sum("total_tokens"))
        .values_list("run_id", "total")
    ) if fork_ids else {}  # fmt: skip
    # The samples of a source are on the row of its first value.
    samples_of = {r.source_id: list(r.samples) for r in rows if r.samples}
    for sample in had:
        samples_of.setdefault(sample.sample_of_id, []).append(sample.pk)
    results = [
        _source(batch, row, values, samples_of.get(row.source_id, []), by_pk, tokens)
        for row in rows
    ]
    return BatchResult(
        batch=batch,
        progress=Progress(done, total),
        summary=_summaries(batch, results),
        sources=results
        if positions is None
        else [r for r in results if r.row.position in positions],
    )


def batch_json(batch: Batch) -> dict[str, Any]:
    """``rewind_batch --json``: the contract object of the whole batch."""
    return batch_result(batch).as_json()


def _source(
    batch: Batch,
    row: BatchSource,
    values: dict[int, list[OutcomeValue]],
    sample_ids: list[int],
    samples: dict[int, Run],
    tokens: dict[int, int],
) -> SourceResult:
    before = {o.name: o for o in values.get(row.source_id, [])}
    after = {o.name: o for o in values.get(row.fork_id, [])} if row.fork_id else {}
    finished_samples = [
        pk for pk in sample_ids if samples.get(pk) and samples[pk].status == Run.Status.COMPLETED
    ]
    drawn = [{o.name: o for o in values.get(pk, [])} for pk in finished_samples]
    completed = row.fork_id is not None and row.fork.status == Run.Status.COMPLETED
    changes = []
    for name, was in before.items():
        now = after.get(name)
        if not completed:
            changes.append(OutcomeChange(name, was, now, None, None))
            continue
        flipped = canonical_json(_key(was)) != canonical_json(_key(now))
        if not drawn:
            verdict = NO_SAMPLES
        elif batch.is_regression:
            # Samples of the new code (the old cannot run again): is the recorded value one
            # the new code still gives? Outside what it gave every time: the change.
            observed = [_key(now), *(_key(d.get(name)) for d in drawn)]
            verdict = judge(_key(was), observed)
        else:
            observed = [_key(was), *(_key(d.get(name)) for d in drawn)]
            verdict = judge(_key(now), observed)
        changes.append(OutcomeChange(name, was, now, flipped, verdict))
    value = batch.values[row.value_index] if row.value_index < len(batch.values) else ""
    return SourceResult(
        row, str(value), changes, int(tokens.get(row.fork_id) or 0), len(finished_samples)
    )


def _summaries(batch: Batch, results: list[SourceResult]) -> list[Summary]:
    """Per value (in order), per outcome (in the order declared)."""
    out = []
    for index, value in enumerate(batch.values):
        tally: dict[str, list[int]] = {}
        for result in results:
            if result.row.value_index != index:
                continue
            for change in result.outcomes:
                n_flip = tally.setdefault(change.name, [0, 0, 0, 0, 0])
                if change.flipped is None:
                    continue
                n_flip[0] += 1
                n_flip[4] += regressed(change)
                if change.flipped:
                    n_flip[1] += 1
                    n_flip[2] += change.verdict == "beyond-noise"
                    n_flip[3] += change.verdict == "within-noise"
        for name, (n, flipped, beyond, within, worse) in tally.items():
            out.append(Summary(name, str(value), n, flipped, beyond, within, worse))
    return out
