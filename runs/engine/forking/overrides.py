"""Fork overrides: exactly one field of one node (DESIGN.md, Overrides).

An llm node consumes ``prompt``, ``model``, ``temperature`` and ``output``; a tool node
consumes ``args.<name>`` and ``output``; a Burr app's step ``state.<key>`` (a key its action
reads, or the conditions after it read), ``input.<name>``, ``writes.<key>`` and, when it
called an LLM, ``llm.model`` and ``llm.temperature``. Anything else is rejected here, before a
row is written or a step runs — a prompt edit on a tool node would otherwise be a silent no-op.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings

from runs.engine.apps.burr import ActionSpec
from runs.engine.apps.specs import LLMNode, NodeSpec, ToolNode
from runs.engine.errors import NodeFailure, OverrideError
from runs.lib.hashing import canonical_json, semantic_state
from runs.lib.jsontext import JSONTextError, parse_json

if TYPE_CHECKING:
    from runs.models import Node, Run

MAX_TEMPERATURE = 2.0


@dataclass(frozen=True)
class Override:
    node: str
    field: str
    value: Any

    def as_json(self) -> dict[str, Any]:
        return {"node": self.node, "field": self.field, "value": self.value}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Override | None:
        return None if not data else cls(data["node"], data["field"], data["value"])

    def same_change(self, other: Override | None) -> bool:
        """The same field of the same node set to the same typed value. Values are compared
        as canonical JSON, after ``parse_override`` typed them: ``3`` and ``3.0`` for a float
        field are both 3.0, while ``"3"`` and ``3`` stay different."""
        return (
            other is not None
            and (self.node, self.field) == (other.node, other.field)
            and canonical_json(self.value) == canonical_json(other.value)
        )


def effective_overrides(run: Run, start: int | None = None) -> dict[int, dict[str, Override]]:
    """Every override a run's re-executed steps must apply, by sequence id and field.

    A fork inherits everything of its parent except its own one change — the parent's own
    override included. So besides the run's own override, each ancestor's override applies
    when its step is re-executed here (at or after this run's fork point); the nearest run
    wins for the same step and field. Without this, an unchanged replay of a fork that
    changed ``analyse`` would re-run ``analyse`` unchanged and reproduce the grandparent.
    """
    found: dict[int, dict[str, Override]] = {}
    if start is None:  # the steps this run re-executes; a would-be fork passes its own point
        start = run.fork_sequence_id if run.fork_sequence_id is not None else 0
    current: Run | None = run
    while current is not None:
        override = Override.from_json(current.override)
        seq = current.fork_sequence_id
        if override is not None and seq is not None and seq >= start:
            found.setdefault(seq, {}).setdefault(override.field, override)
        current = current.parent
    return found


def user_prompt(messages: list[dict] | None) -> str:
    """The user message of an llm call: what the ``prompt`` override replaces."""
    for message in reversed(messages or []):
        if message.get("role") == "user":
            return str(message.get("content", ""))
    return ""


def current_fields(
    spec: NodeSpec | ActionSpec, node: Node, states: Mapping[tuple[int, int], dict] | None = None
) -> dict[str, Any]:
    """The override fields ``node`` consumes, each with the value it had in its run. A Burr
    step whose route depends on keys its action does not read takes their values from the
    state it left: ``states`` (``states_after``, loaded once for many steps), else one query."""
    if isinstance(spec, ActionSpec):
        if spec.route_reads and states is None:
            states = states_after([node])
        return action_fields(spec, node, (states or {}).get(state_key(node)))
    if isinstance(spec, LLMNode):
        return {
            "prompt": user_prompt(node.prompt),
            "model": node.model_requested,
            "temperature": node.temperature,
            "output": node.output,
        }
    args = (node.inputs or {}).get("args") or {}
    # Only the arguments whose domain the node declares: an undeclared one is not overridable.
    settable = {f"args.{name}": value for name, value in args.items() if name in spec.domains}
    return {**settable, "output": node.output}


def action_fields(
    spec: ActionSpec, node: Node, after: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A Burr app's step consumes ``state.KEY`` (each key its action reads, and each key the
    conditions on the transitions out of it read: ``spec.route_reads``), ``input.NAME``
    (each runtime input it received), ``writes.KEY`` (each key it wrote) and, when it called
    an LLM, ``llm.model`` and ``llm.temperature``. ``after`` is the state the step left: a
    key it neither reads nor writes had the same value before it."""
    recorded = node.inputs if isinstance(node.inputs, dict) else {}
    reads = recorded.get("reads") or {}
    fields: dict[str, Any] = {f"state.{key}": reads.get(key) for key in spec.reads}
    fields.update({f"state.{key}": (after or {}).get(key) for key in spec.route_reads})
    fields.update({f"input.{k}": v for k, v in sorted((recorded.get("inputs") or {}).items())})
    output = node.output if isinstance(node.output, dict) else {}
    fields.update({f"writes.{key}": output.get(key) for key in spec.writes})
    if node.kind == "llm":
        fields["llm.model"] = node.model_requested
        fields["llm.temperature"] = node.temperature
    return fields


def state_key(node: Node) -> tuple[int, int]:
    """Where the state a step left is kept: the run that executed it, at its sequence id."""
    return (node.src_run_id, node.src_sequence_id)


def states_after(steps: Iterable[Node]) -> dict[tuple[int, int], dict]:
    """The state each of ``steps`` left (semantic keys, as stored), by ``state_key``, in one
    query; a step whose state row is missing (an imported run without one) has none."""
    from runs.models import BurrState

    wanted = {state_key(step) for step in steps}
    if not wanted:
        return {}
    rows = BurrState.objects.filter(
        app_id__in={str(run) for run, _ in wanted}, sequence_id__in={seq for _, seq in wanted}
    ).values_list("app_id", "sequence_id", "state_blob__body")
    found: dict[tuple[int, int], dict] = {}
    for app_id, seq, body in rows:
        key = (int(app_id), seq) if app_id.isdigit() else None
        if key in wanted:
            found[key] = semantic_state(json.loads(body))
    return found


def parse_override(
    spec: NodeSpec | ActionSpec, node: Node, field: str, raw: Any, *, from_text: bool
) -> Override:
    """Validate and type one override value.

    ``from_text`` says ``raw`` is a string typed by a person (``--set``, a form field) to be
    converted to the field's type; otherwise it is already a JSON value (API).
    """
    fields = current_fields(spec, node)
    if field not in fields:
        key = field.removeprefix("state.")
        if isinstance(spec, ActionSpec) and field.startswith("state.") and key in spec.writes:
            raise OverrideError(
                f"{field}: {spec.name} writes {key!r} itself, so a value set before it runs "
                f"is overwritten; to change what it wrote (and the route after it), set "
                f"writes.{key}"
            )
        raise OverrideError(
            f"node {spec.name!r} ({spec.kind}) cannot take an override of {field!r}; "
            f"it consumes: {', '.join(fields)}"
        )
    if from_text and not isinstance(raw, str):
        raise OverrideError(f"{field}: expected text")
    value = _typed(field, raw, fields[field], from_text=from_text)
    check_clean(field, value)
    if field == "output" and isinstance(spec, LLMNode):
        # The value stands in for what the model said: it must be something the node's own
        # parser accepts, or the failure would surface later, somewhere else.
        try:
            spec.parse(canonical_json(value))
        except NodeFailure as exc:
            raise OverrideError(f"output: {exc}") from None
    elif field == "output":
        _check_tool_output(spec, value, fields["output"])
    elif isinstance(spec, ActionSpec):
        pass  # typed like the value it replaces (``_typed``); the app's own code checks more
    elif field.startswith("args."):
        value = spec.domains[field.removeprefix("args.")].check(field, value)
    size = len(canonical_json(value).encode("utf-8"))
    if size > settings.REWIND_OVERRIDE_MAX_BYTES:
        raise OverrideError(
            f"{field}: the value is {size} bytes; the limit is "
            f"{settings.REWIND_OVERRIDE_MAX_BYTES} (REWIND_OVERRIDE_MAX_BYTES)"
        )
    return Override(spec.name, field, value)


def _typed(field: str, raw: Any, current: Any, *, from_text: bool) -> Any:
    if field == "llm.model":
        return _typed("model", raw, current, from_text=from_text)
    if field == "llm.temperature":
        return parse_temperature(raw)
    if field == "prompt":
        require_text("prompt", raw)
        return raw
    if field == "model":
        if not isinstance(raw, str) or not raw.strip() or len(raw) > 200:
            raise OverrideError("model: must be a model name of 1 to 200 characters")
        return raw.strip()
    if field == "temperature":
        return parse_temperature(raw)
    if field == "output":
        return _json_value(field, raw) if from_text else raw
    # args.NAME: the type of the value the node had decides how text is read.
    return typed_like(field, raw, current) if from_text else check_type(field, raw, current)


def _check_tool_output(spec: ToolNode, value: Any, current: Any) -> None:
    """A tool output override stands in for what the tool computed: it must have the shape
    the steps after it read (the same JSON type, and what the node's ``check_output`` wants)."""
    if current is not None and _json_type(value) != _json_type(current):
        raise OverrideError(
            f"output: expected {_json_type(current)} like the output the tool computed, "
            f"got {_json_type(value)}"
        )
    if spec.check_output is not None:
        try:
            spec.check_output(value)
        except (ValueError, KeyError, TypeError) as exc:
            raise OverrideError(f"output: {exc}") from None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object"


def parse_temperature(raw: Any) -> float:
    try:
        value = float(raw) if not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError):
        raise OverrideError(f"temperature: expected a number, got {raw!r}") from None
    if not 0.0 <= value <= MAX_TEMPERATURE:  # also rejects nan
        raise OverrideError(f"temperature: must be between 0 and {MAX_TEMPERATURE}, got {raw!r}")
    return value + 0.0  # -0.0 becomes 0.0: one temperature, one cache key


