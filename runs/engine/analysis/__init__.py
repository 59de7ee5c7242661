"""What is read from runs once they exist. Nothing here makes or executes a run: planning,
writing and executing sets of runs (batches, samples, bisect probes) is ``runs.engine.run_sets``'
(``runs/tests/engine/run_sets/test_analysis_reads.py`` parses this package to keep it so).

- ``leaves``   the leaves of a value and their paths (shared by diff and noise)
- ``diff``     ``diff_values``, ``align``, ``diff_runs`` (a ``RunDiff``), ``format_diff``
- ``noise``    beyond-/within-noise (or uncertain) verdicts of a fork's changes against a
  run's stability samples (``run_sets.samples`` makes them), each with its reason (its false-alarm, miss and uncertain rates are measured by
  ``runs.bench.noise``)
- ``facts``    what a text states, for the noise rule: figures, names, ranked names, negations
- ``export/``  a run as a self-contained pytest file and a fixture of what it read
- ``report``   the run object of the CLI/HTTP JSON contract
- ``bisect``   which step decided an outcome: the candidates (steps whose output a fork can
  swap) and what the probes (``run_sets.bisect``) show
- ``batches/`` batch counterfactuals and regression replays read: what a batch found
- ``projection`` ``projected_cost``: what a request is expected to spend live (budgets)
- ``outcomes/`` a run's named results (``analyse.best_group``, ``state.answer``) and their
  checks, computed when a run is shown

May import every room below it (``forking``, ``execution``, ``apps``, ``calls``) and
``runs.models``; nothing in the engine imports it but ``forking``'s verdicts and
``run_sets``.
"""
