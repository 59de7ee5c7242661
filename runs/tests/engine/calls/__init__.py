"""Tests of ``runs.engine.calls``: the capture of HTTP calls per library, hermetic replays, cache
keys and entries, what answered a call, unreachable endpoints."""
