"""Sets of runs (DESIGN "Sets of runs"): batches, regression replays, grids, stability samples,
bisect probes and batch replays are one kind of thing — planned, made, executed and summarised
through one path.

- ``execution``  ``execute(ids, how)``: the one executor — in this process one after another,
                 on N queue workers started for the set, or enqueued (a regression batch as
                 one task whose worker starts a fresh interpreter) — and ``Executed``, what
                 happened to every run
- ``here``       ``execute_here``: a set's runs in this process, in order, with the app resolved
                 once (the executor's default, and the fresh interpreter's loop)
- ``queue``      ``execute_batch_task``, ``enqueue_batch``: a queued regression batch is one task
- ``fresh``      whose worker starts an interpreter that imports the app as it is on disk now, checks the
                 batch's code version and executes the batch (or fails it, naming what changed)
- ``requests``   what a set is asked, parsed once at the edge: ``Selection`` (``--runs`` or a
                 pipeline narrowed by ``--where``; ``select_sources``), ``BatchRequest``,
                 ``RegressionRequest``, ``parse_where``, ``parse_set``
- ``batches``    ``plan_batch`` / ``plan_regression`` (every fork and sample resolved before
                 anything is written) and ``make_batch`` (forks, samples and rows in one
                 transaction); read back by ``analysis.batches``
- ``grids``      ``resolve_grid`` / ``make_grid``: a what-if grid's forks (crossed: a fork of
                 each value's fork, ``forking.crossing``), checked then written
- ``samples``    ``sample_request``, ``make_samples``: a run's stability samples (judged by
                 ``analysis.noise``)
- ``bisect``     the probes of a bisect planned by ``analysis.bisect``: ``Prober``, the search
                 within a budget (``run_search``), ``bisect`` and ``replay`` (existing forks only)
- ``replays``    rewind_replay's batches of unchanged replays (``replay_source``,
                 ``replay_here``, ``replay_on_workers``): each judged as it finishes, a
                 ``forking.replays.ReplayVerdict``
"""
