"""Creating and executing runs and forks.

``create_run`` / ``create_fork`` validate everything and write the queued rows;
``execute_run(run_id)`` is the one function that executes a run, called by the commands
in-process and by the task queue alike.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from runs.engine import dirty
from runs.engine.actions import RunContext
from runs.engine.application import build_application, make_context, source_pins
from runs.engine.apps import BurrApp
from runs.engine.errors import ForkError, InputError, OverrideError, RewindError
from runs.engine.execution import adrive, drive, start_turn
from runs.engine.hashing import trajectory_sha256
from runs.engine.overrides import (
    Override,
    check_clean,
    check_type,
    effective_overrides,
    parse_override,
    parse_temperature,
    typed_like,
)
from runs.engine.persister import DjangoPersister
from runs.engine.pipeline import Pipeline, get_pipeline
from runs.engine.providers.config import current_config
from runs.engine.recorder import AsyncStepRecorder, StepRecorder, failure_message
from runs.models import Edge, Node, Run

logger = logging.getLogger("rewind.runner")


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
        Run.objects.filter(pk=run.pk).update(root=run)
        run.root_id = run.pk
    return run


def find_node(run: Run, node: str) -> Node:
    """A step of ``run`` by name (its first occurrence), ``name#k`` (k-th, from 1) or sequence id."""
    steps = list(run.nodes.order_by("sequence_id"))
    name, _, nth = node.partition("#")
    if node.isdigit():
        matches = [n for n in steps if n.sequence_id == int(node)]
    else:
        matches = [n for n in steps if n.name == name]
        if nth:
            index = int(nth) - 1 if nth.isdigit() and int(nth) > 0 else len(matches)
            matches = matches[index : index + 1]
    if not matches:
        listing = ", ".join(f"{n.name}({n.sequence_id})" for n in steps) or "none"
        raise ForkError(f"run {run.pk} has no step {node!r}; its steps are {listing}")
    return matches[0]


def validate_fork(
    source: Run, node: str, field: str | None, value: Any, *, from_text: bool
) -> tuple[Node, Override | None]:
    """Everything that can be wrong with a fork, checked before anything is written."""
    if not source.is_finished:
        raise ForkError(f"run {source.pk} is still {source.status}; fork it once it has finished")
    pipeline = get_pipeline(source.pipeline)
    target = find_node(source, node)
    spec = pipeline.node(target.name)
    if field is None:
        return target, None
    if getattr(spec, "artifact", False) and field == "output" and from_text:
        from_text = False  # an artifact's output is text, not JSON
    return target, parse_override(spec, target, field, value, from_text=from_text)


def preview_fork(
    source: Run,
    node: str,
    field: str | None = None,
    value: Any = None,
    *,
    from_text: bool = True,
    live: bool = False,
) -> dict[str, Any]:
    """The dirty set of a fork that has not been made: what would run live, at what cost."""
    target, override = validate_fork(source, node, field, value, from_text=from_text)
    return dirty.preview(source, target, override, live=live)


def create_fork(
    source: Run,
    node: str,
    field: str | None = None,
    value: Any = None,
    *,
    from_text: bool = True,
    live: bool = False,
) -> Run:
    """Fork ``source`` at ``node`` with at most one override; nothing is written on error.

    Steps before the fork point are copied as ``inherited``, keeping the ``src_run`` and
    ``src_sequence_id`` of the run that really executed them, so a fork of a fork still
    resolves to real executed state.
    """
    target, override = validate_fork(source, node, field, value, from_text=from_text)
    with transaction.atomic():
        fork = Run.objects.create(
            pipeline=source.pipeline,
            inputs=source.inputs,
            turns=source.turns,
            halt=source.halt,
            provider=source.provider,
            parent=source,
            root_id=source.root_id or source.pk,
            fork_node=target.name,
            fork_sequence_id=target.sequence_id,
            override=override.as_json() if override else None,
            mode=Run.Mode.LIVE if live else Run.Mode.CACHE,
        )
        inherited = source.nodes.filter(sequence_id__lt=target.sequence_id).order_by("sequence_id")
        Node.objects.bulk_create([_inherit(n, fork) for n in inherited])
        edges = source.edges.filter(sequence_id__lt=target.sequence_id)
        Edge.objects.bulk_create(
            Edge(
                run=fork,
                sequence_id=e.sequence_id,
                from_node=e.from_node,
                to_node=e.to_node,
                condition=e.condition,
            )
            for e in edges
        )
    return fork


