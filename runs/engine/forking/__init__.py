"""Forks of a finished run, and replays of it.

- ``overrides``   which fields a step consumes; typing and validation of the one override;
                  the overrides a fork inherits from its ancestors
- ``forks``       ``Fork``, ``resolve_fork`` (a request resolved once), ``make_fork``,
                  ``open_fork`` (the same fork already made is reused), ``find_node``
- ``preview``     the fork preview (the dirty set): walks the cache the way the fork will
- ``crossing``    ``Crossed``: two fields of one step, a fork of a fork (a crossed grid's cell)
- ``replays``     ``create_replay`` (``replay_request``: the fork, unwritten), ``replay_verdict``
                  (a ``ReplayVerdict``); batches of replays and what-if grids are sets of
                  runs: ``run_sets.replays``, ``run_sets.grids``

May import: ``execution``, ``apps``, ``calls``, ``errors``, ``runs.models``, ``runs.lib.hashing``;
``replays`` reads ``analysis.diff`` for a verdict.
"""
