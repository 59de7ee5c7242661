"""The run object of the command-line and HTTP contract (DESIGN.md, Command line).

``rewind_run --json``, ``rewind_fork --json`` and ``GET /api/runs/<run>`` all print this, so
tools that read one read all three.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from runs.engine.analysis.outcomes.values import evaluate
from runs.engine.apps.registry import get_pipeline
from runs.engine.calls.pricing import total_cost
from runs.engine.errors import PipelineError
from runs.engine.forking.overrides import current_fields, states_after
from runs.models import Node, Run


def fork_json(run: Run) -> dict[str, Any] | None:
    if run.parent_id is None:
        return None
    override = run.override or {}
    return {
        "node": run.fork_node,
        "field": override.get("field"),
        "value": override.get("value"),
    }


def node_json(node: Node, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": node.name,
        "sequence_id": node.sequence_id,
        "kind": node.kind,
        "status": node.status,
        "cache_source": node.cache_source,
        "output_sha256": node.output_sha256,
        "total_tokens": node.total_tokens,
        "src_run": node.src_run_id,
        "fields": fields,
        # Which code ran (a hash of the action's source) and whether it differs from the
        # source step's this one re-executed; the lines whose clock or random reads a replay
        # could not give back (each {"line", "what", "thread", "reads"}).
        "code_version": node.code_version or None,
        "code_changed": node.code_changed,
        "not_replayed": (node.values_read or {}).get("not_replayed", []),
    }


def run_json(run: Run, nodes: list[Node] | None = None) -> dict[str, Any]:
    """One object per run (``rewind_run``/``rewind_fork``/``rewind_show --json``, ``GET
    /api/runs/<run>``). ``nodes`` may be passed when the caller already fetched them."""
    if nodes is None:
        nodes = list(run.nodes.order_by("sequence_id"))
    try:
        pipeline = get_pipeline(run.pipeline)
    except PipelineError:
        pipeline = None  # a run of a pipeline no longer registered still reads back
    specs = {spec.name: spec for spec in pipeline.nodes} if pipeline is not None else {}
    # The states the steps whose route depends on keys they do not read left: one query.
    states = states_after(n for n in nodes if getattr(specs.get(n.name), "route_reads", ()))
    node_objects = []
    for node in nodes:
        spec = specs.get(node.name)
        fields = current_fields(spec, node, states) if spec is not None else {}
        node_objects.append(node_json(node, fields))
    executed = [n for n in nodes if n.cache_source != Node.CacheSource.INHERITED]
    cost = total_cost(n.cost_usd for n in executed)  # None: a step's model has no price
    return {
        "run": run.pk,
        "status": run.status,
        "pipeline": run.pipeline,
        "parent": run.parent_id,
        "fork": fork_json(run),
        "nodes": node_objects,
        "artifact": {"path": run.artifact_path or None, "sha256": run.artifact_sha256 or None},
        # What the run concluded: {name, value, pass} each (pass null: no check), plus path,
        # check, missing and why (runs.engine.analysis.outcomes).
        "outcomes": [value.as_json() for value in evaluate(run, nodes)],
        # Where an imported run was read from ({path, project, app_id}; null: Rewind made or
        # recorded it) and its children: its direct forks and the sub-applications it spawned
        # (an imported Burr app's MapStates children), oldest first.
        "imported_from": run.imported_from,
        "children": list(
            Run.objects.filter(Q(parent=run) | Q(spawned_by=run))
            .order_by("created_at", "id")
            .values_list("pk", flat=True)
        ),
        "spawned_by": (
            {"run": run.spawned_by_id, "sequence_id": run.spawned_sequence_id}
            if run.spawned_by_id
            else None
        ),
        "totals": {
            "total_tokens": sum(n.total_tokens for n in executed),
            "cost_usd": None if cost is None else float(cost),  # null = unknown, never 0
            # Steps that went to a provider or recomputed a tool; a code step re-executes
            # every time and calls nothing, so it is not counted.
            "live_nodes": sum(
                1
                for n in executed
                if n.cache_source == Node.CacheSource.LIVE and n.kind != Node.Kind.CODE
            ),
        },
        # Beyond the contract's fields, for people and the dashboard:
        "root": run.root_id,
        "mode": run.mode,
        "error": run.error or None,
        "trajectory_sha256": run.trajectory_sha256 or None,
        "model": run.provider.get("model"),
        "temperature": run.provider.get("temperature"),
        "simulator": bool(run.provider.get("simulator")),
        "allow_network": run.allow_network,
        # What the capture could not see (a connection outside it): the replay is not hermetic.
        "warnings": list(run.warnings),
    }
