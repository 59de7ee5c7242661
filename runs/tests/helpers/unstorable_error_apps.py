"""A Burr app whose step fails with a message no database takes as it is: a lone surrogate
and a NUL (``test_unstorable_error.py``), as a library decoding bytes with ``surrogateescape``
or quoting a binary answer would raise it."""

from __future__ import annotations

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

MESSAGE = "could not parse \udcff at byte 3 (\x00 before it)"


@action(reads=[], writes=["parsed"])
def parse(state: State) -> State:
    raise ValueError(MESSAGE)


def application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(parse)
        .with_transitions()
        .with_state(parsed=None)
        .with_entrypoint("parse")
        .build()
    )


APPS = {"unstorable_error": "runs.tests.helpers.unstorable_error_apps.application"}
