"""Rewind's engine: everything Burr-, hash-, cache-, provider- and diff-related. It never sees
a request (no views, forms or commands) and never names a pipeline (the registry does).

Rooms, each a package whose ``__init__`` says what lives there and what it may import:

- ``errors``      what every room raises (one module, imported by all)
- ``apps``        what is run: declared pipelines (specs), Burr apps brought unchanged, the
                  registry that finds either by name, the domains of values a person may set
- ``calls``       what a step asks the world: the capture of HTTP calls (core + one adapter
                  per library), the cache and its keys, in-flight dedup, pricing
- ``providers``   the OpenAI-compatible client, its configuration, the offline simulator
- ``execution``   running and recording: new runs, building the Burr application, the driving
                  loop, the recorder and persister, leases, artifacts, a user's own program
- ``forking``     forks, overrides, the fork preview, unchanged replays and their verdicts,
                  batch replays
- ``analysis``    what is read from finished runs: leaves, diff, noise verdicts, export as a
                  test, the run report (the JSON contract), rewind_bench's figures
- ``judging``     the judge: a model (when one is configured) that decides the text leaves the
                  noise rule calls uncertain, asked through the LLM cache; the edges make it and
                  pass it into ``analysis`` as a referee (nothing in the engine imports it)

Arrows point down this list's dependencies, never back up: ``apps`` and ``calls`` know
nothing of execution; ``analysis`` may use everything below it; nothing imports ``analysis``
except the edges (views, commands), ``forking`` (a replay's verdict is a diff) and ``judging``
(the verdict it gives is the noise rule's ``Judgement``).
"""
