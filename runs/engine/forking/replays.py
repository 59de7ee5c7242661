"""Replays: an unchanged fork that must reproduce its source, and the verdict that says so."""

from __future__ import annotations

from typing import Any

from runs.engine.errors import ForkError
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.engine.forking.overrides import Override
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
    first = (
        source.nodes.exclude(cache_source=Node.CacheSource.INHERITED)
        .order_by("sequence_id")
        .first()
    )
    if first is None:
        raise ForkError(f"run {source.pk} executed no step; there is nothing to replay")
    override = Override.from_json(source.override)
    # A replay reads what its source read: one whose call would go out is a divergence the
    # replay itself reports (a worker with the other provider refuses that call), not a
    # request to refuse before it runs.
    options = {"live": live, "allow_network": allow_network, "check_provider": False}
    if override is None:
        return resolve_fork(source, str(first.sequence_id), **options)
    return resolve_fork(
        source, str(first.sequence_id), override.field, override.value, from_text=False, **options
    )


def replay_verdict(source: Run, replay: Run) -> dict[str, Any]:
    """``identical`` only if every hash, the artifact and the trajectory match at 0 tokens."""
    from runs.engine.analysis.diff import diff_runs  # diff reads files; import where it is needed

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
