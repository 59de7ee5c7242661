"""Tests of ``runs.engine.telemetry``: OpenTelemetry export."""
