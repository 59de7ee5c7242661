"""What the inspector shows of a step: the calls it made with their stored request and answer
(``step_calls``), and the state after it with what the step changed in it (Burr's own UI shows
both; a step's output alone hides what it read and what else stood in state). Every value is
shown masked (``runs.pages.masking``): what looks like a secret is stored exactly, never shown.

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
from runs.engine.apps.versions import step_changes
from runs.engine.execution.persister import PARTITION_KEY
from runs.models import BurrState, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.pages.masking import masked, masked_answer, masked_json

SHOWN = 200  # changed leaves listed; the whole state is one click away


@dataclass
class StepState:
    """The state after a step, as shown (masked), and what changed in it."""

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
        return StepState(state=masked(state), first=True)
    # What changed is found in the values as stored; only what is shown of them is masked.
    changes = _changes(_semantic(rows[wanted[1]]), state)
    return StepState(
        state=masked(state),
        changes=[_masked_change(c) for c in changes[:SHOWN]],
        more=max(0, len(changes) - SHOWN),
    )


def _masked_change(change: dict[str, Any]) -> dict[str, Any]:
    return {
        **change,
        "path": masked(change["path"]),
        "a": masked(change["a"]),
        "b": masked(change["b"]),
    }


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


CALL_BODY_SHOWN = 20_000  # characters of a request or answer shown in the inspector


@dataclass
class CallRow:
    """One HTTP call a step made, as the inspector lists it (``Node.calls`` + its entry)."""

    call: dict[str, Any]  # masked where it quotes content: its endpoint and error
    request: str = ""  # what the key was taken over, pretty JSON, masked
    answer: str = ""  # the answer as stored (a stream: its events), masked
    cut: bool = False

    @property
    def uncaptured(self) -> bool:
        return self.call.get("kind") == "uncaptured"


def _shown(text: str) -> tuple[str, bool]:
    return (text[:CALL_BODY_SHOWN], True) if len(text) > CALL_BODY_SHOWN else (text, False)


def tokens_counted(node: Node) -> bool:
    """Whether some of the step's tokens were counted by Rewind, not reported by the provider
    (a call whose answer said no usage: an OpenAI stream without ``include_usage``)."""
    return any(
        isinstance(c, dict) and c.get("tokens_counted") and c.get("cache_source") == "live"
        for c in node.calls or []
    )


def step_calls(node: Node) -> list[CallRow]:
    """The calls of ``node`` with their stored request and answer: at most two queries (the
    LLM and the tool entries they used), none for a step that made no call."""
    calls = [c for c in node.calls or [] if isinstance(c, dict)]
    wanted: dict[str, list[int]] = {"llm": [], "tool": []}
    for call in calls:
        table, _, pk = str(call.get("entry", "")).partition(":")
        if table in wanted and pk.isdigit():
            wanted[table].append(int(pk))
    entries: dict[str, Any] = {}
    if wanted["llm"]:
        entries.update(
            (f"llm:{e.pk}", e) for e in LLMCacheEntry.objects.filter(pk__in=wanted["llm"])
        )
    if wanted["tool"]:
        entries.update(
            (f"tool:{e.pk}", e) for e in ToolCacheEntry.objects.filter(pk__in=wanted["tool"])
        )
    rows = []
    for call in calls:
        entry = entries.get(str(call.get("entry", "")))
        shown = {k: masked(call[k]) for k in ("endpoint", "error") if isinstance(call.get(k), str)}
        row = CallRow({**call, **shown})
        if entry is not None:
            stored = entry.response if isinstance(entry, LLMCacheEntry) else entry.result
            row.request = masked_json(
                entry.request if isinstance(entry, LLMCacheEntry) else entry.args
            )
            text = stored.get("text") if isinstance(stored, dict) else None
            # Masked whole, then cut: a secret cut in half is no longer recognised.
            answer = (
                masked_answer(text) if text is not None else "(binary answer, stored as base64)"
            )
            row.answer, row.cut = _shown(answer)
        rows.append(row)
    return rows


@dataclass
class ReadLine:
    """A line of the step's code that read the clock or randomness: what it read, how often."""

    line: str
    what: str
    thread: str
    reads: int


@dataclass
class ValuesRead:
    """What the inspector says of a step's clock and random reads (``Node.values_read``)."""

    lines: list[ReadLine] = field(default_factory=list)  # every line that read, in key order
    not_replayed: list[ReadLine] = field(default_factory=list)  # the clock continued, others live

    @property
    def reads(self) -> int:
        return sum(line.reads for line in self.lines)


# What each kind of read is, as the inspector names it.
READ_NAMES = {
    "clock": "the clock",
    "random": "random",
    "bits": "random",
    "seed": "a Random() seeded",
    "urandom": "os.urandom / secrets / uuid4",
    "uuid1": "uuid1",
}


def step_values(node: Node) -> ValuesRead:
    """The lines of ``node``'s code that read the clock or randomness, and those its replay
    could not give the recorded value (no query: the step's own column)."""
    data = node.values_read if isinstance(node.values_read, dict) else {}
    lines = []
    for key, values in (data.get("reads") or {}).items():
        thread, _, rest = str(key).partition("|")
        what, _, line = rest.partition("|")
        lines.append(ReadLine(line, READ_NAMES.get(what, what), thread, len(values or [])))
    missed = [
        ReadLine(
            str(m.get("line", "")),
            READ_NAMES.get(str(m.get("what", "")), str(m.get("what", ""))),
            str(m.get("thread", "")),
            int(m.get("reads", 0)),
        )
        for m in data.get("not_replayed") or []
        if isinstance(m, dict)
    ]
    return ValuesRead(lines=lines, not_replayed=missed)


def code_reasons(run: Run, node: Node) -> list[str]:
    """Why a step that ``code_changed`` ran other code than the step it re-executed (its source
    run's at the same sequence id): ``versions.step_changes``. One query, only then."""
    if not node.code_changed or run.parent_id is None:
        return []
    source = (
        Node.objects.filter(run_id=run.parent_id, sequence_id=node.sequence_id, name=node.name)
        .values_list("code_version", "code_parts")
        .first()
    )
    if source is None:
        return ["the code changed"]
    why = step_changes(source[0], source[1], node.code_version, node.code_parts)
    return why or ["the code changed"]
