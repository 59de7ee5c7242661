"""Burr actions that run a pipeline's nodes with caching, overrides and telemetry.

Telemetry (latency, tokens, cost, cache source) never enters Burr state — rule 1: if it did,
the next prompt would embed a wall-clock number and nothing would ever hit the cache. It
travels in the action's result as ``{"telemetry": StepRecord}`` and ``StepRecorder`` writes it
to the Node row. The fork's override reaches the node through ``RunContext`` — rule 3 — so
an unchanged replay's state is byte-identical to its parent's.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from burr.core import State
from burr.core.action import SingleStepAction

from runs.engine.apps.specs import LLMNode, NodeSpec, Pipeline, ToolNode
from runs.engine.apps.versions import node_parts, step_changes, version_of
from runs.engine.calls import cache
from runs.engine.calls.inflight import call_lock
from runs.engine.calls.keys import llm_cache_key, tool_cache_key
from runs.engine.calls.policy import CallPolicy
from runs.engine.calls.pricing import cost_usd
from runs.engine.errors import NodeFailure, OverrideError, storable_text, unstorable_reason
from runs.engine.execution.artifacts import write_artifact
from runs.engine.execution.fence import Fence
from runs.engine.forking.overrides import Override
from runs.engine.providers.client import (
    ChatClient,
    ChatRequest,
    ProviderError,
    TransportError,
    redact,
)
from runs.engine.providers.config import (
    ProviderConfig,
    ProviderMismatch,
    api_key,
    check_identity,
    make_client,
)
from runs.lib.hashing import content_sha256, semantic_state, sha256_bytes


@dataclass
class StepRecord:
    """Everything a step reports about how it ran; becomes one Node row."""

    kind: str
    inputs: dict[str, Any] = field(default_factory=dict)
    output: Any = None
    output_sha256: str = ""
    prompt: list[dict] | None = None
    model_requested: str = ""
    model_answered: str = ""
    temperature: float | None = None
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: Decimal = Decimal(0)
    cache_source: str = "live"
    cache_key: str = ""
    cache_note: str = ""
    raw_output: str = ""
    cache_entries: list[str] = field(default_factory=list)  # "llm:<id>"/"tool:<id>", in order
    calls: list[dict[str, Any]] = field(default_factory=list)  # HTTP calls a Burr app step made
    code_version: str = ""  # a hash of the action's source (runs.engine.apps.versions)
    code_changed: bool = False  # the source step it re-executed ran other code
    code_parts: dict[str, str] = field(default_factory=dict)  # what code_version is made of
    # What a Burr step's code read from the clock and randomness (capture.values.StepValues).
    values_read: dict[str, Any] = field(default_factory=dict)
    # Never recorded: the credentials the step's calls carried, to redact its error with.
    secrets: set[str] = field(default_factory=set, repr=False)

    def node_fields(self) -> dict[str, Any]:
        return {
            name: getattr(self, name) for name in self.__dataclass_fields__ if name != "secrets"
        }


@dataclass
class RunContext:
    """What a run's actions need besides state. Built per execution, never persisted."""

    run_id: int
    pipeline: Pipeline
    # By sequence id, then field: this run's override and the ancestors' it re-executes.
    overrides: dict[int, dict[str, Override]]
    # How the run answers its calls (``runs.engine.calls.policy``): built once where the run
    # is set up (``CallPolicy.of_run``; a preview's by ``forking.preview``) and handed to each
    # step's capture — the declared nodes, the capture and the guard all read it.
    policy: CallPolicy
    model: str
    temperature: float
    # The endpoint configured now (base URL, key), read on first use (``provider``): a run
    # the cache answers whole never reads it.
    configured: Callable[[], ProviderConfig]
    # What answers this run's declared llm calls ("simulator" | "endpoint"): the run's own,
    # inherited by forks; a call the configured endpoint would answer as the other is refused.
    identity: str
    artifact_dir: Path
    data_dir: Path
    occurrences: Counter = field(default_factory=Counter)
    # (sequence id, key, occurrence) → the LLMCacheEntry the source's step used for that call:
    # a step that makes the same call reads the same answer back (``cache.get_llm``).
    pins: dict[tuple[int, str, int], Any] = field(default_factory=dict)  # → cache entry
    hits: Counter = field(default_factory=Counter)  # pins read from the cache, counted at the end
    secrets: set[str] = field(default_factory=set)  # credentials calls carried: never recorded
    warnings: list[str] = field(default_factory=list)  # what the capture could not see
    # Where a preview (``policy.stops_at_miss``) stopped: "live" (the fork would call out
    # here) or "fails" (the step would fail).
    preview_stop: str | None = None
    current: StepRecord | None = None
    sequence_id: int | None = None  # the step being executed, set by StepRecorder.pre_run_step
    previous_node: str | None = None
    turn: int = 0  # the turn being run (a Burr app runs one turn per halt)
    # sequence id → the source's step from the fork point on (its output deferred: read only
    # by a writes.* override, which edits it).
    source_steps: dict[int, Any] = field(default_factory=dict)
    # (action, k) → the runtime inputs the source's k-th visit of that action received: a
    # fork feeds each step what the same step got, even when its route shifts the turns.
    source_inputs: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    visits: Counter = field(default_factory=Counter)  # visits of each action so far
    artifact: tuple[str, str] | None = None  # (path, sha256) written by the artifact node
    on_step: Callable[[Any], None] | None = None
    # Called before a step calls out (a cache miss, live mode): the steps the recorder holds
    # back are written first, so they show while the call takes its time.
    before_live: Callable[[], None] | None = None
    # Hashes of blobs known to be stored (the source's states and values): a step whose
    # state and values are all among them stores no blob (runs.models.Blob).
    known_blobs: set[str] = field(default_factory=set)
    # Every write a step makes passes it; closed when the run stops waiting for a step (a
    # step timeout, a cancel): the abandoned step then writes nothing.
    fence: Fence = field(default_factory=Fence)
    _client: ChatClient | None = None
    _provider: ProviderConfig | None = None

    @property
    def provider(self) -> ProviderConfig:
        if self._provider is None:
            self._provider = self.configured()
        return self._provider

    def client(self) -> ChatClient:
        # Made on the first cache miss only: a fully cached run never touches the provider.
        if self._client is None:
            try:
                check_identity(self.run_id, self.identity, self.provider)
            except ProviderMismatch as exc:
                raise NodeFailure(str(exc)) from None
            self._client = make_client(self.provider)
        return self._client

    def going_live(self) -> None:
        if self.before_live is not None:
            self.before_live()

    def overrides_for(self, node: str) -> dict[str, Override]:
        """The overrides of the step being executed — of this step only, not of every step
        that runs the same node (a loop revisits a node; only the forked visit changes)."""
        step = self.overrides.get(self.sequence_id, {}) if self.sequence_id is not None else {}
        return {field: o for field, o in step.items() if o.node == node}


