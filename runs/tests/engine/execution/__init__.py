"""Tests of ``runs.engine.execution``: fresh runs, cancel, step timeouts, queue workers, a user's
own program recorded, the background writer, a replay's fixed cost."""
