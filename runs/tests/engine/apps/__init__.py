"""Tests of ``runs.engine.apps``: Burr apps brought unchanged (shipped examples, every Burr
release), step state as stored, tool domains."""
