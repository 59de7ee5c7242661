"""Creating a new run: its inputs (or, for a Burr app, its turns and halts) and its provider
snapshot, validated before the queued row is written."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import Pipeline
from runs.engine.errors import InputError, OverrideError, RewindError
from runs.engine.forking.overrides import (
    check_clean,
    check_type,
    parse_temperature,
    require_text,
    typed_like,
)
from runs.engine.providers.config import current_config
from runs.lib.jsontext import JSONTextError, parse_json
from runs.models import Run


def _inputs(pipeline: Pipeline, given: dict[str, Any], *, from_text: bool) -> dict[str, Any]:
    unknown = sorted(set(given) - set(pipeline.inputs))
    if unknown:
        raise InputError(
            f"unknown input {', '.join(map(repr, unknown))}; the {pipeline.name} pipeline takes "
            + (", ".join(pipeline.inputs) or "no inputs")
        )
    merged = dict(pipeline.inputs)
    for name, value in given.items():
        try:
            default = pipeline.inputs[name]
            merged[name] = (
                typed_like(name, value, default) if from_text else check_type(name, value, default)
            )
            check_clean(name, merged[name])
            if isinstance(default, str) and default.strip():
                require_text(name, merged[name])  # text that had text: not blank
            if name in pipeline.input_domains:
                merged[name] = pipeline.input_domains[name].check(name, merged[name])
        except OverrideError as exc:
            raise InputError(f"input {exc}") from None
    return merged


def _provider_snapshot(model: str | None, temperature: float | str | None) -> dict[str, Any]:
    """Model and temperature of a new run of a declared pipeline: given, or configured."""
    config = current_config()
    snapshot = config.snapshot()
    if model is not None:
        if not isinstance(model, str) or not model.strip() or len(model) > 200 or "\x00" in model:
            raise RewindError("model must be a name of 1 to 200 characters")
        snapshot["model"] = str(model).strip()
    else:
        snapshot["model"] = config.require_model()
    if temperature is not None:
        try:
            snapshot["temperature"] = parse_temperature(temperature)
        except OverrideError as exc:
            raise RewindError(str(exc)) from None
    return snapshot


def runtime_inputs(app: BurrApp, given: dict[str, Any]) -> dict[str, Any]:
    """Runtime inputs typed as text, read as the values the app expects: as the type an action
    annotates the input with (``increment_by: int``), else as JSON when the text is JSON
    (``1``, ``["a", "b"]``, ``true``), else as the text itself."""
    typed = {}
    for name, value in given.items():
        expected = next((t for node in app.nodes if (t := node.input_type(name))), None)
        if not isinstance(value, str) or expected is str:
            typed[name] = value
            continue
        try:
            typed[name] = parse_json(value)
        except JSONTextError:
            typed[name] = value
        if expected is not None and not _fits(typed[name], expected):
            raise InputError(
                f"input {name}: expected {expected.__name__} (as the action declares), "
                f"got {value!r}"
            )
    return typed


def _fits(value: Any, expected: type) -> bool:
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return True
    if expected is int and isinstance(value, bool):
        return False
    return isinstance(value, expected)


def _app_turns(
    app: BurrApp,
    inputs: dict[str, Any],
    turns: list[dict[str, Any]],
    halt_after: list[str],
    halt_before: list[str],
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """A Burr app's runtime inputs as turns, and its halts, checked against its actions."""
    accepted = sorted({name for node in app.nodes for name in node.inputs})
    for given in (inputs, *turns):
        unknown = sorted(set(given) - set(accepted))
        if unknown:
            raise InputError(
                f"unknown input {', '.join(map(repr, unknown))}; the actions of {app.name} "
                f"take {', '.join(accepted) or 'no runtime inputs'}"
            )
        for name, value in given.items():
            try:
                check_clean(f"input {name}", value)
            except OverrideError as exc:
                raise InputError(str(exc)) from None
    actions = {node.name for node in app.nodes}
    for halt in (*halt_after, *halt_before):
        if halt not in actions:
            raise InputError(
                f"cannot halt at {halt!r}: the actions of {app.name} are {', '.join(sorted(actions))}"
            )
    if turns and not (halt_after or halt_before):
        raise InputError("several turns need --halt-after or --halt-before to end each turn")
    all_turns = [{"inputs": dict(inputs)}, *({"inputs": dict(t)} for t in turns)]
    return all_turns, {"after": list(halt_after), "before": list(halt_before)}


def create_run(
    pipeline: str,
    inputs: dict[str, Any] | None = None,
    *,
    turns: list[dict[str, Any]] | None = None,
    halt_after: list[str] | None = None,
    halt_before: list[str] | None = None,
    model: str | None = None,
    temperature: float | str | None = None,
    live: bool = False,
    from_text: bool = True,
) -> Run:
    """A new queued run of ``pipeline``; model and temperature default to the configuration.

    For a declared pipeline ``inputs`` are its inputs (its initial state). For a Burr app they
    are the runtime inputs of the first turn, as ``app.run(inputs=…)``; ``turns`` are the
    runtime inputs of the turns after it, each ended by ``halt_after``/``halt_before``."""
    spec = get_pipeline(pipeline)
    run_turns: list[dict[str, Any]] = []
    halt: dict[str, list[str]] = {}
    if isinstance(spec, BurrApp):
        if from_text:  # typed on a command line or in a form: read as the app expects
            inputs = runtime_inputs(spec, inputs or {})
            turns = [runtime_inputs(spec, turn) for turn in turns or []]
        run_turns, halt = _app_turns(
            spec, inputs or {}, turns or [], halt_after or [], halt_before or []
        )
        merged = dict(spec.state)
    else:
        if turns or halt_after or halt_before:
            raise InputError(
                f"the {spec.name} pipeline runs to its end: turns and halts are for Burr apps"
            )
        merged = _inputs(spec, inputs or {}, from_text=from_text)
    if isinstance(spec, BurrApp):
        if model is not None or temperature is not None:
            raise InputError(
                f"the {spec.name} app's calls name their own model and temperature; fork a "
                "step with llm.model or llm.temperature to change them"
            )
        # The app's own client makes its calls to the endpoint it is configured with:
        # Rewind's provider settings play no part.
        snapshot = {"preset": "app", "model": "", "temperature": None, "simulator": False}
    else:
        snapshot = _provider_snapshot(model, temperature)
    with transaction.atomic():
        run = Run.objects.create(
            pipeline=spec.name,
            inputs=merged,
            turns=run_turns,
            halt=halt,
            provider=snapshot,
            mode=Run.Mode.LIVE if live else Run.Mode.CACHE,
        )
        Run.objects.make_root(run)
    return run
