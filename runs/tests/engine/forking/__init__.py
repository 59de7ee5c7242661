"""Tests of ``runs.engine.forking``: forks and replays, the dirty set, previews, dedupe, crossed
grids, replay fidelity, overrides of the keys a Burr condition reads."""
