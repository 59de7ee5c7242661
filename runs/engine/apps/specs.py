"""How a pipeline is declared: its nodes (``LLMNode``, ``ToolNode``), transitions and inputs.

A pipeline is a Burr graph plus, per node, its kind and what it consumes. Users declare
nodes with ``LLMNode`` / ``ToolNode``; Rewind turns each into a Burr action that adds caching,
overrides and telemetry (``runs.engine.execution.actions``). Every node writes its output to the state
key of its own name, so "what node X produced" is always ``state[X]``.

Pipelines are registered by dotted path in ``settings.REWIND_PIPELINES`` and found by name
through ``runs.engine.apps.registry``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from runs.engine.apps.domains import DataFile, Domain
from runs.engine.errors import NodeFailure, PipelineError

View = Mapping[str, Any]  # the semantic state keys a node declared it reads

JSON_OBJECT = {"type": "json_object"}


def parse_json_object(**required: type | tuple[type, ...]) -> Callable[[str], dict]:
    """A parser for model output that must be one JSON object with ``required`` keys, each of
    the given type (``parse_json_object(title=str, points=list)``).

    It fails loudly: no fence stripping, no retry that manufactures an answer. The raw text is
    attached to the failure so the inspector can show what the model really said.
    """

    def parse(content: str) -> dict:
        if not content or not content.strip():
            raise NodeFailure("the model returned empty output", raw=content or "")
        try:
            value = json.loads(content)
        except json.JSONDecodeError as exc:
            raise NodeFailure(f"the model output is not JSON ({exc.msg})", raw=content) from None
        if not isinstance(value, dict):
            raise NodeFailure("the model output is JSON but not an object", raw=content)
        missing = [key for key in required if key not in value]
        if missing:
            raise NodeFailure(
                "the model output lacks " + ", ".join(repr(k) for k in missing), raw=content
            )
        wrong = [k for k, kind in required.items() if not isinstance(value[k], kind)]
        if wrong:
            raise NodeFailure(
                "the model output has the wrong type for " + ", ".join(repr(k) for k in wrong),
                raw=content,
            )
        return value

    return parse


@dataclass(frozen=True)
class LLMNode:
    """A node that makes one chat-completion call.

    ``prompt`` builds the user message from the node's view of state; ``system`` is fixed code.
    ``embeds`` names the state key of a tool result the prompt embeds: it is part of the key.
    """

    name: str
    reads: tuple[str, ...]
    system: str
    prompt: Callable[[View], str]
    parse: Callable[[str], Any] = field(default_factory=parse_json_object)
    version: str = "1"
    response_format: dict | None = field(default_factory=lambda: dict(JSON_OBJECT))
    max_tokens: int | None = None
    embeds: str | None = None
    kind: Literal["llm"] = "llm"


@dataclass(frozen=True)
class ToolNode:
    """A node that computes locally.

    ``args`` derives the tool's full input from the node's view of state: the tool cache key
    is taken over these args, so everything the tool consumes must be in them. ``data_files``
    (relative to ``REWIND_DATA_DIR``) are hashed into the key, so a changed dataset is a miss;
    so is every argument declared a ``DataFile``.

    ``domains`` declares, per argument, the values a fork may set (``runs.engine.apps.domains``);
    an argument without a domain cannot be overridden. ``check_output`` validates an ``output``
    override (raise ``ValueError`` with the reason) beyond "the same JSON type as before".
    An ``artifact`` node returns markdown text; Rewind writes it to ``artifacts/<run>.md``.
    """

    name: str
    reads: tuple[str, ...]
    args: Callable[[View], dict[str, Any]]
    run: Callable[..., Any]  # run(args: dict, data_dir: Path) -> JSON-serialisable output
    version: str = "1"
    data_files: tuple[str, ...] = ()
    artifact: bool = False
    domains: Mapping[str, Domain] = field(default_factory=dict)
    check_output: Callable[[Any], None] | None = None
    kind: Literal["tool"] = "tool"

    def file_args(self, args: Mapping[str, Any]) -> dict[str, DataFile]:
        """The arguments that name a data file, with their domain."""
        return {
            name: domain
            for name, domain in self.domains.items()
            if isinstance(domain, DataFile) and name in args
        }


NodeSpec = LLMNode | ToolNode


@dataclass(frozen=True)
class Transition:
    source: str
    target: str
    condition: Any = None  # a burr Condition (``burr.core.expr``/``when``) or None for default

    @property
    def label(self) -> str:
        return "default" if self.condition is None else str(self.condition.name)


@dataclass(frozen=True)
class Pipeline:
    name: str
    description: str
    nodes: tuple[NodeSpec, ...]
    transitions: tuple[Transition, ...]
    entrypoint: str
    inputs: Mapping[str, Any] = field(default_factory=dict)  # defaults for a new run
    # The values each input may take (``runs.engine.apps.domains``); checked before a run is made.
    input_domains: Mapping[str, Domain] = field(default_factory=dict)
    # Seconds one of its steps may take (None: REWIND_STEP_TIMEOUT); REWIND_STEP_TIMEOUTS wins.
    step_timeout: float | None = None
    # What a run of it concluded: ``runs.engine.analysis.outcomes.Outcome``s (named leaves of a
    # step's output or of the final state, with optional checks), shown on every run.
    outcomes: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        outcome_names = [getattr(o, "name", None) for o in self.outcomes]
        if None in outcome_names:
            raise PipelineError(f"pipeline {self.name!r}: outcomes must be Outcome(...)s")
        if len(set(outcome_names)) != len(outcome_names):
            raise PipelineError(f"pipeline {self.name!r} declares an outcome twice")
        object.__setattr__(self, "outcomes", tuple(self.outcomes))
        if self.step_timeout is not None and not 0 < self.step_timeout <= 86400:
            raise PipelineError(
                f"pipeline {self.name!r}: step_timeout must be between 0 and 86400 seconds"
            )
        names = [node.name for node in self.nodes]
        if len(set(names)) != len(names):
            raise PipelineError(f"pipeline {self.name!r} declares a node twice")
        if self.entrypoint not in names:
            raise PipelineError(
                f"pipeline {self.name!r}: entrypoint {self.entrypoint!r} is no node"
            )
        for t in self.transitions:
            for end in (t.source, t.target):
                if end not in names:
                    raise PipelineError(f"pipeline {self.name!r}: transition to unknown {end!r}")
        clash = set(names) & set(self.inputs)
        if clash:
            raise PipelineError(f"pipeline {self.name!r}: inputs shadow nodes {sorted(clash)}")
        for outcome in self.outcomes:  # an Outcome's parsed path: its step, or None (state)
            step = getattr(getattr(outcome, "parsed", None), "step", None)
            if step is not None and step not in names:
                raise PipelineError(
                    f"pipeline {self.name!r}: outcome {outcome.name!r} reads step {step!r}, "
                    f"which it does not have"
                )
        undeclared = set(self.input_domains) - set(self.inputs)
        if undeclared:
            raise PipelineError(
                f"pipeline {self.name!r}: domains for unknown inputs {sorted(undeclared)}"
            )

    def node(self, name: str) -> NodeSpec:
        for node in self.nodes:
            if node.name == name:
                return node
        raise PipelineError(
            f"pipeline {self.name!r} has no node {name!r}; its nodes are "
            + ", ".join(n.name for n in self.nodes)
        )

    def condition_label(self, source: str, target: str) -> str:
        for t in self.transitions:
            if t.source == source and t.target == target:
                return t.label
        return "default"

    @property
    def state(self) -> Mapping[str, Any]:
        return self.inputs  # a declared pipeline's inputs are its initial state

    is_async = False

    def build_graph(self, action: Callable[[NodeSpec], Any]) -> Any:
        """The Burr graph of this pipeline: ``action(spec)`` for each node (the runner passes
        ``NodeAction`` bound to the run's context; specs never import what runs them)."""
        from burr.core.graph import GraphBuilder

        transitions = [
            (t.source, t.target, t.condition) if t.condition is not None else (t.source, t.target)
            for t in self.transitions
        ]
        return (
            GraphBuilder()
            .with_actions(**{spec.name: action(spec) for spec in self.nodes})
            .with_transitions(*transitions)
            .build()
        )


def chain(*names: str) -> tuple[Transition, ...]:
    """Transitions of a linear pipeline."""
    return tuple(Transition(a, b) for a, b in zip(names, names[1:], strict=False))
