"""Tests of ``runs.engine.providers``: the client, the offline simulator and its wire formats,
provider faults."""
