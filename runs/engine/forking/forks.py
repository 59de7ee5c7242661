"""Forks: a fork request is resolved once — the source, the step, the one override — into a
``Fork``, which the preview and the fork itself both take (DESIGN.md, Forking)."""

from __future__ import annotations

import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import Pipeline
from runs.engine.calls.keys import PROVIDER_IDENTITIES
from runs.engine.errors import ForkError
from runs.engine.forking import preview
from runs.engine.forking.overrides import Override, parse_override
from runs.engine.providers.config import (
    ProviderMismatch,
    check_identity,
    current_config,
    identity_of,
    snapshot_as,
)
from runs.models import Edge, Node, Run
from runs.models.sql import insert


@dataclass(frozen=True)
class Fork:
    """A fork request resolved against its source: everything ``make_fork`` writes."""

    source: Run
    target: Node  # the source's step the fork re-executes from
    override: Override | None  # None: an unchanged replay
    live: bool = False
    allow_network: bool = False  # a replay may reach the network it did not record
    # What answers the fork's llm calls when not the source's ("simulator" | "endpoint"):
    # asked for by name (``--provider``), never taken silently from this process's settings.
    provider: str | None = None
    # The source's app, resolved once (``fork_at``) and read by everything the fork asks after.
    pipeline: Pipeline | BurrApp | None = field(default=None, compare=False, repr=False)
    # A regression run: the app version it re-runs the source with (``Run.regression_code``).
    regression_code: str = ""


_NUMBER = re.compile(r"[0-9]{1,9}")


def find_node(run: Run, node: str) -> Node:
    """A step of ``run`` by name (its first occurrence), ``name#k`` (k-th, from 1) or sequence id."""
    # Names and ids of every step, then the one found in full: a long run's values stay put.
    steps = list(run.nodes.order_by("sequence_id").only("run_id", "sequence_id", "name"))
    name, _, nth = node.partition("#")
    # ASCII digits only, and not more of them than a step count can have: "²".isdigit() is
    # true but int("²") fails, and int() of 4,301 digits raises.
    if _NUMBER.fullmatch(node):
        matches = [n for n in steps if n.sequence_id == int(node)]
    else:
        matches = [n for n in steps if n.name == name]
        if nth:
            index = int(nth) - 1 if _NUMBER.fullmatch(nth) and int(nth) > 0 else len(matches)
            matches = matches[index : index + 1]
    if not matches:
        listing = ", ".join(f"{n.name}({n.sequence_id})" for n in steps) or "none"
        raise ForkError(f"run {run.pk} has no step {node!r}; its steps are {listing}")
    return run.nodes.get(pk=matches[0].pk)


def resolve_fork(
    source: Run,
    node: str,
    field: str | None = None,
    value: Any = None,
    *,
    from_text: bool = True,
    live: bool = False,
    allow_network: bool = False,
    provider: str | None = None,
    check_provider: bool = True,
    pipeline: Pipeline | BurrApp | None = None,
) -> Fork:
    """Everything that can be wrong with a fork, checked once, before anything is written.

    ``node`` is a name, ``name#k`` (its k-th run) or a sequence id. ``from_text`` says
    ``value`` was typed by a person (``--set``, a form) and is read as the field's type;
    otherwise it is already a JSON value (the API). ``pipeline``: the source's app when the
    caller resolved it once for a set of forks (a batch, a grid, a bisect's probes)."""
    check_finished(source)
    target = find_node(source, node)
    if pipeline is None:
        pipeline = get_pipeline(source.pipeline)
    options = {
        "pipeline": pipeline,
        "live": live,
        "allow_network": allow_network,
        "provider": provider,
        "check_provider": check_provider,
    }
    if field is None:
        return fork_at(source, target, None, **options)
    spec = pipeline.node(target.name)
    if getattr(spec, "artifact", False) and field == "output" and from_text:
        from_text = False  # an artifact's output is text, not JSON
    override = parse_override(spec, target, field, value, from_text=from_text)
    return fork_at(source, target, override, **options)


def fork_at(
    source: Run,
    target: Node,
    override: Override | None,
    *,
    pipeline: Pipeline | BurrApp | None = None,
    live: bool = False,
    allow_network: bool = False,
    provider: str | None = None,
    check_provider: bool = True,
) -> Fork:
    """A fork at ``target`` (a step of ``source``) with an override already parsed — by the
    fork editor's form, which parses the one field that changed. ``pipeline``: the source's
    app when the caller has resolved it already. ``check_provider=False`` (a replay) leaves
    the provider check to the worker's first call."""
    check_finished(source)
    # An app this server does not know (an imported run's, another server's) is refused
    # here, before a row is written, not queued to fail in the worker.
    if pipeline is None:
        pipeline = get_pipeline(source.pipeline)
    if provider is not None and provider not in PROVIDER_IDENTITIES:
        raise ForkError(f"--provider is {' or '.join(PROVIDER_IDENTITIES)}, not {provider!r}")
    if provider == identity_of(source.provider):
        provider = None  # what answered the source answers the fork: nothing to switch
    fork = Fork(source, target, override, live, allow_network, provider, pipeline)
    if check_provider:
        refuse_other_provider(fork)
    return fork