class PreviewMiss(Exception):  # noqa: N818 — control flow of a preview, not an error
    """A preview reached a call the cache cannot answer: the fork would go live here."""


class NodeAction(SingleStepAction):
    def __init__(self, spec: NodeSpec, ctx: RunContext) -> None:
        super().__init__()
        self.spec = spec
        self.ctx = ctx

    @property
    def reads(self) -> list[str]:
        return list(self.spec.reads)

    @property
    def writes(self) -> list[str]:
        return [self.spec.name]

    def run_and_update(self, state: State, **run_kwargs: Any) -> tuple[dict, State]:
        semantic = semantic_state(state.get_all())
        view = {key: semantic[key] for key in self.spec.reads if key in semantic}
        record = StepRecord(kind=self.spec.kind)
        self.ctx.current = record
        started = time.perf_counter()
        try:
            if isinstance(self.spec, LLMNode):
                output = run_llm(self.spec, view, self.ctx, record)
            else:
                output = run_tool(self.spec, view, self.ctx, record)
        except (PreviewMiss, NodeFailure) as exc:
            if not self.ctx.policy.stops_at_miss:
                raise
            # A preview stops here without raising: Burr would log the failure as an error.
            self.ctx.preview_stop = "live" if isinstance(exc, PreviewMiss) else "fails"
            return {"telemetry": record}, state.update(**{self.spec.name: None})
        finally:
            record.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        problem = unstorable_reason(output)
        if problem:
            raise NodeFailure(f"the output {problem}", raw=storable_text(repr(output))[:20000])
        record.output = output
        record.output_sha256 = content_sha256(output)
        return {"telemetry": record}, state.update(**{self.spec.name: output})


