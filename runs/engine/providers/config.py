"""The provider endpoint in force, read from settings and the environment.

The API key is read from the environment at the moment a client is made and handed to the
client only: it is never put in a ``ProviderConfig``, a snapshot, a row or a message.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from runs.engine.errors import RewindError
from runs.engine.providers.client import PRESETS, ChatClient, strip_credentials
from runs.engine.providers.simulator import SIMULATOR_BASE_URL, SIMULATOR_MODEL, Simulator

KEY_VARIABLES = ("REWIND_API_KEY", "OPENAI_API_KEY")


class ProviderConfigError(RewindError):
    pass


class ProviderMismatch(ProviderConfigError):  # noqa: N818 — reads as what it reports
    """A run answered by one provider identity would now be answered by the other."""


def api_key() -> str | None:
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


@dataclass(frozen=True)
class ProviderConfig:
    preset: str  # "simulator", a name from PRESETS, or "custom"
    base_url: str
    model: str
    temperature: float
    timeout: float
    # Where the endpoint came from, for messages: "the settings page", "REWIND_LLM_BASE_URL",
    # "REWIND_LLM_PRESET", or "" for the simulator (no base URL set anywhere).
    origin: str = ""

    @property
    def is_simulator(self) -> bool:
        return self.preset == "simulator"

    @property
    def identity(self) -> str:
        """What answers calls made through this configuration (runs.engine.calls.keys)."""
        return "simulator" if self.is_simulator else "endpoint"

    def describe(self) -> str:
        """The endpoint and where it was configured, for a message: never the key."""
        if self.is_simulator:
            return "the offline simulator (no base URL is set: REWIND_LLM_BASE_URL, settings page)"
        return f"{strip_credentials(self.base_url)} (from {self.origin or 'the configuration'})"

    @property
    def has_key(self) -> bool:
        return api_key() is not None

    def require_model(self) -> str:
        """The model a new run requests; an error if this endpoint has none configured."""
        if not self.model:
            raise ProviderConfigError(
                f"set REWIND_LLM_MODEL (or pass a model): the {self.preset} provider has no "
                "default model, and a new run needs one"
            )
        return self.model

    def snapshot(self) -> dict:
        """What a run records of its provider: enough to read, never the key."""
        return {
            "preset": self.preset,
            "base_url": strip_credentials(self.base_url),
            "model": self.model,
            "temperature": self.temperature,
            "simulator": self.is_simulator,
        }


ALLOWED_SCHEMES = ("http", "https")
# Ports of databases and caches: a provider URL on loopback or a link-local address with one
# of these is more likely a mistake (or an attempt to reach an internal service) than a model.
SERVICE_PORTS = {5432: "PostgreSQL", 3306: "MySQL", 6379: "Redis", 11211: "memcached",
                 27017: "MongoDB", 9200: "Elasticsearch", 2379: "etcd"}  # fmt: skip


def check_base_url(url: str) -> None:
    """Only an http(s) URL may name a provider (``file:``, ``ftp:``, ``gopher:``… may not)."""
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise ProviderConfigError(
            f"a provider base URL must be http or https, not {scheme or 'without a scheme'}: "
            f"{strip_credentials(url)}"
        )


def base_url_warnings(url: str) -> list[str]:
    """What looks wrong about a base URL that is allowed: a link-local address (cloud
    metadata lives there), or a loopback address on a database's port."""
    parts = urlsplit(url)
    try:
        address = ipaddress.ip_address((parts.hostname or "").strip("[]"))
    except ValueError:
        return []
    warnings = []
    if address.is_link_local:
        warnings.append(
            f"{address} is a link-local address (cloud metadata services answer there), "
            "not a model provider"
        )
    try:
        port = parts.port
    except ValueError:
        port = None
    if address.is_loopback and port in SERVICE_PORTS:
        warnings.append(f"port {port} on this machine is {SERVICE_PORTS[port]}'s, not a model's")
    return warnings


