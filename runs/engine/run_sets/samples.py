"""Stability samples: a run re-executed ``k`` times live and unchanged, recorded as its samples
(``Run.sample_of``) — the references the noise rule (``analysis.noise``) judges a fork's
changes against. Made here, queued; executed as any set of runs (``execution.execute``)."""

from __future__ import annotations

from django.db import transaction

from runs.engine.analysis.noise import MAX_SAMPLES
from runs.engine.apps.burr import BurrApp
from runs.engine.apps.specs import Pipeline
from runs.engine.errors import ForkError
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.models import Run


def sample_request(
    source: Run, k: int, node: str | None = None, *, pipeline: Pipeline | BurrApp | None = None
) -> Fork:
    """The fork each of ``k`` samples of ``source`` from ``node`` (default: its first step)
    is — a live, unchanged fork — checked before anything is written or projected
    (``pipeline``: the source's app, when the caller resolved it once)."""
    if not 1 <= k <= MAX_SAMPLES:
        raise ForkError(f"k must be between 1 and {MAX_SAMPLES}, got {k}")
    if node is None:
        first = source.nodes.order_by("sequence_id").values_list("sequence_id", flat=True).first()
        if first is None:
            raise ForkError(f"run {source.pk} has no steps to sample")
        node = str(first)
    return resolve_fork(source, node, live=True, pipeline=pipeline)


def make_samples(
    source: Run, k: int, node: str | None = None, *, request: Fork | None = None
) -> list[Run]:
    """``k`` live, unchanged forks of ``source`` from ``node`` (default: its first step),
    recorded as its samples; queued, not executed. All or nothing: a refusal writes nothing.
    ``request``: the ``sample_request`` already made (the dashboard projects its cost first)."""
    request = request or sample_request(source, k, node)
    with transaction.atomic():
        samples = [make_fork(request) for _ in range(k)]
        Run.objects.mark_samples(source, samples)
    return samples