def run_llm(spec: LLMNode, view: dict, ctx: RunContext, record: StepRecord) -> Any:
    overrides = ctx.overrides_for(spec.name)
    messages = [
        {"role": "system", "content": spec.system},
        {"role": "user", "content": spec.prompt(view)},
    ]
    if "prompt" in overrides:
        messages[1]["content"] = overrides["prompt"].value
    model = overrides["model"].value if "model" in overrides else ctx.model
    temperature = float(
        overrides["temperature"].value if "temperature" in overrides else ctx.temperature
    )
    record.inputs = dict(view)
    record.prompt = messages
    record.model_requested = model
    record.temperature = temperature
    if "output" in overrides:
        record.cache_source = "override"
        return overrides["output"].value

    request = {
        "provider": ctx.identity,
        "model": model,
        "temperature": temperature,
        "messages": messages,
        "response_format": spec.response_format,
        "max_tokens": spec.max_tokens,
        "tool_result": view.get(spec.embeds) if spec.embeds else None,
        "code_version": f"{spec.name}@{spec.version}",
    }
    key = llm_cache_key(request)
    occurrence = ctx.occurrences[key]
    ctx.occurrences[key] += 1
    record.cache_key = key
    pinned = ctx.pins.get((ctx.sequence_id, key, occurrence))
    if not ctx.policy.reads_cache:
        return _call_llm(spec, request, occurrence, ctx, record)
    if ctx.policy.stops_at_miss:
        entry = cache.get_llm(key, occurrence, pinned)  # a preview
        if entry is None:
            raise PreviewMiss(key)
        return _from_entry(spec, entry, record)
    entry = cache.get_llm(key, occurrence, pinned)
    if entry is not None:  # a hit takes no lock
        return _from_entry(spec, entry, record)
    ctx.going_live()
    with call_lock(key):  # identical calls in flight go to the provider once
        entry = cache.get_llm(key, occurrence, pinned)  # stored while we waited?
        if entry is not None:
            return _from_entry(spec, entry, record)
        record.cache_note = cache.explain_llm(spec.name, request)
        return _call_llm(spec, request, occurrence, ctx, record)


def _from_entry(spec: LLMNode, entry: Any, record: StepRecord) -> Any:
    record.cache_source = "cache"
    record.model_answered = entry.model_answered
    record.raw_output = ""
    record.cache_entries.append(f"llm:{entry.pk}")
    return _parse(spec, entry.response.get("content", ""), record)


def _call_llm(
    spec: LLMNode, request: dict, occurrence: int, ctx: RunContext, record: StepRecord
) -> Any:
    ctx.going_live()
    chat = ChatRequest(
        model=request["model"],
        messages=request["messages"],
        temperature=request["temperature"],
        response_format=request["response_format"],
        max_tokens=request["max_tokens"],
    )
    record.cache_source = "live"
    try:
        response = ctx.client().complete(chat)
    except ProviderError as exc:
        # A connection that failed says which endpoint it tried and where that was set.
        origin = (
            f" (the base URL comes from {ctx.provider.origin})"
            if isinstance(exc, TransportError) and ctx.provider.origin
            else ""
        )
        raise NodeFailure(
            redact(f"provider error: {exc}{origin}", api_key()), raw=getattr(exc, "raw", "") or ""
        ) from None
    record.model_answered = response.model
    record.prompt_tokens = response.prompt_tokens
    record.completion_tokens = response.completion_tokens
    record.total_tokens = response.total_tokens
    record.cost_usd = cost_usd(
        response.model or chat.model, response.prompt_tokens, response.completion_tokens
    )
    if response.dropped_response_format:
        note = "provider rejected response_format; retried once without it"
        record.cache_note = f"{record.cache_note}; {note}" if record.cache_note else note
    key = api_key()
    if key and len(key) >= 4 and key in response.content:
        # Whatever echoed it, the key must not reach a row, a cache entry or a page.
        raise NodeFailure(
            "the provider's answer contains the API key; it was not recorded",
            raw=redact(response.content, key),
        )
    output = _parse(spec, response.content, record)  # errors are never cached: parse first
    problem = unstorable_reason(output)
    if problem:
        raise NodeFailure(f"the model output {problem}", raw=storable_text(response.content))
    with ctx.fence.writing():
        entry = cache.put_llm(
            key=record.cache_key,
            occurrence=occurrence,
            node_name=spec.name,
            provider=ctx.identity,
            model_requested=chat.model,
            model_answered=response.model,
            request=request,
            response={"content": response.content},
            usage={
                "prompt_tokens": response.prompt_tokens,
                "completion_tokens": response.completion_tokens,
                "total_tokens": response.total_tokens,
            },
        )
    record.cache_entries.append(f"llm:{entry.pk}")
    return output


