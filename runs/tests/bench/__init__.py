"""Tests of what ``rewind_bench`` measures (``runs/bench/``); the command itself is tested in
``commands/test_command_bench.py``."""
