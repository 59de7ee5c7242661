"""Shared fixtures for tests that create and execute runs.

Every fixture that runs a pipeline points ``REWIND_ARTIFACT_DIR`` at the test's own temp
directory and forces the offline in-process simulator (no network, no key), whatever the
environment of the machine running the suite says.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from runs.engine.providers.config import KEY_VARIABLES
from runs.engine.providers.simulator import SIMULATOR_MODEL, Simulator, SimulatorOptions
from runs.engine.runner import create_fork, create_run, execute_run
from runs.models import Run


@pytest.fixture
def rewind_settings(settings, tmp_path, monkeypatch):
    """Settings for an isolated engine test: own artifact dir, the offline simulator."""
    settings.REWIND_ARTIFACT_DIR = tmp_path / "artifacts"
    settings.REWIND_LLM_PRESET = ""
    settings.REWIND_LLM_BASE_URL = ""
    settings.REWIND_LLM_MODEL = ""
    settings.REWIND_LLM_TEMPERATURE = 0.0
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return settings


@pytest.fixture
def run_pipeline(rewind_settings, db) -> Callable[..., Run]:
    """``run_pipeline("research", inputs=None, **create_run_kwargs)``: a new run, executed."""

    def make(pipeline: str = "research", inputs: dict | None = None, **kwargs: Any) -> Run:
        run = create_run(pipeline, inputs, **kwargs)
        return execute_run(run.pk)

    return make


@pytest.fixture
def run_fork(rewind_settings, db) -> Callable[..., Run]:
    """``run_fork(source, node, field=None, value=None, **kwargs)``: a fork, executed."""

    def make(source: Run, node: str, field: str | None = None, value: Any = None, **kw) -> Run:
        fork = create_fork(source, node, field, value, **kw)
        return execute_run(fork.pk)

    return make


@pytest.fixture
def research_run(run_pipeline) -> Run:
    """A completed run of the demo ``research`` pipeline (in-process simulator)."""
    run = run_pipeline("research")
    assert run.status == Run.Status.COMPLETED, run.error
    return run


@pytest.fixture
def serve_simulator(rewind_settings) -> Iterator[Callable[..., Simulator]]:
    """``serve_simulator(**SimulatorOptions)``: serve a simulator on loopback and point the
    provider settings at it; returns the Simulator (``.requests`` records what it got)."""
    with ExitStack() as stack:

        def serve(**options: Any) -> Simulator:
            simulator = Simulator(SimulatorOptions(**options))
            url = stack.enter_context(simulator.serve())
            rewind_settings.REWIND_LLM_BASE_URL = url
            rewind_settings.REWIND_LLM_MODEL = SIMULATOR_MODEL
            return simulator

        yield serve


def closed_port_url() -> str:
    """A loopback base URL on which nothing listens (the port was bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