def _rewind_answers(pipeline: Pipeline | BurrApp) -> bool:
    """Rewind's provider answers the llm calls of ``pipeline``'s runs: a declared pipeline.
    A Burr app's own client decides where its calls go (each records what answered)."""
    return not isinstance(pipeline, BurrApp)


def provider_switch(source: Run, pipeline: Pipeline | BurrApp) -> str | None:
    """The provider identity this process's configuration would answer ``source``'s forks
    as, when it is not the one that answered ``source`` (a fork must then ask for it by
    name); None when they agree, or when Rewind's provider does not answer them."""
    if not _rewind_answers(pipeline):
        return None
    configured = current_config().identity
    return configured if configured != identity_of(source.provider) else None


def refuse_other_provider(fork: Fork, then: Override | None = None) -> None:
    """A fork whose llm calls would go out where the configured endpoint is the other identity
    than the run's is refused here — the worker checks again before its first call, since its
    configuration is the one that counts. A fork the cache answers whole (an unchanged replay,
    a replay of a recorded fork) calls nobody, and is not refused. ``then``: a second change at
    the same step, made by a fork of ``fork`` (a crossed grid's cell); the walk applies both."""
    if not _rewind_answers(fork.pipeline):
        return
    identity = fork.provider or identity_of(fork.source.provider)
    config = current_config()
    if config.identity == identity:
        return
    if fork.provider is None and not fork.live:
        # Walk the cache the way the fork will: refused only if an llm call would go out.
        walked = preview.preview(
            fork.source, fork.target, fork.override, fork.pipeline, live=False, then=then
        )
        if not any(s["kind"] == "llm" and s["will_be"] == "live" for s in walked["steps"]):
            return
    try:
        check_identity(fork.source.pk, identity, config)
    except ProviderMismatch as exc:
        raise ForkError(str(exc)) from None


def check_finished(source: Run) -> None:
    if not source.is_finished:
        raise ForkError(f"run {source.pk} is still {source.status}; fork it once it has finished")


def preview_fork(fork: Fork) -> dict[str, Any]:
    """The dirty set of a fork that has not been made: what would run live, at what cost."""
    return preview.preview(fork.source, fork.target, fork.override, fork.pipeline, live=fork.live)


def create_fork(source: Run, node: str, field: str | None = None, value: Any = None, **kw) -> Run:
    """``make_fork(resolve_fork(...))``: for callers that hold the request's parts."""
    return make_fork(resolve_fork(source, node, field, value, **kw))


# The forks worth reusing: one that is on its way or done. A failed fork is not (the person
# retries once the provider or the code is fixed), nor an interrupted one (it stopped half way;
# resume it, or fork again) — nor any status added later that is not named here.
REUSABLE = (Run.Status.QUEUED, Run.Status.RUNNING, Run.Status.COMPLETED)
# An unchanged replay is a check: once finished, asking again checks again (a cache entry
# deleted, a node's code changed). Only one still on its way is reused (a double submit).
IN_FLIGHT = (Run.Status.QUEUED, Run.Status.RUNNING)


@dataclass(frozen=True)
class Opened:
    """What ``open_fork`` gives: the run to show, and whether it existed before the request."""

    run: Run
    reused: bool


def is_replay(fork: Fork) -> bool:
    """An unchanged replay: no override, or the very override the source ran under at the
    source's own fork point (a replay of a fork, ``create_replay``)."""
    if fork.override is None:
        return True
    own = Override.from_json(fork.source.override)
    return fork.source.fork_sequence_id == fork.target.sequence_id and fork.override.same_change(
        own
    )


def open_fork(fork: Fork) -> Opened:
    """The run for a fork a person asked for: the one already made, if the same fork exists,
    else a new queued one (``make_fork``). The one rule for the dashboard, the API and
    ``rewind_fork``:

    - the same fork is the same source run, step (sequence id), override (node, field and
      typed value: ``Override.same_change``) and mode;
    - a live fork is never reused: running it again is how jitter is measured;
    - a cache-mode fork is reused while it is queued, running or completed; a failed or
      interrupted one is not (asking again is a retry);
    - an unchanged replay is reused only while it is queued or running (a double submit):
      a finished one is not, since asking for a replay again is asking to check again.

    The source's row is locked for the look-up and the insert, so two identical requests at
    once make one run: on PostgreSQL the second waits for the first to commit and then finds
    its fork (a statement in READ COMMITTED sees what committed before it began); on SQLite
    the IMMEDIATE transaction already serialises writers."""
    if fork.live:
        return Opened(make_fork(fork), reused=False)
    with transaction.atomic():
        list(Run.objects.select_for_update().filter(pk=fork.source.pk).values_list("pk"))
        existing = existing_fork(fork)
        if existing is not None:
            return Opened(existing, reused=True)
        return Opened(make_fork(fork), reused=False)


