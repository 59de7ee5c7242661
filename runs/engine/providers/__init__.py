"""Providers: one OpenAI-compatible client, its configuration, and the offline simulator.

The simulator names are loaded lazily so ``python -m runs.engine.providers.simulator``
does not import its own module twice (runpy warns when a package pre-imports it).
"""

from __future__ import annotations

from typing import Any

from .client import (
    PRESETS,
    ChatClient,
    ChatRequest,
    ChatResponse,
    ProviderError,
    TransportError,
    redact,
)

_SIMULATOR_NAMES = frozenset(
    {"SIMULATOR_BASE_URL", "SIMULATOR_MODEL", "Simulator", "SimulatorOptions"}
)

__all__ = [
    "PRESETS",
    "SIMULATOR_BASE_URL",
    "SIMULATOR_MODEL",
    "ChatClient",
    "ChatRequest",
    "ChatResponse",
    "ProviderError",
    "Simulator",
    "SimulatorOptions",
    "TransportError",
    "redact",
]


def __getattr__(name: str) -> Any:
    if name in _SIMULATOR_NAMES:
        from . import simulator

        return getattr(simulator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
