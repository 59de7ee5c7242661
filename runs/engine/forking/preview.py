"""The dirty set of a fork: which steps will re-execute live and which the cache will serve,
before anything runs (DESIGN.md, Forking).

The preview walks the cache the way the fork will: it runs the fork's own actions from the
fork point under the preview's call policy (``calls.policy.PREVIEW``), where a cache hit
yields the cached output — from which the next step's key is computed — and the first real
miss stops the walk. Up to and including that miss the plan is exact. The steps after it
cannot be known without running the miss, so they are *expected*: live when they read what a
changed step wrote, cached otherwise, and labelled as expectations (``exact: false``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from burr.core import State
from burr.core.action import Action
from burr.lifecycle import PostRunStepHook, PreRunStepHook

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.specs import Pipeline
from runs.engine.calls.cache import pinned_pk
from runs.engine.calls.policy import PREVIEW
from runs.engine.execution.actions import RunContext, StepRecord
from runs.engine.execution.application import build_application, make_context, source_pins
from runs.engine.forking.overrides import Override, effective_overrides
from runs.models import LLMCacheEntry, Node, Run

PREVIEW_APP_ID = "preview"  # never a run id: the walk records nothing


@dataclass
class _Walk(PreRunStepHook, PostRunStepHook):
    """Collects what each walked step would do; writes nothing."""

    ctx: RunContext | None = None  # None: nothing is walked (``stopped_at``)
    steps: list[tuple[int, str, StepRecord]] = field(default_factory=list)
    stop: tuple[int, str, str] | None = None  # (sequence id, node, "live" | "fails")

    exact: bool = True  # whether the stop is known (a real miss) or only expected

    @classmethod
    def stopped_at(cls, node: Node, outcome: str = "live", *, exact: bool = True) -> _Walk:
        """No walk: what ``node`` will be (live: a live fork, or a value not known yet)."""
        return cls(stop=(node.sequence_id, node.name, outcome), exact=exact)

    def pre_run_step(self, *, sequence_id: int, **future_kwargs: Any) -> None:
        self.ctx.sequence_id = sequence_id

    def post_run_step(
        self,
        *,
        sequence_id: int,
        action: Action,
        state: State,
        result: dict | None,
        exception: Exception | None,
        **future_kwargs: Any,
    ) -> None:
        if self.ctx is not None and self.ctx.preview_stop is not None:
            self.stop = (sequence_id, action.name, self.ctx.preview_stop)
        elif exception is None and result is not None:
            self.steps.append((sequence_id, action.name, result["telemetry"]))


def preview(
    source: Run,
    target: Node,
    override: Override | None,
    pipeline: Pipeline | BurrApp,
    *,
    live: bool = False,
    then: Override | None = None,
) -> dict[str, Any]:
    """The plan of forking ``source`` (a run of ``pipeline``) at ``target`` with ``override``
    (None: unchanged); ``then``: and forking that fork at the same step with a second field (a
    crossed grid's cell, ``forking.crossing``), which inherits ``override``."""
    steps = list(source.nodes.order_by("sequence_id"))
    overrides = effective_overrides(source, start=target.sequence_id)
    for change in (override, then):
        if change is not None:
            overrides.setdefault(target.sequence_id, {})[change.field] = change
    if live:  # nothing to walk: every call goes out
        walk = _Walk.stopped_at(target)
    elif not isinstance(pipeline, Pipeline):
        # A Burr app's actions are the user's code: a preview never runs them. Every step is
        # an expectation from the keys each action reads and writes.
        walk = _Walk.stopped_at(target, _app_fork_step(pipeline, target, override), exact=False)
    else:
        walk = _walk(pipeline, source, steps, target, overrides)
    return _plan(pipeline, steps, target, walk, overrides, live=live)


def change_preview(source: Run, target: Node, pipeline: Pipeline | BurrApp) -> dict[str, Any]:
    """The plan of changing some input of ``target`` (not its output) to a value not yet
    known — what the fork editor shows before a value is typed: ``target`` goes live and the
    steps after it are expected."""
    steps = list(source.nodes.order_by("sequence_id"))
    overrides = effective_overrides(source, start=target.sequence_id)
    return _plan(pipeline, steps, target, _Walk.stopped_at(target), overrides, live=False)


def _walk(
    pipeline: Pipeline,
    source: Run,
    steps: list[Node],
    target: Node,
    overrides: dict[int, dict[str, Override]],
) -> _Walk:
    prior = [n for n in steps if n.sequence_id < target.sequence_id]
    ctx = make_context(
        run_id=source.pk,
        pipeline=pipeline,
        provider=source.provider,
        overrides=overrides,
        policy=PREVIEW,  # the cache walked, nothing written, the first miss ends the walk
        prior=prior,
        pins=source_pins(steps, target.sequence_id),
    )
    walk = _Walk(ctx)
    app = build_application(
        ctx,
        app_id=PREVIEW_APP_ID,
        inputs=source.inputs,
        predecessor=prior[-1] if prior else None,
        hooks=[walk],
    )
    while walk.stop is None and app.step() is not None:
        pass
    return walk


def _plan(
    pipeline: Pipeline,
    steps: list[Node],
    target: Node,
    walk: _Walk,
    overrides: dict[int, dict[str, Override]],
    *,
    live: bool,
) -> dict[str, Any]:
    by_seq = {n.sequence_id: n for n in steps}
    plan: list[dict[str, Any]] = []
    changed: set[str] = set()  # state keys whose value differs (or may) from the source's
    for seq, name, record in walk.steps:
        before = by_seq.get(seq)
        if before is None or before.name != name or before.output_sha256 != record.output_sha256:
            changed.update(_writes(pipeline.node(name)))
        plan.append(_step(seq, name, record.kind, record.cache_source, 0, exact=True))
    if walk.stop is not None:
        seq, name, outcome = walk.stop
        spec = pipeline.node(name)
        before = by_seq.get(seq)
        tokens = _projected_tokens(before) if outcome == "live" else 0
        kind = before.kind if before else ""
        plan.append(_step(seq, name, kind, outcome, tokens, exact=walk.exact))
        if before is None or outcome != _hit_label(spec, before):
            changed.update(_writes(spec))
        for node in steps:
            if node.sequence_id <= seq:
                continue
            spec = pipeline.node(node.name)
            step_overrides = overrides.get(node.sequence_id, {})
            if "output" in step_overrides and step_overrides["output"].node == node.name:
                source = "override"
            elif live or changed & set(spec.reads):
                source = "live"
            else:
                source = _hit_label(spec, node)
            if source != _hit_label(spec, node):
                changed.update(_writes(spec))
            tokens = _projected_tokens(node) if source == "live" else 0
            plan.append(_step(node.sequence_id, node.name, node.kind, source, tokens, exact=False))
    exact = all(step["exact"] for step in plan)
    return {
        "inherited": [n.name for n in steps if n.sequence_id < target.sequence_id],
        "steps": plan,
        "live": [p["name"] for p in plan if p["will_be"] == "live"],
        "projected_tokens": sum(p["projected_tokens"] for p in plan),
        "exact": exact,
        "first_miss": (
            {"name": walk.stop[1], "sequence_id": walk.stop[0], "outcome": walk.stop[2]}
            if walk.stop is not None
            else None
        ),
    }


def _step(seq: int, name: str, kind: str, will_be: str, tokens: int, *, exact: bool) -> dict:
    return {
        "name": name,
        "sequence_id": seq,
        "kind": kind,
        "will_be": will_be,
        "exact": exact,
        "projected_tokens": tokens,
    }


def _app_fork_step(pipeline: Any, target: Node, override: Override | None) -> str:
    """What the fork step of a Burr app will be: served by its ``writes.*`` override, served
    like before when nothing changes, live when one of its inputs changes."""
    if override is None:
        return _hit_label(pipeline.node(target.name), target)
    return "override" if override.field.startswith("writes.") else "live"


def _writes(spec: Any) -> tuple[str, ...]:
    """The state keys a step writes: a declared node its own name, an action its writes."""
    return tuple(getattr(spec, "writes", None) or (spec.name,))


def _hit_label(spec: Any, node: Node) -> str:
    """What a step whose inputs did not change will be: a code step always re-executes."""
    if node.kind == "llm":
        return "cache"
    if node.kind == "code":
        return "live"
    return "render-cache" if getattr(spec, "artifact", False) else "tool-cache"


def _projected_tokens(before: Node | None) -> int:
    """What a live llm step is expected to cost: what the same step cost when it last ran."""
    if before is None or before.kind != "llm":
        return 0
    if before.total_tokens:
        return before.total_tokens
    usage = (
        LLMCacheEntry.objects.filter(
            pk__in=[pk for pin in before.cache_entries or [] if (pk := pinned_pk(pin, "llm"))]
        )
        .values_list("usage", flat=True)
        .first()
    ) or (
        LLMCacheEntry.objects.filter(key=before.cache_key)
        .order_by("id")
        .values_list("usage", flat=True)
        .first()
    )
    return int((usage or {}).get("total_tokens") or 0)
