"""The state after a step, and what the step changed in it, for the inspector (Burr's own UI
shows both; a step's output alone hides what it read and what else stood in state).

Burr's persister rows hold each step's state (``BurrState``, one row per step of the run that
executed it): a step's row is looked up under the run and step that really executed it
(``src_run``/``src_sequence_id``: an inherited step's row is its executor's), and the step
before it likewise — one query for both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from runs.engine.analysis.diff import diff_values
from runs.engine.execution.persister import PARTITION_KEY
from runs.models import BurrState, Node

SHOWN = 200  # changed leaves listed; the whole state is one click away


@dataclass
class StepState:
    state: dict[str, Any] | None  # None: no row (a step that failed before writing one)
    changes: list[dict[str, Any]] = field(default_factory=list)  # from the step before
    first: bool = False  # no step before: every key is shown as it stands
    more: int = 0  # changed leaves not listed


def _semantic(text: str) -> dict[str, Any]:
    """The stored snapshot without Burr's own keys (``__SEQUENCE_ID``, ``__PRIOR_STEP``)."""
    value = json.loads(text)
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if not str(k).startswith("__")}


def step_state(node: Node, previous: Node | None) -> StepState:
    wanted = [(str(node.src_run_id), node.src_sequence_id)]
    if previous is not None:
        wanted.append((str(previous.src_run_id), previous.src_sequence_id))
    match = Q()
    for app_id, sequence_id in wanted:
        match |= Q(app_id=app_id, sequence_id=sequence_id)
    rows = {
        (row.app_id, row.sequence_id): row.state
        for row in BurrState.objects.filter(match, partition_key=PARTITION_KEY)
    }
    after = rows.get(wanted[0])
    if after is None:
        return StepState(state=None)
    state = _semantic(after)
    if previous is None or wanted[1] not in rows:
        return StepState(state=state, first=True)
    changes = _changes(_semantic(rows[wanted[1]]), state)
    return StepState(state=state, changes=changes[:SHOWN], more=max(0, len(changes) - SHOWN))


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Key by key, as Burr's UI shows a delta: a key added or removed is one line with its
    value; a key whose value changed lists the leaves that changed inside it."""
    changes: list[dict[str, Any]] = []
    for key in [*after, *(k for k in before if k not in after)]:
        if key not in before:
            changes.append({"path": key, "change": "added", "a": None, "b": after[key]})
        elif key not in after:
            changes.append({"path": key, "change": "removed", "a": before[key], "b": None})
        else:
            for leaf in diff_values(before[key], after[key]):
                inner = leaf["path"]
                path = (
                    key if not inner else f"{key}{inner}" if inner[0] == "[" else f"{key}.{inner}"
                )
                changes.append({**leaf, "path": path})
    return changes
