"""The benchmark's own apps, each a plain Burr app that knows nothing of Rewind: ``loop`` (a
counter calling a tool over HTTP each step), ``relay`` (N steps with a planted deciding step)
and ``nine`` (nine actions, one OpenAI call each).

They are not registered by the production settings (an installation lists only its own
pipelines): ``rewind_bench`` and the tests call :func:`register`, which adds them to
``REWIND_PIPELINES`` in this process and in the environment the worker processes it starts
inherit. May import: the standard library, Burr, httpx, openai — nothing of the app.
"""

from __future__ import annotations

import os

from django.conf import settings

PIPELINES = {
    "loop": "runs.bench.pipelines.loop.application",
    "relay": "runs.bench.pipelines.relay.application",
    "nine": "runs.bench.pipelines.nine.application",
}


def register() -> None:
    """Register the bench apps by name, as any app is found (``apps.registry.get_pipeline``);
    a name the settings already give keeps its own path. Worker processes read
    ``REWIND_PIPELINES`` from the environment (``rewind_site.env.env_pairs``), so it is set too."""
    settings.REWIND_PIPELINES = {**PIPELINES, **settings.REWIND_PIPELINES}
    listed = [item for item in os.environ.get("REWIND_PIPELINES", "").split(",") if item.strip()]
    named = {item.partition("=")[0].strip() for item in listed}
    listed += [f"{name}={path}" for name, path in PIPELINES.items() if name not in named]
    os.environ["REWIND_PIPELINES"] = ",".join(listed)