def _parse(spec: LLMNode, content: str, record: StepRecord) -> Any:
    try:
        return spec.parse(content)
    except NodeFailure as failure:
        record.raw_output = failure.raw or content
        raise


def run_tool(spec: ToolNode, view: dict, ctx: RunContext, record: StepRecord) -> Any:
    overrides = ctx.overrides_for(spec.name)
    args = dict(spec.args(view))
    for name, override in overrides.items():
        if name.startswith("args."):
            args[name.removeprefix("args.")] = override.value
    # Every file the tool reads is hashed into its key. A file named by an argument is
    # confined to the data directory again here, at the moment it is read.
    files = list(spec.data_files)
    for name, domain in spec.file_args(args).items():
        try:
            domain.resolve(f"args.{name}", args[name], ctx.data_dir)
        except OverrideError as exc:
            raise NodeFailure(str(exc)) from None
        files.append(args[name])
    data = {name: _file_sha256(ctx.data_dir / name) for name in files}
    record.inputs = {"args": args, "data_sha256": data}
    if "output" in overrides:
        record.cache_source = "override"
        output = overrides["output"].value
    else:
        version = _tool_version(spec, ctx)
        key = tool_cache_key(spec.name, version, {"args": args, "data": data})
        record.cache_key = key
        pinned = ctx.pins.get((ctx.sequence_id, key, 0))
        entry = cache.get_tool(key, 0, pinned) if ctx.policy.reads_cache else None
        if entry is not None:
            record.cache_source = "render-cache" if spec.artifact else "tool-cache"
            record.cache_entries.append(f"tool:{entry.pk}")
            output = entry.result
        elif ctx.policy.stops_at_miss:
            raise PreviewMiss(key)
        else:
            if ctx.policy.reads_cache:
                record.cache_note = cache.explain_tool(spec.name, version, args)
            ctx.going_live()
            output = _compute(spec, args, ctx)
            with ctx.fence.writing():
                stored = cache.put_tool(
                    key=key, tool=spec.name, tool_version=version, args=args, result=output
                )
            record.cache_entries.append(f"tool:{stored.pk}")
    if spec.artifact and ctx.policy.writes:
        with ctx.fence.writing():
            ctx.artifact = write_artifact(ctx.artifact_dir, ctx.run_id, output)
    return output


def _tool_version(spec: ToolNode, ctx: RunContext) -> str:
    """What a tool's answers are keyed by: its declared ``version`` — and, in a regression run
    whose tool's source differs from the recorded step's, that source's hash too, so the new
    code executes instead of the cache answering with the old code's result (and its results
    are kept apart from the old code's for every other run)."""
    if not ctx.policy.rekeys_changed_tools:
        return spec.version
    source = ctx.source_steps.get(ctx.sequence_id)
    parts = node_parts(spec)
    current = version_of(parts)
    if source is None or not step_changes(
        source.code_version, getattr(source, "code_parts", None), current, parts
    ):  # a step recorded before parts were kept: by its source hash
        return spec.version
    return f"{spec.version}+{current[:16]}"


def _compute(spec: ToolNode, args: dict, ctx: RunContext) -> Any:
    try:
        return spec.run(args, ctx.data_dir)
    except NodeFailure:
        raise
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise NodeFailure(f"tool {spec.name} failed: {exc}") from exc


def _file_sha256(path: Path) -> str:
    try:
        return sha256_bytes(path.read_bytes())
    except OSError as exc:
        raise NodeFailure(f"cannot read data file {path.name}: {exc.strerror}") from None
