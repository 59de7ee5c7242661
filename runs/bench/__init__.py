"""Everything ``rewind_bench`` measures, and the apps it measures with (``pipelines``).

Each figure is a ratio to an anchor measured beside it in the same process, never an absolute
time. Imported only by ``rewind_bench`` and the tests (``rooms.py``: benchmarks live apart); it
may import anything of the app, nothing of the product imports it.

- ``measure``   the primitives every figure uses: best_time, peak_memory, figure
- ``replays``   cached steps and whole replays against bare Burr, bytes stored, diffs
- ``noise``     the noise rule's false-alarm, miss and uncertain rates by leaf type, on the
                labelled set kept with the tests and on simulated cases
- ``bisect``    how many forks a bisect makes on relays with a planted step, and whether its
                answer is right when the flip is not monotone
- ``batches``   batch counterfactuals and replays on queue workers
- ``capture``   what the capture adds to a call, per HTTP library
- ``redaction`` keying and redacting a captured call as it grows to 1 MB dense with
                key-shaped tokens (linear), storing a 1 MB answer, a 5 KB call's overhead
- ``recording`` ``rewind_hooks`` on a user's program against Burr's tracker
- ``crashes``   what a kill -9 loses of a ``wait=False`` call that had returned, under load
- ``imports``   importing a tracker directory
- ``pages``     the dashboard: the 500-step run page, step → browser latency
- ``lists``     the runs list, compare page and search at 50,000 runs
- ``scale``     the same at 1,000,000 runs: seeding in one statement, query plans of a slow page
- ``memory``    a worker's memory over thousands of replays
- ``anchor``    ``rewind_hooks`` against Burr's tracker plus OpenTelemetry's openai
                instrumentation with content (the bench extra), with a profile when it fails
- ``regress``   a regression replay's tokens and wall time against a full re-run
- ``storage``   bytes a recorded run stores against the tracker's log; 10,000 runs' storage
                with and without daily pruning
"""
