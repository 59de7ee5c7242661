"""Replays: an unchanged fork that must reproduce its source, and the verdict that says so."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import Pipeline
from runs.engine.apps.versions import step_changes
from runs.engine.errors import ForkError
from runs.engine.forking.forks import Fork, check_finished, fork_at, make_fork
from runs.engine.forking.overrides import Override, parse_override
from runs.models import Node, Run


def create_replay(source: Run, *, live: bool = False, allow_network: bool = False) -> Run:
    """A queued replay that should reproduce ``source`` exactly: always a new one (batch
    replays re-check; the dashboard's button goes through ``open_fork(replay_request(...))``)."""
    return make_fork(replay_request(source, live=live, allow_network=allow_network))


def replay_request(source: Run, *, live: bool = False, allow_network: bool = False) -> Fork:
    """The fork that replays ``source``, resolved and not written yet.

    A root run is replayed from its first step with no override. A fork is replayed from its
    own fork point carrying its own override, so the replay re-executes what the fork
    executed, under the same one change.
    """
    check_finished(source)
    override = Override.from_json(source.override)
    executed = source.nodes.exclude(cache_source=Node.CacheSource.INHERITED).order_by("sequence_id")
    # The step found is the fork's target: its name and sequence id are all an unchanged
    # replay needs; an override is checked against the step's values (one query either way).
    first = (executed if override else executed.only("run_id", "sequence_id", "name")).first()
    if first is None:
        raise ForkError(f"run {source.pk} executed no step; there is nothing to replay")
    # A replay reads what its source read: one whose call would go out is a divergence the
    # replay itself reports (a worker with the other provider refuses that call), not a
    # request to refuse before it runs.
    options = {"live": live, "allow_network": allow_network, "check_provider": False}
    if override is None:
        return fork_at(source, first, None, **options)
    spec = get_pipeline(source.pipeline).node(first.name)
    changed = parse_override(spec, first, override.field, override.value, from_text=False)
    return fork_at(source, first, changed, **options)


def regression_request(
    source: Run, code: str, *, pipeline: Pipeline | BurrApp | None = None
) -> Fork:
    """The regression run of ``source`` (a root run), resolved and not written: every step
    re-executed from the first with the app's code at ``code`` (``versions.app_version``), its
    calls answered from the cache where their request is unchanged and by the provider where
    the code changed it (``Run.regression_code``: not hermetic, unlike an unchanged replay).
    ``pipeline``: the source's app as the caller resolved it (once for every source)."""
    check_finished(source)
    if source.parent_id is not None:
        raise ForkError(
            f"run {source.pk} is a fork of run {source.parent_id}: a regression replay re-runs "
            "recorded root runs"
        )
    first = source.nodes.order_by("sequence_id").only("run_id", "sequence_id", "name").first()
    if first is None:
        raise ForkError(f"run {source.pk} executed no step; there is nothing to re-run")
    fork = fork_at(source, first, None, pipeline=pipeline, check_provider=False)
    return replace(fork, regression_code=code)


@dataclass(frozen=True)
class ReplayVerdict:
    """What an unchanged replay of ``run`` proved (``replay_verdict``): ``verdict`` is
    ``identical``, ``diverged``, ``not-hermetic`` or ``failed``; ``as_json()`` is the
    ``rewind_replay --json`` entry, its keys in this order."""

    run: int
    replay: int | None
    verdict: str = "failed"
    first_divergence: dict[str, Any] | None = None
    nodes: int = 0
    total_tokens: int = 0
    live_nodes: list[str] = field(default_factory=list)
    trajectory_equal: bool = False
    artifact_equal: bool = False
    error: str | None = None
    nondeterministic: list[dict[str, Any]] = field(default_factory=list)
    code_changed: list[dict[str, Any]] = field(default_factory=list)
    escaped: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def failed(cls, run: int, replay: int | None, error: str) -> ReplayVerdict:
        """A replay no verdict could be given for (its worker died; it was never made)."""
        return cls(run=run, replay=replay, error=error)

    @property
    def identical(self) -> bool:
        return self.verdict == "identical"

    def as_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def replay_verdict(source: Run, replay: Run) -> ReplayVerdict:
    """``identical`` only if every hash, the artifact and the trajectory match at 0 tokens
    and nothing escaped the capture (``not-hermetic`` when something did: ``escaped``).
    ``code_changed`` names the steps the replay ran with another version of their action's
    source than the source's (``{"node", "sequence_id", "why"}``, why as
    ``versions.step_changes`` says it: "helpers.py changed"): never called non-deterministic.

    One query for both runs' steps (names, hashes, sources, tokens); the diff, which reads
    every value and both artifacts, only when a step's output differs from its source's."""
    steps: dict[int, list[tuple]] = {source.pk: [], replay.pk: []}
    columns = (
        "run_id", "name", "output_sha256", "cache_source", "kind", "total_tokens",
        "sequence_id", "code_version", "code_parts",
    )  # fmt: skip
    rows = Node.objects.filter(run_id__in=steps).order_by("sequence_id").values_list(*columns)
    for run_id, *step in rows:
        steps[run_id].append(step)
    inherited = Node.CacheSource.INHERITED
    executed = [step for step in steps[replay.pk] if step[2] != inherited]
    tokens = sum(step[4] for step in executed)
    # A code step always re-executes: it is live without costing or calling anything.
    live = [
        name
        for name, _, cache_source, kind, *_ in executed
        if cache_source == Node.CacheSource.LIVE and kind != Node.Kind.CODE
    ]
    versions = {(step[0], step[5]): step[6:8] for step in steps[source.pk]}
    code_changed = []
    for name, *_, sequence_id, version, parts in executed:
        was_version, was_parts = versions.get((name, sequence_id)) or ("", {})
        why = step_changes(was_version, was_parts, version, parts)
        if why:
            code_changed.append({"node": name, "sequence_id": sequence_id, "why": why})
    result = ReplayVerdict(
        run=source.pk,
        replay=replay.pk,
        nodes=len(executed),
        total_tokens=tokens,
        live_nodes=live,
        trajectory_equal=bool(source.trajectory_sha256)
        and source.trajectory_sha256 == replay.trajectory_sha256,
        artifact_equal=source.artifact_sha256 == replay.artifact_sha256,
        error=replay.error or None,
        code_changed=code_changed,
        escaped=escaped(replay),
    )
    if replay.status != Run.Status.COMPLETED:
        return result
    same = [(name, sha) for name, sha, *_ in steps[source.pk]] == [
        (name, sha) for name, sha, *_ in steps[replay.pk]
    ] and all(sha for _, sha, *_ in steps[replay.pk])
    if not same:  # what differs, and whether it looks like chance
        from runs.engine.analysis.diff import diff_runs  # diff reads files: only when needed

        diff = diff_runs(source, replay)
        result = replace(
            result,
            first_divergence=diff.first_divergence,
            nondeterministic=diff.nondeterministic,
        )
    identical = result.trajectory_equal and result.artifact_equal and tokens == 0 and not live
    verdict = "identical" if identical else "diverged"
    if result.escaped:  # it reached what it did not record: its sameness proves nothing
        verdict = "not-hermetic"
    return replace(result, verdict=verdict)


def escaped(replay: Run) -> list[dict[str, str]]:
    """What a replay's steps reached outside the capture (possible only with the network
    allowed: otherwise it was refused, and the step failed): step, what, how, from where."""
    if not replay.allow_network:
        return []
    rows = Node.objects.filter(run=replay).exclude(cache_source=Node.CacheSource.INHERITED)
    return [
        {"node": name, "endpoint": call["endpoint"], "line": call.get("line", "")}
        for name, calls in rows.order_by("sequence_id").values_list("name", "calls")
        for call in calls or []
        if call.get("kind") == "uncaptured"
    ]
