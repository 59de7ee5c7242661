"""Field-level diff of two runs (DESIGN.md, "Diff" and the ``rewind_diff --json`` contract).

A fork is only useful if its diff says *exactly* what changed. So the diff works on leaves,
not on blobs: both outputs are flattened to ``path → value`` and compared leaf by leaf, and
the two trajectories are aligned by node name and occurrence before anything is compared, so
a graph that loops or branches differently in the fork does not shift every later step out of
line.

Equality here is the same equality the output hashes use: canonical JSON. Two leaves are
equal when their canonical JSON is equal, which means the JSON *type* matters — ``1`` and
``1.0`` differ, and ``True`` and ``1`` differ — exactly as they do in ``output_sha256``.
If the diff were looser than the hash, a step could be flagged as divergent (hash differs)
while the diff shows no changed field, which would make the verdict look like a lie.

This module is pure engine code: it reads ``Run``/``Node`` rows and files, never views or
requests, so the dashboard, the admin and ``rewind_diff`` all share one implementation.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import TYPE_CHECKING, Any

from runs.engine.artifacts import artifact_file
from runs.engine.hashing import canonical_json, sha256_bytes

if TYPE_CHECKING:
    from runs.models import Node, Run

__all__ = [
    "ROOT_LABEL",
    "align",
    "diff_runs",
    "diff_values",
    "flatten",
    "format_diff",
    "unified_artifact_diff",
]

#: How the root path ``""`` (a scalar output, or an empty container at the root) is shown
#: to people. The data keeps ``""`` so that prefixes compose without a special case.
ROOT_LABEL = "(value)"

# A dict key that can be written bare in a dotted path. Anything else (a key containing
# ``.``, ``[``, spaces, an empty key…) is written as ``["key"]`` so that two distinct
# leaves can never render to the same path (``{"a.b": 1}`` vs ``{"a": {"b": 1}}``).
_BARE_KEY = re.compile(r"^[A-Za-z0-9_\-]+$")

# Values longer than this are shortened in the human-readable text (never in JSON).
_MAX_VALUE_CHARS = 80


# --------------------------------------------------------------------------- flatten


def _key_path(prefix: str, key: Any) -> str:
    key = str(key)
    if _BARE_KEY.match(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}[{json.dumps(key, ensure_ascii=False)}]"


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Map every leaf of ``value`` to its path, in the order the leaves appear.

    Paths: dict keys joined with ``.`` (``groups.A.cost_per_conversion``), list items as
    ``[i]`` (``sections[2]``, ``a.b[2].c``); a key that is not a plain identifier is quoted
    as ``["odd key"]`` so that paths stay unambiguous. A scalar at the root has path ``""``
    (shown as ``(value)`` by :func:`format_diff`).

    Empty dicts and lists are leaves in their own right: without that, ``{}`` → ``[]`` or
    ``{"tags": []}`` → ``{}`` would flatten to the same (empty) set of leaves and the change
    would be invisible even though the output hash differs.
    """
    out: dict[str, Any] = {}
    _flatten_into(value, prefix, out)
    return out


