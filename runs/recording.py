"""Record every run of your own program in Rewind — one line in your ``ApplicationBuilder``.

    from runs.recording import rewind_hooks

    app = (
        ApplicationBuilder()
        .with_graph(graph)
        ...
        .with_hooks(*rewind_hooks("chatbot"))  # the one line
        .build()
    )
    app.run(halt_after=["response"], inputs={"prompt": "Who was Aaron Burr?"})

Run your program your way (not through ``manage.py``): each application becomes a Rewind run
of the registered pipeline ``chatbot`` with every step, its tokens and its cache entries, in
the database ``DATABASE_URL`` points at. Each ``run``/``step``/``iterate`` call is one turn.
The calls your actions make go to your provider as usual (nothing is answered from the cache
while recording). Forking the run from the dashboard re-executes through the factory
registered as ``chatbot`` in ``REWIND_PIPELINES``.

Steps are written by a thread of Rewind's, many to a transaction, while the program goes on;
every ``run``/``step``/``iterate`` call returns once its steps are committed, also when it
raised, and the rest is written at exit, on Ctrl-C and on SIGTERM. A ``kill -9`` loses the
steps of the call in progress not yet written (at most 64). ``rewind_hooks("chatbot",
sync=True)`` commits every step before the next one begins instead (slower);
``rewind_hooks("chatbot", wait=False)`` lets each call return without waiting for its steps
to be committed (quicker: they are committed within a quarter of a second, and at exit; a
``kill -9`` or a power cut can then lose the calls of that last quarter second too).

What your program opened before it asked for the hooks is known too: a connection made at
import (a module-level client, a sender thread's) is taken in when Rewind sets itself up, so a
write on it during a step is listed on the run as a warning (its replay will not be hermetic),
and refused on a replay. Destinations declared in ``REWIND_TELEMETRY_DESTINATIONS`` (a log
shipper, statsd, an OTLP collector) are observability, not effects: they pass, listed.

What a step's code reads from the clock and from randomness (``datetime.now()``, ``uuid4()``,
``random``, ``secrets``) is recorded by the line that read it, and a replay gives each line the
same values. A value that must be fresh on every replay is read inside ``live_values()``:

    with live_values():
        nonce = secrets.token_hex(16)
"""

from __future__ import annotations

import os
from typing import Any

from runs.lib.live import live_values

__all__ = ["live_values", "rewind_hooks"]


def rewind_hooks(pipeline: str, *, sync: bool = False, wait: bool = True) -> list[Any]:
    """The hooks that record this application's runs as runs of ``pipeline``; with ``sync``,
    each step is committed before the next one begins; with ``wait=False``, a ``run`` call
    returns without waiting for its steps to be committed."""
    _setup_django()
    from runs.engine.execution.program import ProgramRecorder

    return [ProgramRecorder(pipeline, sync=sync, wait=wait)]


def _setup_django() -> None:
    from django.apps import apps
    from django.conf import settings

    if apps.ready:  # set up already (django.setup() again would configure logging again)
        return
    if not settings.configured:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rewind_site.settings")
    import django

    django.setup()
