"""Where a pipeline goes after a step: the transitions out of it in Burr's order, the state keys
their conditions read, and the step that comes next given the state the step left.

Burr decides the next action after a step by trying the transitions out of it in the order they
were declared and taking the first whose condition holds on the state (``Graph.get_next_node``).
Both kinds of pipeline answer here the same way: a Rewind ``Pipeline``'s ``Transition``s (no
condition: always) and a Burr app's graph (the user's own conditions, evaluated as Burr would).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from burr.core import State
from burr.core.action import Condition

from runs.engine.apps.burr import BurrApp


class Undecided(Exception):
    """The next step cannot be told: the state it depends on is unknown, or a condition failed
    on it."""


@dataclass(frozen=True)
class Route:
    target: str
    condition: Any  # a Burr ``Condition``, or None: always taken

    @property
    def always(self) -> bool:
        """Taken whatever the state: no condition, or Burr's ``default``."""
        return self.condition is None or (
            not self.condition.reads and str(self.condition.name) == "default"
        )

    def holds(self, state: Mapping[str, Any]) -> bool:
        if self.always:
            return True
        return bool(self.condition.run(State(dict(state)))[Condition.KEY])


def routes(pipeline: Any, source: str) -> tuple[Route, ...]:
    """The transitions out of ``source``, in the order Burr tries them."""
    if isinstance(pipeline, BurrApp):
        return tuple(
            Route(t.to.name, t.condition)
            for t in pipeline.graph.transitions
            if t.from_.name == source
        )
    return tuple(Route(t.target, t.condition) for t in pipeline.transitions if t.source == source)


def names(pipeline: Any) -> tuple[str, ...]:
    if isinstance(pipeline, BurrApp):
        return tuple(action.name for action in pipeline.graph.actions)
    return tuple(node.name for node in pipeline.nodes)


def is_linear(pipeline: Any) -> bool:
    """Every step has at most one way on, taken whatever the state, and no step comes twice:
    what is still to come is known in advance (the declared demo; a chain of actions)."""
    seen: set[str] = set()
    step: str | None = pipeline.entrypoint
    while step is not None:
        if step in seen:
            return False
        seen.add(step)
        out = routes(pipeline, step)
        if len(out) > 1 or (out and not out[0].always):
            return False
        step = out[0].target if out else None
    return all(len(routes(pipeline, name)) <= 1 for name in names(pipeline))


def next_step(
    pipeline: Any, last: str | None, state: Callable[[], Mapping[str, Any] | None]
) -> str | None:
    """The step Burr runs after ``last`` (the entrypoint when nothing ran yet), or None when no
    transition holds (the application ends there). ``state`` gives the state ``last`` left;
    it is asked only when a condition reads it. Raises ``Undecided``."""
    if last is None:
        return pipeline.entrypoint
    known: Mapping[str, Any] | None = None
    for route in routes(pipeline, last):
        if not route.always and known is None:
            known = state()
            if known is None:
                raise Undecided(f"the state after {last} is unknown")
        try:
            if route.holds(known or {}):
                return route.target
        except Exception as exc:  # noqa: BLE001 — the app's own condition: whatever it raises
            raise Undecided(f"{route.condition} failed: {exc}") from None
    return None