def existing_fork(fork: Fork) -> Run | None:
    """The run ``open_fork`` would open for ``fork`` instead of making one, or None (a live
    fork never has one). The same provider identity too: a fork the simulator answered
    (``--provider simulator``) is not the same fork as one an endpoint answers."""
    if fork.live:
        return None
    existing = Run.objects.identical_fork(
        fork.source,
        fork.target.sequence_id,
        fork.override.as_json() if fork.override else None,
        Run.Mode.CACHE,
        IN_FLIGHT if is_replay(fork) else REUSABLE,
    )
    wanted = fork.provider or identity_of(fork.source.provider)
    if existing is not None and identity_of(existing.provider) != wanted:
        return None
    return existing


def make_fork(fork: Fork) -> Run:
    """Write the fork's queued run, always a new one (a grid's rows, stability samples and
    batch replays mean to run again; a person's request goes through ``open_fork``); nothing
    is written on error.

    Steps before the fork point are copied as ``inherited``, keeping the ``src_run`` and
    ``src_sequence_id`` of the run that really executed them, so a fork of a fork still
    resolves to real executed state.
    """
    source, target, override = fork.source, fork.target, fork.override
    # One INSERT needs no transaction of its own; with inherited steps, all rows or none.
    with transaction.atomic() if target.sequence_id > 0 else nullcontext():
        # ``insert``: the statement ``Run.objects.create`` sends, compiled once per process.
        run = insert(Run(
            pipeline=source.pipeline,
            inputs=source.inputs,
            turns=source.turns,
            halt=source.halt,
            provider=(
                snapshot_as(source.provider, fork.provider) if fork.provider else source.provider
            ),
            parent=source,
            root_id=source.root_id or source.pk,
            fork_node=target.name,
            fork_sequence_id=target.sequence_id,
            override=override.as_json() if override else None,
            mode=Run.Mode.LIVE if fork.live else Run.Mode.CACHE,
            allow_network=fork.allow_network,
            regression_code=fork.regression_code,
        ))  # fmt: skip
        if target.sequence_id > 0:  # the first step (a root run's replay) inherits nothing
            _inherit(source, run, target.sequence_id)
    return run


def _inherit(source: Run, run: Run, before: int) -> None:
    inherited = (
        source.nodes.filter(sequence_id__lt=before)
        .order_by("sequence_id")
        .defer("inputs", "output", "prompt")
    )
    Node.objects.bulk_create([inherited_copy(n, run) for n in inherited])
    edges = source.edges.filter(sequence_id__lt=before)
    Edge.objects.bulk_create(
        Edge(
            run=run,
            sequence_id=e.sequence_id,
            from_node=e.from_node,
            to_node=e.to_node,
            condition=e.condition,
        )
        for e in edges
    )


def inherited_copy(node: Node, fork: Run) -> Node:
    copy = Node(
        run=fork,
        sequence_id=node.sequence_id,
        name=node.name,
        kind=node.kind,
        status=node.status,
        # The same stored values, by hash: an inherited step adds no blob.
        inputs_blob_id=node.inputs_blob_id,
        output_blob_id=node.output_blob_id,
        output_sha256=node.output_sha256,
        prompt_blob_id=node.prompt_blob_id,
        model_requested=node.model_requested,
        model_answered=node.model_answered,
        temperature=node.temperature,
        cache_source=Node.CacheSource.INHERITED,
        cache_key=node.cache_key,
        cache_entries=node.cache_entries,
        # What its code read and which code it was: a fork's re-execution reads them back.
        code_version=node.code_version,
        code_parts=node.code_parts,
        values_read=node.values_read,
        src_run_id=node.src_run_id,
        src_sequence_id=node.src_sequence_id,
    )
    return copy  # tokens, cost and latency stay 0: this run paid nothing for the step


def change_preview(source: Run, target: Node, pipeline: Pipeline | BurrApp) -> dict[str, Any]:
    """The dirty set of changing any input of ``target`` (not its output): which steps would
    re-execute live and the projected tokens — what the fork editor shows before a fork."""
    return preview.change_preview(source, target, pipeline)
