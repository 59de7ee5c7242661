"""Batch counterfactuals (issue 17, item 2): one change applied to many recorded runs.

- ``request``  ``Selection`` (an explicit list, or the completed root runs of a pipeline
               narrowed by run inputs) and ``BatchRequest`` (the selection, the step, the
               field, its values, the samples per source): what a command or a form builds
               once, at the edge; ``select_sources``
- ``making``   ``plan_batch`` (every fork and sample resolved before anything is written:
               a source the change cannot apply to is kept with the reason) and
               ``make_batch`` (the queued forks, samples and rows, in one transaction);
               ``batch_run_ids``, the runs a batch executes
- ``results``  ``batch_result``: per source each outcome before → after, flipped or not, its
               noise verdict, the tokens the fork spent; per outcome the flip rate with a
               95 % Wilson interval — read from the runs in bounded queries, never stored
- ``wilson``   the interval itself (a pure function)
- ``suite``    ``build_suite``: a finished batch as a regression suite (one pytest file, a
               test per source run asserting its outcomes after the change, one fixture;
               replayed offline as ``export`` replays a run)

A batch's forks are ordinary forks (``forks.make_fork``), its samples ordinary stability
samples (``noise.make_samples``); how they execute — here, on N queue workers
(``execution.workers.run_on_workers``) or on the queue — is the caller's choice. This package
reads ``runs.models`` and the rest of the engine; nothing in the engine imports it.
"""

from runs.engine.analysis.batches.making import batch_run_ids, make_batch, plan_batch
from runs.engine.analysis.batches.request import BatchRequest, Selection, select_sources
from runs.engine.analysis.batches.results import batch_json, batch_progress, batch_result
from runs.engine.analysis.batches.wilson import wilson

__all__ = [
    "BatchRequest",
    "Selection",
    "batch_json",
    "batch_progress",
    "batch_result",
    "batch_run_ids",
    "make_batch",
    "plan_batch",
    "select_sources",
    "wilson",
]