def _inherit(node: Node, fork: Run) -> Node:
    copy = Node(
        run=fork,
        sequence_id=node.sequence_id,
        name=node.name,
        kind=node.kind,
        status=node.status,
        inputs=node.inputs,
        output=node.output,
        output_sha256=node.output_sha256,
        prompt=node.prompt,
        model_requested=node.model_requested,
        model_answered=node.model_answered,
        temperature=node.temperature,
        cache_source=Node.CacheSource.INHERITED,
        cache_key=node.cache_key,
        cache_entries=node.cache_entries,
        src_run_id=node.src_run_id,
        src_sequence_id=node.src_sequence_id,
    )
    return copy  # tokens, cost and latency stay 0: this run paid nothing for the step


def execute_run(run_id: int, *, on_step: Callable[[Node], None] | None = None) -> Run:
    """Execute a queued run to the end; returns it finished (completed or failed).

    Claims the run atomically (queued → running), so a run is never executed twice.
    """
    claimed = Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    run = Run.objects.get(pk=run_id)
    if not claimed:
        raise RewindError(f"run {run_id} is {run.status}, not queued; it was not started again")
    heartbeat = Heartbeat(run_id)
    heartbeat.start()
    try:
        ctx = _context(run)
        ctx.on_step = on_step
        recorder = StepRecorder(ctx, DjangoPersister())
        hook = AsyncStepRecorder(recorder) if ctx.pipeline.is_async else recorder
        app = _application(run, ctx, hook)
        if isinstance(hook, AsyncStepRecorder):
            hook.app = app
        start = start_turn(run, list(run.nodes.order_by("sequence_id")), app)
        if ctx.pipeline.is_async:
            async_to_sync(adrive)(app, run, ctx, recorder, start)
        else:
            drive(app, run, ctx, recorder, start)
    except Exception as exc:  # noqa: BLE001 — every failure ends the run as failed, loudly
        if not isinstance(exc, RewindError):
            logger.exception("run %s failed unexpectedly", run_id)
        heartbeat.stop()
        finish_run(run, Run.Status.FAILED, error=_run_error(run, exc))
    else:
        heartbeat.stop()
        finish_run(run, Run.Status.COMPLETED, artifact=ctx.artifact)
    run.refresh_from_db()
    return run