def _flatten_into(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten_into(item, _key_path(prefix, key), out)
    elif isinstance(value, list | tuple) and value:
        for index, item in enumerate(value):
            _flatten_into(item, f"{prefix}[{index}]", out)
    else:
        out[prefix] = value


# --------------------------------------------------------------------------- values


def _canonical(value: Any) -> str:
    """Canonical JSON of a leaf, tolerating values JSON cannot encode.

    Outputs come from a ``JSONField`` so they are JSON already; the fallback only keeps the
    diff from crashing on a hand-built value (and still separates types by name).
    """
    try:
        return canonical_json(value)
    except (TypeError, ValueError):
        return f"<{type(value).__name__}>{value!r}"


def _diff_flat(flat_a: dict[str, Any], flat_b: dict[str, Any]) -> list[dict[str, Any]]:
    """The changes between two flattened values: a's paths in order, then b's new ones."""
    changes: list[dict[str, Any]] = []
    for path, a in flat_a.items():
        if path not in flat_b:
            changes.append({"path": path, "change": "removed", "a": a, "b": None})
        elif _canonical(a) != _canonical(flat_b[path]):
            changes.append({"path": path, "change": "changed", "a": a, "b": flat_b[path]})
    for path, b in flat_b.items():
        if path not in flat_a:
            changes.append({"path": path, "change": "added", "a": None, "b": b})
    return changes


def diff_values(a: Any, b: Any) -> list[dict[str, Any]]:
    """Leaf-level changes from ``a`` to ``b``: ``[{"path", "change", "a", "b"}]``.

    ``change`` is ``"changed"``, ``"added"`` (``a`` is None) or ``"removed"`` (``b`` is
    None). Equal leaves are omitted. The order is stable — a's leaves in the order they
    appear, then b's new leaves in theirs — so the same two values always print the same
    diff, and dict key order alone never produces a change (paths are matched by name).

    Leaves are equal when their canonical JSON is equal (so ``1 != 1.0``, ``True != 1``),
    the same rule as the output hash. A leaf that becomes a container shows up as the old
    leaf removed and the new leaves added (``x`` removed, ``x.y`` added).
    """
    return _diff_flat(flatten(a), flatten(b))


# --------------------------------------------------------------------------- alignment


def _occurrence_keys(names: list[str]) -> list[tuple[str, int]]:
    """``["a", "b", "a"]`` → ``[("a", 0), ("b", 0), ("a", 1)]``."""
    seen: dict[str, int] = {}
    keys: list[tuple[str, int]] = []
    for name in names:
        k = seen.get(name, 0)
        keys.append((name, k))
        seen[name] = k + 1
    return keys


def align(names_a: list[str], names_b: list[str]) -> list[tuple[int | None, int | None]]:
    """Pair the steps of two trajectories: ``[(index_in_a | None, index_in_b | None)]``.

    A step is identified by node name and occurrence (DESIGN.md, Pipelines): the k-th run of
    node X in A pairs with the k-th run of X in B, so a loop that iterates once more in the
    fork yields one unmatched step instead of shifting every later step. The result follows
    A's order; a step only B has is inserted just before the first matched pair that comes
    after it in B (or at the end), i.e. where it appears. Two linear runs of the same
    pipeline therefore align index to index.
    """
    keys_b = _occurrence_keys(names_b)
    index_b = {key: j for j, key in enumerate(keys_b)}
    matched_b: set[int] = set()
    partner: list[int | None] = []
    for key in _occurrence_keys(names_a):
        j = index_b.get(key)
        partner.append(j)
        if j is not None:
            matched_b.add(j)
    unmatched_b = [j for j in range(len(names_b)) if j not in matched_b]

    pairs: list[tuple[int | None, int | None]] = []
    next_unmatched = 0
    for i, j in enumerate(partner):
        if j is not None:
            while next_unmatched < len(unmatched_b) and unmatched_b[next_unmatched] < j:
                pairs.append((None, unmatched_b[next_unmatched]))
                next_unmatched += 1
        pairs.append((i, j))
    pairs.extend((None, j) for j in unmatched_b[next_unmatched:])
    return pairs


# --------------------------------------------------------------------------- artifacts


def unified_artifact_diff(text_a: str, text_b: str, label_a: str, label_b: str) -> str:
    """A unified text diff of two artifacts, or ``""`` when they are identical.

    A missing final newline is marked the way ``diff``/``git`` mark it, so two artifacts that
    differ only there still produce a visible diff (the hashes differ, the text must show why).
    """
    if text_a == text_b:
        return ""
    lines = difflib.unified_diff(
        text_a.splitlines(keepends=True),
        text_b.splitlines(keepends=True),
        fromfile=label_a,
        tofile=label_b,
    )
    parts: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            parts.append(line)
        else:
            parts.append(line + "\n\\ No newline at end of file\n")
    return "".join(parts)


def _read_artifact(run: Run) -> tuple[str, str | None]:
    """``(text, sha256 of the bytes)``; ``("", None)`` when there is no file.

    Decoding replaces undecodable bytes rather than failing: the diff is for reading, and the
    hash (taken over the raw bytes) still decides whether the artifacts differ.
    """
    path = artifact_file(run)
    if path is None:
        return "", None
    data = path.read_bytes()
    return data.decode("utf-8", errors="replace"), sha256_bytes(data)


# --------------------------------------------------------------------------- runs


def _same(node_a: Node | None, node_b: Node | None) -> bool:
    """Whether two aligned steps produced the same output.

    Decided by ``output_sha256``. A step with no hash (a failed step) only equals another
    hashless step whose output is canonically equal, so two different failures are not
    reported as "same".
    """
    if node_a is None or node_b is None:
        return False
    if node_a.output_sha256 != node_b.output_sha256:
        return False
    return bool(node_a.output_sha256) or _canonical(node_a.output) == _canonical(node_b.output)


def diff_runs(run_a: Run, run_b: Run) -> dict[str, Any]:
    """Compare two runs; the result is the ``rewind_diff --json`` object plus extras.

    Contract keys: ``a``, ``b`` (run ids), ``first_divergence`` (``{"node", "sequence_id",
    "fields": [{"path", "a", "b"}]}`` or None), ``nodes`` (``[{"name", "a_sha256",
    "b_sha256", "same"}]`` in aligned order), ``artifact`` (``{"a_sha256", "b_sha256",
    "differs"}``). Extras for the dashboard: ``changes`` (every aligned step with its full
    :func:`diff_values` fields), ``artifact_diff`` (unified text), ``trajectory_equal`` and
    ``tokens`` (``{"a", "b"}`` totals). When A has stability samples, also ``verdicts``: per
    changed leaf, whether B's value is beyond A's noise (:mod:`runs.engine.noise`).

    The first divergence is the first aligned step whose output hash differs or which one
    side lacks; its ``sequence_id`` is B's (the run being inspected, usually the fork),
    falling back to A's when B has no such step.

    Exactly one query per run: each run's nodes are fetched once, ordered by sequence id,
    and everything else (token totals included) is computed from those rows.
    """
    nodes_a: list[Node] = list(run_a.nodes.order_by("sequence_id"))
    nodes_b: list[Node] = list(run_b.nodes.order_by("sequence_id"))

    nodes: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    nondeterministic: list[dict[str, Any]] = []
    first_divergence: dict[str, Any] | None = None
    for i, j in align([n.name for n in nodes_a], [n.name for n in nodes_b]):
        node_a = nodes_a[i] if i is not None else None
        node_b = nodes_b[j] if j is not None else None
        present = node_b if node_b is not None else node_a
        assert present is not None  # align never yields (None, None)
        same = _same(node_a, node_b)
        if not same and _nondeterministic(node_a, node_b):
            nondeterministic.append(
                {
                    "node": present.name,
                    "sequence_id": present.sequence_id,
                    "keys": _changed_keys(node_a.output, node_b.output),
                }
            )
        if same:
            fields: list[dict[str, Any]] = []
        else:
            # A side that lacks the step contributes no leaves: its counterpart's leaves
            # are all "added" (or "removed"), rather than compared against a null output.
            fields = _diff_flat(
                flatten(node_a.output) if node_a is not None else {},
                flatten(node_b.output) if node_b is not None else {},
            )
        nodes.append(
            {
                "name": present.name,
                "a_sha256": node_a.output_sha256 if node_a is not None else None,
                "b_sha256": node_b.output_sha256 if node_b is not None else None,
                "same": same,
            }
        )
        changes.append(
            {
                "name": present.name,
                "sequence_id": present.sequence_id,
                "a_sequence_id": node_a.sequence_id if node_a is not None else None,
                "b_sequence_id": node_b.sequence_id if node_b is not None else None,
                "same": same,
                "fields": fields,
            }
        )
        if not same and first_divergence is None:
            first_divergence = {
                "node": present.name,
                "sequence_id": present.sequence_id,
                "fields": [{"path": f["path"], "a": f["a"], "b": f["b"]} for f in fields],
            }

    text_a, file_sha_a = _read_artifact(run_a)
    text_b, file_sha_b = _read_artifact(run_b)
    # The recorded hash is authoritative; the file's own hash covers a run that has a file
    # but no recorded hash yet.
    artifact_sha_a = run_a.artifact_sha256 or file_sha_a
    artifact_sha_b = run_b.artifact_sha256 or file_sha_b

    result = {
        "a": run_a.pk,
        "b": run_b.pk,
        "first_divergence": first_divergence,
        "nodes": nodes,
        "artifact": {
            "a_sha256": artifact_sha_a,
            "b_sha256": artifact_sha_b,
            "differs": artifact_sha_a != artifact_sha_b,
        },
        "changes": changes,
        "artifact_diff": unified_artifact_diff(
            text_a,
            text_b,
            # Labels name runs, never server paths.
            f"run {run_a.pk}" + ("" if run_a.artifact_sha256 else " (no artifact)"),
            f"run {run_b.pk}" + ("" if run_b.artifact_sha256 else " (no artifact)"),
        ),
        "trajectory_equal": bool(run_a.trajectory_sha256)
        and run_a.trajectory_sha256 == run_b.trajectory_sha256,
        "nondeterministic": nondeterministic,
        "tokens": {
            "a": sum(n.total_tokens for n in nodes_a),
            "b": sum(n.total_tokens for n in nodes_b),
        },
    }
    if run_a.sample_count:
        # Only a sampled run knows its noise; one more query, for its samples' steps.
        from runs.engine.noise import verdicts

        result["verdicts"] = [v.as_json() for v in verdicts(run_a, nodes_a, nodes_b, changes)]
    return result


def _nondeterministic(node_a: Node | None, node_b: Node | None) -> bool:
    """Same step, same recorded inputs, every call it made answered from the cache (or no
    call at all), and yet different writes: the step's own code is not deterministic (a
    clock, randomness, set order) — named as such, never blamed on the model."""
    if node_a is None or node_b is None or node_a.name != node_b.name:
        return False
    if node_b.cache_source in {"override", "inherited"} or node_b.status != "completed":
        return False
    if _canonical(node_a.inputs) != _canonical(node_b.inputs):
        return False
    calls = node_b.calls or []
    if any(call.get("cache_source") == "live" for call in calls):
        return False
    return node_b.kind == "code" or node_b.cache_source != "live"


def _changed_keys(a: Any, b: Any) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(k for k in {*a, *b} if _canonical(a.get(k)) != _canonical(b.get(k)))
    return ["output"]


# --------------------------------------------------------------------------- text


def _show(value: Any) -> str:
    """A leaf as JSON (so ``"1"`` and ``1`` look different), shortened for a terminal."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    if len(text) > _MAX_VALUE_CHARS:
        text = text[: _MAX_VALUE_CHARS - 1] + "…"
    return text


def _short_sha(sha: str | None, width: int, ellipsis: str = "") -> str:
    return sha[:width] + ellipsis if sha else "—"


def format_diff(result: dict[str, Any]) -> str:
    """Human-readable text of a :func:`diff_runs` result, for ``rewind_diff`` without --json.

    The first divergence comes first with its changed leaves as ``path  old → new`` (an added
    or removed leaf shows ``(absent)`` on the missing side), then a per-node table, then the
    artifact verdict. Only the contract keys are required; the extras refine the output when
    present (``changes`` tells added/removed apart from a null value).
    """
    lines: list[str] = [f"diff run {result['a']} → run {result['b']}"]
    nodes = result["nodes"]
    divergence = result["first_divergence"]

    if divergence is None:
        lines.append(f"no divergence: {len(nodes)}/{len(nodes)} nodes identical")
    else:
        lines.append(f"first divergence: {divergence['node']} (step {divergence['sequence_id']})")
        kinds = _change_kinds(result)
        fields = divergence["fields"]
        width = max((len(f["path"] or ROOT_LABEL) for f in fields), default=0)
        for field in fields:
            kind = kinds.get(field["path"], "changed")
            old = "(absent)" if kind == "added" else _show(field["a"])
            new = "(absent)" if kind == "removed" else _show(field["b"])
            lines.append(f"  {(field['path'] or ROOT_LABEL).ljust(width)}  {old} → {new}")
        if not fields:
            lines.append("  (output hashes differ; no field-level change)")
        identical = sum(1 for n in nodes if n["same"])
        lines.append(f"{identical}/{len(nodes)} nodes identical")

    lines.append("")
    name_width = max([len("node"), *(len(n["name"]) for n in nodes)])
    lines.append(f"{'node'.ljust(name_width)}  {'a':<12}  b")
    for node in nodes:
        lines.append(
            f"{node['name'].ljust(name_width)}  "
            f"{_short_sha(node['a_sha256'], 12):<12}  "
            f"{_short_sha(node['b_sha256'], 12):<12}  "
            f"{'same' if node['same'] else 'DIFFERENT'}"
        )

    artifact = result["artifact"]
    lines.append("")
    lines.append(
        f"artifact  {_short_sha(artifact['a_sha256'], 8, '…')} → "
        f"{_short_sha(artifact['b_sha256'], 8, '…')}  "
        f"differs: {'true' if artifact['differs'] else 'false'}"
    )
    if "trajectory_equal" in result:
        verdict = "identical" if result["trajectory_equal"] else "different"
        lines.append(f"trajectory hash {verdict}")
    if "tokens" in result:
        lines.append(f"tokens  a={result['tokens']['a']}  b={result['tokens']['b']}")
    return "\n".join(lines) + "\n"


def _change_kinds(result: dict[str, Any]) -> dict[str, str]:
    """``path → change`` for the divergent step, from the ``changes`` extra when present.

    The divergent step is by definition the first step in ``changes`` that is not the same.
    """
    for change in result.get("changes", ()):
        if not change["same"]:
            return {f["path"]: f["change"] for f in change["fields"]}
    return {}
