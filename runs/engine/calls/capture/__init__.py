"""Capture: the HTTP calls a step makes, answered from the cache or recorded (DESIGN.md,
"Capture, whatever the transport").

- ``core``           what a call is (``Call``), the step's calls (``StepCalls``: key,
                     occurrence, pin, store, answer, usage), the slot a step's task holds
- ``httpx_adapter``  ``httpx.Client.send`` / ``AsyncClient.send`` handed to the core

An adapter only translates its library's request into the core's and the core's answer back
into its library's response; it imports the core, never the reverse. ``install()`` puts every
adapter in place, once per process; outside a step they behave exactly as before.
May import: ``runs.engine.calls`` (cache, keys, in-flight locks, pricing), ``runs.hashing``.
"""

from __future__ import annotations

from runs.engine.calls.capture import httpx_adapter
from runs.engine.calls.capture.core import (
    Call,
    PreviewStop,
    StepCalls,
    current,
    describe_request,
    ensure_slot,
    http_cache_key,
    llm_endpoint,
    usage_of,
)

__all__ = [
    "Call",
    "PreviewStop",
    "StepCalls",
    "current",
    "describe_request",
    "ensure_slot",
    "http_cache_key",
    "install",
    "llm_endpoint",
    "usage_of",
]


def install() -> None:
    """Put every adapter in place (once per process; idle outside a step)."""
    httpx_adapter.install()