class Heartbeat:
    """Writes ``Run.heartbeat_at`` every lease/3 seconds while a run executes, even in the
    middle of a long provider call. A running run whose heartbeat is older than the lease
    belongs to a dead worker (``mark_interrupted_runs``) — a lease, not a guess."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.interval = max(0.5, settings.REWIND_RUN_LEASE_SECONDS / 3)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)

    def _beat(self) -> None:
        try:
            while not self._stopped.wait(self.interval):
                Run.objects.filter(pk=self.run_id, status=Run.Status.RUNNING).update(
                    heartbeat_at=timezone.now()
                )
        finally:
            connection.close()  # this thread's own connection


def mark_interrupted_runs() -> list[int]:
    """Mark every running run whose worker stopped beating as ``interrupted``; never leave a
    run ``running`` forever. Its completed steps stay: it can be resumed or forked."""
    lease = settings.REWIND_RUN_LEASE_SECONDS
    stale = Run.objects.filter(
        status=Run.Status.RUNNING, heartbeat_at__lt=timezone.now() - timedelta(seconds=lease)
    )
    ids = list(stale.values_list("pk", flat=True))
    if ids:
        Run.objects.filter(pk__in=ids, status=Run.Status.RUNNING).update(
            status=Run.Status.INTERRUPTED,
            finished_at=timezone.now(),
            error=f"the worker stopped (no heartbeat for over {lease} s); completed steps are "
            "kept: resume or fork the run",
        )
        logger.warning("marked runs %s interrupted: no heartbeat for %s s", ids, lease)
    return ids


def resume_run(run: Run) -> Run:
    """Queue an interrupted run again; it continues after its last completed step."""
    if run.status != Run.Status.INTERRUPTED:
        raise RewindError(f"run {run.pk} is {run.status}; only an interrupted run can be resumed")
    Run.objects.filter(pk=run.pk, status=Run.Status.INTERRUPTED).update(
        status=Run.Status.QUEUED, error="", finished_at=None
    )
    run.refresh_from_db()
    return run


def _run_error(run: Run, exc: BaseException) -> str:
    failed = run.nodes.filter(status=Node.Status.FAILED).order_by("-sequence_id").first()
    message = failure_message(exc)
    return f"{failed.name}: {message}" if failed else message


def finish_run(
    run: Run, status: str, *, error: str = "", artifact: tuple[str, str] | None = None
) -> None:
    hashes = list(run.nodes.order_by("sequence_id").values_list("output_sha256", flat=True))
    fields: dict[str, Any] = {"status": status, "error": error, "finished_at": timezone.now()}
    if status == Run.Status.COMPLETED:
        fields["trajectory_sha256"] = trajectory_sha256(hashes)
        if artifact is not None:
            fields["artifact_path"], fields["artifact_sha256"] = artifact
    Run.objects.filter(pk=run.pk).update(**fields)


def _context(run: Run) -> RunContext:
    start = run.fork_sequence_id if run.fork_sequence_id is not None else 0
    return make_context(
        run_id=run.pk,
        pipeline=get_pipeline(run.pipeline),
        provider=run.provider,
        overrides=effective_overrides(run),
        live=run.mode == Run.Mode.LIVE,
        prior=run.nodes.order_by("sequence_id"),
        pins=source_pins(run.parent, start),
        source=run.parent,
        start=start,
    )


def _application(run: Run, ctx: RunContext, hook: StepRecorder | AsyncStepRecorder):
    return build_application(
        ctx,
        app_id=str(run.pk),
        inputs=run.inputs,
        # The last step already recorded: inherited, or executed by this run before its
        # worker died (a resumed run continues after it).
        predecessor=run.nodes.order_by("-sequence_id").first(),
        hooks=[hook],
    )


def create_replay(source: Run, *, live: bool = False) -> Run:
    """A queued replay that should reproduce ``source`` exactly.

    A root run is replayed from its first step with no override. A fork is replayed from its
    own fork point carrying its own override, so the replay re-executes what the fork
    executed, under the same one change.
    """
    first = (
        source.nodes.exclude(cache_source=Node.CacheSource.INHERITED)
        .order_by("sequence_id")
        .first()
    )
    if first is None:
        raise ForkError(f"run {source.pk} executed no step; there is nothing to replay")
    override = Override.from_json(source.override)
    if override is None:
        return create_fork(source, str(first.sequence_id), live=live)
    return create_fork(
        source, str(first.sequence_id), override.field, override.value, from_text=False, live=live
    )


def replay_verdict(source: Run, replay: Run) -> dict[str, Any]:
    """``identical`` only if every hash, the artifact and the trajectory match at 0 tokens."""
    from runs.engine.diff import diff_runs  # diff reads files; import where it is needed

    executed = list(replay.nodes.exclude(cache_source=Node.CacheSource.INHERITED))
    tokens = sum(n.total_tokens for n in executed)
    # A code step always re-executes: it is live without costing or calling anything.
    live = [
        n.name
        for n in executed
        if n.cache_source == Node.CacheSource.LIVE and n.kind != Node.Kind.CODE
    ]
    result = {
        "run": source.pk,
        "replay": replay.pk,
        "verdict": "failed",
        "first_divergence": None,
        "nodes": len(executed),
        "total_tokens": tokens,
        "live_nodes": live,
        "trajectory_equal": bool(source.trajectory_sha256)
        and source.trajectory_sha256 == replay.trajectory_sha256,
        "artifact_equal": source.artifact_sha256 == replay.artifact_sha256,
        "error": replay.error or None,
        "nondeterministic": [],
    }
    if replay.status != Run.Status.COMPLETED:
        return result
    diff = diff_runs(source, replay)
    result["first_divergence"] = diff["first_divergence"]
    result["nondeterministic"] = diff["nondeterministic"]
    identical = result["trajectory_equal"] and result["artifact_equal"] and tokens == 0 and not live
    result["verdict"] = "identical" if identical else "diverged"
    return result


def change_preview(source: Run, target: Node) -> dict[str, Any]:
    """The dirty set of changing any input of ``target`` (not its output): which steps would
    re-execute live and the projected tokens — what the fork editor shows before a fork."""
    return dirty.change_preview(source, target)
