"""A Burr app whose step ships observability as agent code does: a log record through the
standard library's ``logging.handlers.DatagramHandler`` (to ``LOGS_PORT`` on loopback) and a
statsd counter as a bare UDP datagram (to ``STATSD_PORT``). Neither is the step's effect: a
replay may send them again. The handler is made on the first step (the ports are the test's).
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import socket

from burr.core import ApplicationBuilder, State
from burr.core.action import action

log = logging.getLogger("telemetry_apps.agent")
log.propagate = False
log.setLevel(logging.INFO)


def _shipped() -> logging.Logger:
    port = int(os.environ["LOGS_PORT"])
    if not any(getattr(h, "port", None) == port for h in log.handlers):
        for old in list(log.handlers):
            log.removeHandler(old)
        log.addHandler(logging.handlers.DatagramHandler("127.0.0.1", port))
    return log


def _count(metric: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(f"{metric}:1|c".encode(), ("127.0.0.1", int(os.environ["STATSD_PORT"])))


@action(reads=["question"], writes=["answer"])
def answer(state: State) -> State:
    _shipped().info("answering %s", state["question"])
    _count("agent.answers")
    return state.update(answer=state["question"].upper())


def observed_application():
    return (
        ApplicationBuilder()
        .with_actions(answer=answer)
        .with_state(question="why")
        .with_entrypoint("answer")
        .build()
    )
