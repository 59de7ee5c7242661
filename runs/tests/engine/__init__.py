"""Tests of the engine (``runs/engine/``), a folder per room: apps, calls, execution, forking,
imports, analysis, providers, telemetry."""
