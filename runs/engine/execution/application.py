"""Building the Burr application that executes a run — or previews a fork — from its pipeline.

One path for both: ``execute_run`` records every step (``StepRecorder``); a fork preview
(``runs.engine.forking.preview``) walks the same actions over the same cache with a hook that records
nothing. What a step reads back is decided here too: ``source_pins`` maps each call the
source run made to the cache entry it used, so a step that makes the same call in a fork
or a replay gets the very same answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from burr.core import ApplicationBuilder
from burr.lifecycle import PreRunStepHook
from django.conf import settings

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.specs import Pipeline
from runs.engine.apps.state import restored_state
from runs.engine.calls.cache import Entry
from runs.engine.calls.policy import LIVE, CallPolicy
from runs.engine.errors import NodeFailure
from runs.engine.execution.actions import NodeAction, RunContext
from runs.engine.execution.persister import PARTITION_KEY, DjangoPersister
from runs.engine.forking.overrides import Override
from runs.engine.providers.config import current_config, identity_of
from runs.models import LLMCacheEntry, Node, ToolCacheEntry


def source_pins(steps: Iterable[Node], start: int) -> dict[tuple[int, str, int], Entry]:
    """(sequence id, key, occurrence) → the cache entry the source's step used for that call,
    for every call its ``steps`` from ``start`` on made (inherited steps carry their
    executor's pins). The entries are loaded here, at most two queries for the whole run, so
    a step that makes the same call reads its answer without one."""
    used = {s.sequence_id: s.cache_entries for s in steps if s.sequence_id >= start}
    wanted: dict[str, set[int]] = {"llm": set(), "tool": set()}
    for entries in used.values():
        for pin in entries or []:
            table, _, pk = str(pin).partition(":")
            if table in wanted and pk.isdigit():
                wanted[table].add(int(pk))
    loaded: dict[str, Entry] = {}
    for table, model in (("llm", LLMCacheEntry), ("tool", ToolCacheEntry)):
        if wanted[table]:
            found = model.objects.filter(pk__in=wanted[table])
            loaded.update((f"{table}:{entry.pk}", entry) for entry in found)
    return {
        (seq, entry.key, entry.occurrence): entry
        for seq, entries in used.items()
        for pin in entries or []
        if (entry := loaded.get(pin)) is not None
    }


def make_context(
    *,
    run_id: int,
    pipeline: Pipeline,
    provider: dict[str, Any],
    overrides: dict[int, dict[str, Override]],
    prior: Iterable[Node],
    pins: dict[tuple[int, str, int], Entry],
    policy: CallPolicy | None = None,
    live: bool = False,
    source_steps: list[Node] | None = None,
    start: int = 0,
    own_calls: bool = False,
) -> RunContext:
    """``policy``: how the run answers its calls (``CallPolicy.of_run``, a preview's);
    ``live=True`` is the recorded program's shorthand for the live policy. ``prior`` are the
    steps already recorded before execution starts (inherited, or done before a worker died),
    in order; ``source_steps`` the steps of the run forked, in order. ``own_calls``: a
    recorded program, whose own clients make its calls: Rewind's provider settings play no
    part, and none is read (no query: the program's thread may be an event loop's)."""
    if live:
        if policy is not None:
            raise TypeError("make_context takes a policy or live=True, not both")
        policy = LIVE
    elif policy is None:
        raise TypeError("make_context takes the run's call policy")
    prior = list(prior)
    source_steps = source_steps or []
    # The endpoint (base URL, key) is the one configured now; model and temperature are the
    # run's own, inherited by forks — so a fork needs no configured model.
    # Read only when the run names no model (or when a step calls out: ``ctx.provider``).
    model, configured = provider.get("model"), current_config
    if not model and not own_calls:
        config = current_config()
        # A Burr app's calls name their own model; only declared llm nodes need one here.
        model = config.model if isinstance(pipeline, BurrApp) else config.require_model()
        configured = lambda: config  # noqa: E731 — read once: the same config throughout
    return RunContext(
        run_id=run_id,
        pipeline=pipeline,
        overrides=overrides,
        policy=policy,
        model=model,
        temperature=float(provider.get("temperature") or 0.0),
        configured=configured,
        identity=identity_of(provider),
        artifact_dir=Path(settings.REWIND_ARTIFACT_DIR),
        data_dir=Path(settings.REWIND_DATA_DIR),
        occurrences=Counter(n.cache_key for n in prior if n.kind == "llm" and n.cache_key),
        pins=pins,
        previous_node=prior[-1].name if prior else None,
        source_steps={n.sequence_id: n for n in source_steps if n.sequence_id >= start},
        source_inputs=_inputs_by_visit(source_steps),
        visits=Counter(n.name for n in prior),
    )


def _inputs_by_visit(steps: list[Node]) -> dict[tuple[str, int], dict[str, Any]]:
    """The runtime inputs each visit of each action of the source received (Burr app steps
    record them as ``inputs["inputs"]``)."""
    found: dict[tuple[str, int], dict[str, Any]] = {}
    visits: Counter = Counter()
    for node in steps:
        inputs = node.inputs
        if isinstance(inputs, dict) and isinstance(inputs.get("inputs"), dict):
            found[(node.name, visits[node.name])] = inputs["inputs"]
        visits[node.name] += 1
    return found


def build_application(
    ctx: RunContext,
    *,
    app_id: str,
    inputs: dict[str, Any],
    predecessor: Node | None,
    hooks: Iterable[PreRunStepHook],
):
    """The application that continues after ``predecessor`` (a step already recorded), or
    starts from ``inputs`` when there is none."""
    pipeline = ctx.pipeline
    persister = DjangoPersister()
    inputs = restored_state(inputs)  # a Burr app's initial state is stored as Burr serialises it
    builder = (
        ApplicationBuilder()
        .with_graph(pipeline.build_graph(lambda spec: NodeAction(spec, ctx)))
        .with_hooks(*hooks)
        .with_identifiers(app_id=app_id, partition_key=PARTITION_KEY)
    )
    if predecessor is None:
        # A fresh run, or a fork of the first node: no predecessor row, start from the inputs.
        return builder.with_state(**inputs).with_entrypoint(pipeline.entrypoint).build()
    if str(predecessor.src_run_id) == app_id:
        # Resuming: Burr refuses to "fork" an app into itself, so load our own row directly.
        return (
            builder.with_identifiers(
                app_id=app_id, partition_key=PARTITION_KEY, sequence_id=predecessor.sequence_id
            )
            .initialize_from(
                persister,
                resume_at_next_action=True,
                default_state=dict(inputs),
                default_entrypoint=pipeline.entrypoint,
            )
            .build()
        )
    # Fork from the predecessor's row — passing the fork node's own row would start at the
    # step after it — in the run that really executed the predecessor. Burr silently falls
    # back to the default state when the row is missing, so check it is there.
    row = persister.load(PARTITION_KEY, str(predecessor.src_run_id), predecessor.src_sequence_id)
    if row is None or row["status"] != "completed":
        raise NodeFailure(
            f"cannot fork: no completed state row for step {predecessor.sequence_id} "
            f"of run {predecessor.src_run_id}"
        )
    return builder.initialize_from(
        persister,
        resume_at_next_action=True,
        default_state=dict(inputs),
        default_entrypoint=pipeline.entrypoint,
        fork_from_app_id=str(predecessor.src_run_id),
        fork_from_sequence_id=predecessor.src_sequence_id,
    ).build()
