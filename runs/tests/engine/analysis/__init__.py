"""Tests of ``runs.engine.analysis``: diffs, noise, outcomes, bisect, batches, exports, the
projected cost a budget checks."""
