"""What is read from runs once they exist.

- ``leaves``   the leaves of a value and their paths (shared by diff and noise)
- ``diff``     ``diff_values``, ``align``, ``diff_runs`` (a ``RunDiff``), ``format_diff``
- ``noise``    stability samples and beyond-/within-noise (or uncertain) verdicts of a fork's
  changes, each with its reason (its false-alarm, miss and uncertain rates are measured by
  ``runs.bench.noise``)
- ``facts``    what a text states, for the noise rule: figures, names, ranked names, negations
- ``export/``  a run as a self-contained pytest file and a fixture of what it read
- ``report``   the run object of the CLI/HTTP JSON contract
- ``bisect``   which step decided an outcome: forks that swap one step's output
- ``batches/`` batch counterfactuals: one change applied to many recorded runs
- ``projection`` ``projected_cost``: what a request is expected to spend live (budgets)
- ``outcomes/`` a run's named results (``analyse.best_group``, ``state.answer``) and their
  checks, computed when a run is shown

May import every room below it (``forking``, ``execution``, ``apps``, ``calls``) and
``runs.models``; nothing in the engine imports it but ``forking``'s verdicts.
"""
