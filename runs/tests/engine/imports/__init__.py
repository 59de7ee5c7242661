"""Tests of ``runs.engine.imports``: Burr's tracker logs and persister rows read into runs."""
