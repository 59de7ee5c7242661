"""What a step asks the world, and what the world answered.

- ``capture/``   the HTTP calls a step makes, whatever the library: the core and one adapter
                 per HTTP library (see its ``__init__``)
- ``cache``      cache reads and writes (insert-if-absent), pinned entries, miss explanations
- ``keys``       LLM and tool cache keys (versioned, length-prefixed)
- ``inflight``   ``call_lock``: identical calls in flight go to the provider once
- ``pricing``    USD per million tokens (an unknown price stays unknown)

May import: ``runs.models`` (cache entries), ``runs.lib.hashing``, ``runs.engine.errors``,
``runs.engine.providers`` (the simulator's model name). Never ``execution`` or above.
"""
