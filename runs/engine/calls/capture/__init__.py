"""Capture: the HTTP calls a step makes, answered from the cache or recorded (DESIGN.md,
"Capture, whatever the transport").

- ``core``           what a call is (``Outgoing`` in, ``Answer`` out, ``Call`` recorded), the
                     step's calls (``StepCalls``: key, occurrence, pin, store, answer, usage),
                     the slot a step's task holds
- ``wire``           LLM wire formats (OpenAI, Anthropic, Gemini, Ollama): what a call asked,
                     what it cost, whether an answer parses
- ``commands``       what a process start is to the capture: argv or shell line, stdin, the
                     files it names (keyed), exit code, stdout and stderr and the files it
                     wrote (its answer, written back on a replay)
- ``argv_credentials`` the credentials a command line carries by position, found and marked
- ``redaction``      credentials by position (never stored; a keyed fingerprint in the key),
                     content that looks like a secret (kept exactly, masked where it is shown):
                     what a credential looks like is ``runs.lib.secret_shapes``'
- ``threads``        work a step hands to threads (a pool, ``MapStates``) carries its calls
- ``branches``       which branch (thread) of a step a call is made in; its occurrences
- ``guard``          hermetic replays: a connection the capture did not make is refused
                     (or, in a live step, written down as a warning), whenever it was opened;
                     declared telemetry passes, listed
- ``imports``        post-import hooks: an adapter patches its library right after its first
                     import, wherever that happens (inside an action's body too)
- ``processes``      process starts no adapter can capture (``os.fork``, ``os.spawn*``,
                     ``os.exec*``, ``posix_spawn``, ``multiprocessing``, a process used while
                     it runs): refused on a guarded step, noted on a live one
- ``misses``         a replayed call with no entry: the nearest recorded call, what differs
- ``backoff``        a replayed failed attempt: the client's next sleep (its backoff) returns
                     at once
- ``unreachable``    a call that could not connect: the endpoint, and where its URL came from
- ``aiohttp_adapter`` ``aiohttp``: ``ClientSession._request`` (websockets pass through)
- ``grpc_adapter``   ``grpc`` and ``grpc.aio``: each call of a channel's multicallables, by
                     method and serialized request (no connection opened on a replay)
- ``httpclient_adapter`` ``http.client`` and so ``urllib.request``: ``HTTPConnection``'s request
                     methods and ``getresponse``
- ``httpx_adapter``  ``httpx`` and ``httpx2``: ``Client.send`` / ``AsyncClient.send``
- ``mcp_adapter``    ``mcp``: each JSON-RPC request a ``ClientSession`` sends, by method and
                     params; its transport (a stdio server, Streamable HTTP) not started on a
                     guarded step
- ``subprocess_adapter`` ``subprocess`` (``Popen.__init__``: ``run``, ``check_output``,
                     ``os.popen``, …), ``os.system``, asyncio's ``create_subprocess_*``
                     (``async_processes``): no process started on a replay
- ``urllib3_adapter`` ``urllib3`` and so ``requests``: ``HTTPConnectionPool.urlopen``
- ``values``         what the step's code reads from the clock and randomness (time-machine's
                     clock, ``random``, ``os.urandom``, ``uuid1``): recorded by the line that
                     asked, given back on a replay

An adapter only translates its library's request into the core's and the core's answer back
into its library's response; it imports the core, never the reverse. ``install()`` puts every
adapter in place, once per process (at the first step, and a worker's start); outside a step
they behave exactly as before. ``install_guard()`` puts in place what must be there before the
registered app's module is imported — the guard's socket wrappers and the post-import hooks of
the adapters that patch lazily — at no import cost: the ``runs`` app's ``ready()`` (every
``manage.py`` command, worker and server, and ``rewind_hooks``, which sets Django up) and the
registry's load call it.
May import: ``runs.engine.calls`` (cache, keys, in-flight locks, pricing), ``runs.lib.hashing``.
"""

from __future__ import annotations

from runs.engine.calls.capture import (
    aiohttp_adapter,
    backoff,
    grpc_adapter,
    guard,
    httpclient_adapter,
    httpx_adapter,
    mcp_adapter,
    processes,
    redaction,
    subprocess_adapter,
    threads,
    urllib3_adapter,
    values,
)
from runs.engine.calls.capture.core import (
    Answer,
    Call,
    Outgoing,
    PreviewStop,
    StepCalls,
    current,
    ensure_slot,
    http_cache_key,
    store_answers,
)

__all__ = [
    "Answer",
    "Call",
    "Outgoing",
    "PreviewStop",
    "StepCalls",
    "current",
    "ensure_slot",
    "http_cache_key",
    "install",
    "install_guard",
    "store_answers",
]


def install_guard() -> None:
    """What must be in place before the app's code is imported: the guard (a connection the
    app opens at import is known) and the hooks that patch a library after its first import
    (``mcp``). Imports no client library; idle outside a step; cheap to call again."""
    guard.install()
    mcp_adapter.install()


def install() -> None:
    """Put every adapter in place (once per process; idle outside a step)."""
    redaction.redact_library_logs()
    threads.install()
    install_guard()
    backoff.install()
    httpx_adapter.install()
    urllib3_adapter.install()
    aiohttp_adapter.install()
    httpclient_adapter.install()
    grpc_adapter.install()
    subprocess_adapter.install()
    processes.install()
    values.install()