def _json_value(field: str, raw: str) -> Any:
    try:
        return parse_json(raw)
    except JSONTextError as exc:
        raise OverrideError(f"{field}: {exc}") from None


def typed_like(field: str, raw: str, current: Any) -> Any:
    """Read ``raw`` as a value of the same type as ``current``."""
    text = raw.strip()
    try:
        if isinstance(current, bool):
            if text.lower() not in {"true", "false"}:
                raise ValueError
            return text.lower() == "true"
        if isinstance(current, int):
            return int(text)
        if isinstance(current, float):
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            return value
    except ValueError:
        raise OverrideError(
            f"{field}: expected {type(current).__name__} like {current!r}, got {raw!r}"
        ) from None
    if isinstance(current, str):
        return raw
    return _json_value(field, raw)  # lists, dicts, null: typed as JSON


def check_type(field: str, value: Any, current: Any) -> Any:
    expected = type(current)
    ok = isinstance(value, expected) and not (isinstance(value, bool) and expected is not bool)
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if current is not None and not ok:
        raise OverrideError(f"{field}: expected {expected.__name__}, got {type(value).__name__}")
    return value


def require_text(field: str, value: Any) -> str:
    """Text a prompt is made of: non-empty once blanks are stripped — the same rule for a fork's
    prompt and a new run's text inputs (a blank question would start a paid run about nothing)."""
    if not isinstance(value, str) or not value.strip():
        raise OverrideError(f"{field}: must be non-empty text")
    return value


def check_clean(field: str, value: Any) -> None:
    """Refuse text no database can store alike: NUL characters (PostgreSQL rejects them in
    text and JSON) and lone surrogates (not encodable as UTF-8)."""
    if isinstance(value, str):
        if "\x00" in value:
            raise OverrideError(f"{field}: NUL characters are not allowed")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise OverrideError(f"{field}: the text is not valid Unicode") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_clean(field, key)
            check_clean(field, item)
    elif isinstance(value, list):
        for item in value:
            check_clean(field, item)
    elif isinstance(value, float) and not math.isfinite(value):
        raise OverrideError(f"{field}: numbers must be finite")
