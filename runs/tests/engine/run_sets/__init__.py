"""Tests of ``runs.engine.run_sets``: the one executor of sets of runs."""
