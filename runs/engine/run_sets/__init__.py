"""Sets of runs (DESIGN "Sets of runs"): batches, regression replays, grids, stability samples,
bisect probes and batch replays are one kind of thing — planned, made, executed and summarised
through one path.

- ``execution``  ``execute(ids, how)``: the one executor — in this process one after another,
                 on N queue workers started for the set, or enqueued (a regression batch as
                 one task whose worker starts a fresh interpreter) — and ``Executed``, what
                 happened to every run
"""
