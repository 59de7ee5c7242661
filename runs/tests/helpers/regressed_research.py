"""The demo ``research`` pipeline with one change in its code — for regression replays whose
truth the test plants (``engine/analysis/test_regression_batches.py``). Registered under the
same name (``REWIND_PIPELINES``), it is "the code as it is now": the ``analyse`` tool's function
differs from the recorded one (``verify`` and ``publish``, changed with it, no longer check the winner),
and what ``analyse`` returns differs per region:

- ``west``: ``best_group`` "Z", which fails the outcome's ``one_of(A, B, C)``;
- ``north``: east's best group;
- ``south``: east's best group the first time only (``CALLS`` counts), its own after: jitter;
- ``east``, ``all``: unchanged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from runs.engine.errors import NodeFailure
from runs.pipelines import analysis, research

CALLS: Counter = Counter()


def _analyse_v2(args: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    csv = data_dir / args["dataset"]
    region = args["region"]
    result = analysis.analyse(
        csv, region=region, min_contacts=args["min_contacts"], cost_scale=args["cost_scale"]
    )
    CALLS[region] += 1
    if region == "west":
        result["best_group"] = "Z"
    elif region == "north" or (region == "south" and CALLS[region] == 1):
        east = analysis.analyse(csv, region="east", min_contacts=args["min_contacts"])
        result["best_group"] = east["best_group"]
    return result


def _verify_v2(args: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    """The verifier, changed with it: the winner is no longer checked (everything else is)."""
    result = analysis.verify_analysis(data_dir / args["dataset"], args["reported"])
    result["mismatches"] = [m for m in result["mismatches"] if m["metric"] != "best_group"]
    result["ok"] = not result["mismatches"]
    if not result["ok"]:
        raise NodeFailure(f"the analysis does not match: {result['mismatches'][0]}")
    return result


def _publish_v2(args: dict[str, Any], data_dir: Path) -> str:
    """The report, changed with them: a winner the dataset lacks gets a one-line report."""
    try:
        return research._publish(args, data_dir)
    except KeyError as missing:
        return f"# {args['compose']['title']}\n\nNo such group: {missing}.\n"


CHANGED = {"analyse": _analyse_v2, "verify": _verify_v2, "publish": _publish_v2}

pipeline = replace(
    research.pipeline,
    nodes=tuple(
        replace(node, run=CHANGED[node.name]) if node.name in CHANGED else node
        for node in research.pipeline.nodes
    ),
)
