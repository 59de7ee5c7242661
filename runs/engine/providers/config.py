"""The provider endpoint in force, read from settings and the environment.

The API key is read from the environment at the moment a client is made and handed to the
client only: it is never put in a ``ProviderConfig``, a snapshot, a row or a message.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from runs.engine.errors import RewindError
from runs.engine.providers.client import PRESETS, ChatClient, strip_credentials
from runs.engine.providers.simulator import SIMULATOR_BASE_URL, SIMULATOR_MODEL, Simulator

KEY_VARIABLES = ("REWIND_API_KEY", "OPENAI_API_KEY")


class ProviderConfigError(RewindError):
    pass


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

    @property
    def is_simulator(self) -> bool:
        return self.preset == "simulator"

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
