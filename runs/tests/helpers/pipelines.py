"""Small pipelines for engine tests, registered per test through ``settings.REWIND_PIPELINES``.

``loop``: ask → tick → ask → tick → done. ``ask`` reads only the input ``topic``, so its two
calls in one run are the same request (same cache key): they are told apart by occurrence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from burr.core import expr

from runs.engine.apps.specs import LLMNode, Pipeline, ToolNode, Transition, parse_json_object

LOOP_ROUNDS = 2


def _tick(args: dict[str, Any], data_dir: Path) -> int:
    return int(args["n"]) + 1


def _done(args: dict[str, Any], data_dir: Path) -> str:
    return f"# Loop\n\nrounds: {args['rounds']}\n\n{json.dumps(args['answer'], sort_keys=True)}\n"


ask = LLMNode(
    name="ask",
    reads=("topic",),
    system="You answer one question about a topic.\nJSON keys: answer, points",
    prompt=lambda v: f"Topic: {v['topic']}. What matters most about it, in 3 points?",
    parse=parse_json_object(answer=str, points=list),
)

tick = ToolNode(
    name="tick",
    reads=("tick",),
    args=lambda v: {"n": v.get("tick") or 0},
    run=_tick,
)

done = ToolNode(
    name="done",
    reads=("ask", "tick"),
    args=lambda v: {"answer": v["ask"], "rounds": v["tick"]},
    run=_done,
    artifact=True,
)

loop = Pipeline(
    name="loop",
    description="An llm node called twice with the same request (test pipeline)",
    nodes=(ask, tick, done),
    transitions=(
        Transition("ask", "tick"),
        Transition("tick", "ask", expr(f"tick < {LOOP_ROUNDS}")),
        Transition("tick", "done"),
    ),
    entrypoint="ask",
    inputs={"topic": "tidal energy"},
)
