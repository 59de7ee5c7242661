"""Batch counterfactuals and regression replays read (issue 17, item 2): one change applied to
many recorded runs, or today's code re-run on them — what the finished batch found.

- ``results``    ``batch_result``: per source each outcome before → after, flipped or not, its
                 noise verdict, the tokens the fork spent; per outcome the flip rate with a
                 95 % Wilson interval — read from the runs in bounded queries, never stored;
                 ``batch_run_ids``, the runs a batch executes; ``batch_progress``
- ``regression`` a regression replay's comparison of each re-run with its source
- ``junit``      a regression batch as JUnit XML
- ``wilson``     the interval itself (a pure function)
- ``suite``      ``build_suite``: a finished batch as a regression suite (one pytest file, a
                 test per source run asserting its outcomes after the change, one fixture;
                 replayed offline as ``export`` replays a run)

What a batch is asked (``Selection``, ``BatchRequest``, ``RegressionRequest``), how it is
planned and written (``plan_batch``, ``plan_regression``, ``make_batch``) and executed live in
``runs.engine.run_sets`` (``requests``, ``batches``, ``execution``). This package only reads
``runs.models`` and the rest of the engine; nothing in the engine imports it.
"""

from runs.engine.analysis.batches.results import (
    batch_json,
    batch_progress,
    batch_result,
    batch_run_ids,
)
from runs.engine.analysis.batches.wilson import wilson

__all__ = [
    "batch_json",
    "batch_progress",
    "batch_result",
    "batch_run_ids",
    "wilson",
]
