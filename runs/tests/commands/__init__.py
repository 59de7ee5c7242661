"""Tests of the management commands (``runs/management/commands/``), one file per command or
per option family (``test_command_<name>*.py``)."""
