"""Burr applications teams already have, registered unchanged (DESIGN.md, "Any Burr app").

A ``REWIND_PIPELINES`` entry may name a Burr ``Application``, an ``ApplicationBuilder``, a
``Graph`` or a callable returning one of these (the app's own factory). ``burr_app`` turns
it into a :class:`BurrApp`: the graph (the user's own actions and conditions, never edited),
the entrypoint and the initial state. Rewind rebuilds the application from that graph with its
own persister and hooks (``runs.engine.execution.application``); calls made inside the actions are
captured by ``runs.engine.calls.capture``.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from burr.core import Application, ApplicationBuilder
from burr.core.action import Action
from burr.core.graph import Graph

from runs.engine.apps.state import stored_state
from runs.engine.errors import NodeFailure, PipelineError
from runs.lib.hashing import FRAMEWORK_PREFIX, canonical_json


@dataclass(frozen=True)
class ActionSpec:
    """A step of a Burr app: what its action reads, writes and takes as runtime inputs."""

    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    inputs: tuple[str, ...]
    kind: None = None  # decided by what the step did: llm, tool or code
    # The runtime inputs' annotated types, where the action's function says (``increment_by:
    # int``): what a value typed on the command line is read as.
    input_types: tuple[tuple[str, Any], ...] = ()
    # The state keys the conditions on the transitions out of this action read, that the
    # action itself neither reads nor writes (``Condition.reads``: ``counter_limit`` in
    # ``expr("counter < counter_limit")``): a fork may set them too, and so change the route.
    # A key the action writes is not among them: it would overwrite a value set before it runs.
    route_reads: tuple[str, ...] = ()

    def input_type(self, name: str) -> Any:
        return dict(self.input_types).get(name)


@dataclass(frozen=True)
class BurrApp:
    name: str
    description: str
    graph: Graph
    entrypoint: str
    state: Mapping[str, Any]  # the initial state (semantic keys only)
    source: str  # the dotted path it was registered by
    nodes: tuple[ActionSpec, ...] = ()
    inputs: Mapping[str, Any] = field(default_factory=dict)  # no declared pipeline inputs
    input_domains: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_async(self) -> bool:
        return any(action.is_async() for action in self.graph.actions)

    def node(self, name: str) -> ActionSpec:
        for node in self.nodes:
            if node.name == name:
                return node
        raise PipelineError(
            f"the {self.name} app has no action {name!r}; its actions are "
            + ", ".join(n.name for n in self.nodes)
        )

    def action(self, name: str) -> Action:
        for action in self.graph.actions:
            if action.name == name:
                return action
        raise PipelineError(f"the {self.name} app has no action {name!r}")

    def condition_label(self, source: str, target: str) -> str:
        for transition in self.graph.transitions:
            if transition.from_.name == source and transition.to.name == target:
                return str(transition.condition.name)
        return "default"

    def build_graph(self, action: Any) -> Graph:
        return self.graph  # the user's own actions, as they are (``action`` is for declared nodes)


def _spec(action: Action, graph: Graph) -> ActionSpec:
    required, optional = action.optional_and_required_inputs
    inputs = tuple(sorted(name for name in {*required, *optional} if not name.startswith("__")))
    own = {*action.reads, *action.writes}
    route_reads = dict.fromkeys(
        key
        for transition in graph.transitions
        if transition.from_.name == action.name
        for key in transition.condition.reads
        if key not in own and not key.startswith(FRAMEWORK_PREFIX)
    )
    return ActionSpec(
        name=action.name,
        reads=tuple(action.reads),
        writes=tuple(action.writes),
        inputs=inputs,
        input_types=_annotated(action, inputs),
        route_reads=tuple(route_reads),
    )


def _annotated(action: Action, inputs: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    """The plain types (``int``, ``str``, ``list``…) the action's function annotates its runtime
    inputs with; nothing for a class-based action or an annotation that is not a plain type."""
    fn = getattr(action, "_originating_fn", None) or getattr(action, "run", None)
    try:
        hints = typing.get_type_hints(fn) if fn is not None else {}
    except Exception:  # noqa: BLE001 — an annotation the user's module cannot resolve
        return ()
    return tuple((name, hints[name]) for name in inputs if isinstance(hints.get(name), type))


def burr_app(name: str, obj: Any, source: str) -> BurrApp:
    """``obj`` as a :class:`BurrApp`, or a ``PipelineError`` saying what it is instead."""
    if callable(obj) and not isinstance(obj, Application | ApplicationBuilder | Graph):
        try:
            obj = obj()
        except Exception as exc:  # noqa: BLE001 — the user's factory: any failure is theirs
            raise PipelineError(
                f"pipeline {name!r}: the factory {source} failed: {type(exc).__name__}: {exc}"
            ) from None
    if isinstance(obj, ApplicationBuilder):
        try:
            obj = obj.build()
        except Exception as exc:  # noqa: BLE001
            raise PipelineError(f"pipeline {name!r}: {source} does not build: {exc}") from None
    if isinstance(obj, Application):
        graph, entrypoint = obj.graph, obj.graph.entrypoint.name
        try:
            state = stored_state(obj.state)  # as Burr serialises it: any type a serde knows
            canonical_json(state)
        except (NodeFailure, TypeError, ValueError) as exc:
            raise PipelineError(
                f"pipeline {name!r}: the initial state of {source} cannot be stored ({exc})"
            ) from None
    elif isinstance(obj, Graph):
        graph, entrypoint, state = obj, obj.actions[0].name, {}
    else:
        raise PipelineError(
            f"pipeline {name!r}: {source} is a {type(obj).__name__}; register a Rewind "
            "Pipeline, a Burr Application, ApplicationBuilder or Graph, or a callable "
            "returning one"
        )
    return BurrApp(
        name=name,
        description=f"Burr app {source}",
        graph=graph,
        entrypoint=entrypoint,
        state=state,
        source=source,
        nodes=tuple(_spec(action, graph) for action in graph.actions),
    )