def current_config() -> ProviderConfig:
    """The endpoint in force: what the settings page saved, else the environment."""
    from runs.models import ProviderSettings  # the engine reads it; models import nothing here

    saved = ProviderSettings.load()
    preset = (saved.preset or settings.REWIND_LLM_PRESET).lower()
    base_url = saved.base_url or settings.REWIND_LLM_BASE_URL
    origin = (
        "the settings page"
        if saved.base_url or (saved.preset and saved.preset != "simulator")
        else "REWIND_LLM_BASE_URL"
        if settings.REWIND_LLM_BASE_URL
        else "REWIND_LLM_PRESET"
    )
    model_default = saved.model or settings.REWIND_LLM_MODEL
    temperature = (
        saved.temperature if saved.temperature is not None else settings.REWIND_LLM_TEMPERATURE
    )
    if preset and preset not in PRESETS and preset not in {"simulator", "custom"}:
        raise ProviderConfigError(
            f"unknown REWIND_LLM_PRESET {preset!r}; choose simulator, custom or "
            + ", ".join(sorted(PRESETS))
        )
    if not base_url:
        base_url = PRESETS.get(preset, "") if preset not in {"", "simulator"} else ""
    if preset == "custom" and not base_url:
        raise ProviderConfigError("REWIND_LLM_PRESET=custom needs REWIND_LLM_BASE_URL")
    if base_url:
        check_base_url(base_url)
    if not base_url:
        preset, base_url = "simulator", SIMULATOR_BASE_URL
    elif not preset or preset == "simulator":
        preset = next((name for name, url in PRESETS.items() if url == base_url), "custom")
    # A custom endpoint may have no default model: only a *new run* needs one (forks and
    # replays inherit their parent's), so the lack is reported by ``require_model``.
    model = model_default or (SIMULATOR_MODEL if preset == "simulator" else "")
    return ProviderConfig(
        preset=preset,
        base_url=base_url,
        model=model,
        temperature=temperature,
        timeout=settings.REWIND_LLM_TIMEOUT,
        origin="" if preset == "simulator" else origin,
    )


def identity_of(snapshot: Mapping[str, Any]) -> str:
    """What answered a run's own llm calls, from its provider snapshot. Forks inherit it with
    the snapshot: only ``snapshot_as`` (``--provider``) changes it."""
    return "simulator" if snapshot.get("simulator") else "endpoint"


def snapshot_as(snapshot: Mapping[str, Any], identity: str) -> dict[str, Any]:
    """A fork's snapshot when it asks another provider identity to answer: the run's model
    and temperature, the identity (and, for the simulator, its preset and URL) changed."""
    changed = dict(snapshot)
    if identity == "simulator":
        changed.update(preset="simulator", base_url=SIMULATOR_BASE_URL, simulator=True)
    else:
        config = current_config()
        changed["simulator"] = False
        if not config.is_simulator:
            changed.update(preset=config.preset, base_url=strip_credentials(config.base_url))
    return changed


def check_identity(run_id: int | None, identity: str, config: ProviderConfig) -> None:
    """Refuse to let ``config`` answer a run whose calls ``identity`` answered: a simulator
    answer stored as a real model's (or the reverse) would poison every later fork."""
    if config.identity == identity:
        return
    run = f"run {run_id}" if run_id is not None else "the run"
    if identity == "endpoint":
        raise ProviderMismatch(
            f"{run} was answered by a model endpoint, but no base URL is configured here, so "
            "the offline simulator would answer: set REWIND_LLM_BASE_URL (and the key) where "
            "it runs, or fork with --provider simulator to let the simulator answer (its "
            "answers are kept apart from the endpoint's)"
        )
    raise ProviderMismatch(
        f"{run} was answered by the offline simulator, but this server is configured for "
        f"{config.describe()}: fork with --provider endpoint to ask that endpoint (its answers "
        "are kept apart from the simulator's), or unset the base URL"
    )


def make_client(config: ProviderConfig) -> ChatClient:
    policy = {
        "timeout": config.timeout,
        "retries": settings.REWIND_LLM_RETRIES,
        "backoff": settings.REWIND_LLM_BACKOFF,
    }
    if config.is_simulator:
        return ChatClient(SIMULATOR_BASE_URL, transport=Simulator().transport(), **policy)
    return ChatClient(config.base_url, api_key(), **policy)
