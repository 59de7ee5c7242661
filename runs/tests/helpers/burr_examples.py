"""Burr's shipped example applications registered by dotted path, and the fixtures that run them
against Rewind's simulator served on loopback: ``apps`` (registered, their openai clients
configured from the environment), ``provider`` (the simulator as their OpenAI endpoint, started
and stopped by the test), ``chat`` (a completed multi-modal chatbot run) and the autouse
``_loopback`` guard. ``engine/apps/test_burr_apps.py`` is their main user; a test module takes
them as its own fixtures by naming them at module level (``apps, provider = burr_examples.apps,
burr_examples.provider``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.providers.simulator import Simulator
from runs.models import Node, Run
from runs.tests.conftest import closed_port_url

CHATBOT = "burr.examples.multi-modal-chatbot.application"
STREAMING = "burr.examples.streaming-fastapi.application"
APPS = {
    "chatbot": f"{CHATBOT}.application",  # the app's own factory
    "chatbot_graph": f"{CHATBOT}.graph",  # its module-level Graph
    "counter": "burr.examples.hello-world-counter.application.application",
    "streaming": f"{STREAMING}.application",  # async, streaming
    "email": "burr.examples.email-assistant.application.application",
    "jitter": "runs.tests.helpers.burr_apps.jitter_application",
    "jitter_app": "runs.tests.helpers.burr_apps.JITTER_APP",  # an Application
    "jitter_builder": "runs.tests.helpers.burr_apps.jitter_builder",  # a factory of a builder
    "models": "runs.tests.helpers.burr_apps.models_application",
    "not_an_app": "runs.tests.helpers.burr_apps.NOT_AN_APP",
    "broken": "runs.tests.helpers.burr_apps.broken_application",
}

QUESTION = "What is the capital of France?"  # the simulator routes it to answer_question


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _loopback(loopback_only) -> None:
    """Every test here: no connection beyond loopback (conftest's ``loopback_only``)."""


@pytest.fixture
def apps(rewind_settings, monkeypatch, tmp_path, db):
    """The example apps registered by dotted path; their openai clients configured from the
    environment (a test key; the base URL dead until ``provider.start()``)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rewind-burr-apps")
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    for name in ("OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_ORGANIZATION"):
        monkeypatch.delenv(name, raising=False)
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    yield rewind_settings
    registry._load.cache_clear()


class Provider:
    """Rewind's simulator served on loopback as the examples' OpenAI endpoint."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.stack = ExitStack()
        self.simulator: Simulator | None = None
        self.url = ""

    def start(self) -> Simulator:
        self.stop()
        self.simulator = Simulator()
        self.url = self.stack.enter_context(self.simulator.serve())
        self.monkeypatch.setenv("OPENAI_BASE_URL", self.url)
        return self.simulator

    def stop(self) -> None:
        """Stop serving; ``OPENAI_BASE_URL`` keeps naming the now dead endpoint."""
        if self.simulator is None:
            return
        self.stack.close()
        self.stack = ExitStack()
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{self.url}/models", timeout=2)

    @property
    def chat_requests(self) -> list[dict]:
        return list(self.simulator.requests) if self.simulator else []


@pytest.fixture
def provider(apps, monkeypatch) -> Iterator[Provider]:
    served = Provider(monkeypatch)
    try:
        yield served
    finally:
        served.stop()


def run(name: str, inputs: dict | None = None, **kwargs: Any) -> Run:
    return execute_run(create_run(name, inputs, **kwargs).pk)


def steps(run: Run) -> list[Node]:
    return list(run.nodes.order_by("sequence_id"))


def step(run: Run, name: str, occurrence: int = 1) -> Node:
    return [n for n in steps(run) if n.name == name][occurrence - 1]


def completed(run: Run) -> Run:
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


@pytest.fixture
def chat(provider) -> Callable[..., Run]:
    """``chat(*prompts)``: a completed chatbot run, one turn per prompt (halt after
    ``response``), against the simulator."""

    def make(*prompts: str) -> Run:
        provider.start()
        first, *more = prompts
        return completed(
            run(
                "chatbot",
                {"prompt": first},
                halt_after=["response"],
                turns=[{"prompt": p} for p in more],
            )
        )

    return make
