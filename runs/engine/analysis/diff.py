"""Field-level diff of two runs (DESIGN.md, "Diff" and the ``rewind_diff --json`` contract).

A fork is only useful if its diff says *exactly* what changed. So the diff works on leaves,
not on blobs: both outputs are compared leaf by leaf, each leaf named by its path, and the
two trajectories are aligned by node name and occurrence before anything is compared, so a
graph that loops or branches differently in the fork does not shift every later step out of
line. Leaves under a subtree that is the same on both sides are never looked at one by one:
the work grows with what differs, not with the size of the output.

Equality here is the same equality the output hashes use: canonical JSON. Two leaves are
equal when their canonical JSON is equal, which means the JSON *type* matters — ``1`` and
``1.0`` differ, and ``True`` and ``1`` differ — exactly as they do in ``output_sha256``.
If the diff were looser than the hash, a step could be flagged as divergent (hash differs)
while the diff shows no changed field, which would make the verdict look like a lie. So a
subtree is skipped only when it is equal that strictly, not merely ``==`` in Python.

Leaves and their paths are ``runs.engine.analysis.leaves`` (the noise verdicts use them too).
This module is pure engine code: it reads ``Run``/``Node`` rows and files, never views or
requests, so the dashboard, the admin and ``rewind_diff`` all share one implementation.
"""

from __future__ import annotations

import difflib
import json
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from itertools import chain, compress, count, repeat
from math import copysign
from operator import and_, eq, is_, not_
from typing import TYPE_CHECKING, Any

from runs.engine.analysis.leaves import ROOT_LABEL, flatten, key_path
from runs.engine.apps.versions import step_changes
from runs.engine.execution.artifacts import artifact_file
from runs.lib.hashing import canonical_json, sha256_bytes

if TYPE_CHECKING:
    from runs.engine.analysis.noise import Referee
    from runs.models import Node, Run

__all__ = [
    "ROOT_LABEL",
    "RunDiff",
    "align",
    "diff_runs",
    "diff_values",
    "flatten",
    "format_diff",
    "unified_artifact_diff",
]

# Values longer than this are shortened in the human-readable text (never in JSON).
_MAX_VALUE_CHARS = 80


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
    """The changes between two flattened values: a's paths in order, then b's new ones.

    The reference semantics of :func:`diff_values`, which gets the same result without
    flattening what is equal; still used as is for a dict with a key that is not a string.
    """
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

    The result is exactly ``_diff_flat(flatten(a), flatten(b))`` (for JSON values: dict keys
    are strings), but the Python work is linear in what differs: a subtree that is the same
    on both sides is found so by C loops (see "the walk" below) and skipped whole, without
    building a path or a canonical string for any of its leaves.
    """
    changed: list[dict[str, Any]] = []
    added: list[dict[str, Any]] = []
    try:
        _walk(a, b, "", changed, added)
    except RecursionError:
        # Nested hundreds of levels deep, beyond what the walk's recursion allows: compare
        # leaf by leaf instead, which gives the same result.
        return _diff_flat(flatten(a), flatten(b))
    changed.extend(added)
    return changed


# --------------------------------------------------------------------------- the walk
#
# diff_values walks both values together, one level at a time. At each level the children
# that are *the same* — same paths below, canonically equal leaves — are found by C loops
# (``map``, ``compress``, ``sum``, ``==`` on whole containers), and Python only walks into
# the children that are not. So the Python work is proportional to what differs, plus one
# C pass over what does not.
#
# "The same" is stricter than ``==``, which says ``1 == 1.0 == True`` and ``0.0 == -0.0``
# where canonical JSON (and so the output hash) does not. After ``==`` holds for a pair,
# :func:`_all_strictly` also compares the exact type of every leaf below it and the sign of
# every float zero — batched over all such pairs of a level, then over their children.
# NaN is never ``==`` to itself (unless it is the very same object), so a NaN leaf makes its
# pair "not the same" and the walk compares it canonically, like any other leaf.
#
# Every check may answer "not the same" for values that are (a list against a tuple, keys
# in another order, a type outside JSON): the walk then looks closer and finds nothing, so
# a false "not the same" costs time, never a wrong diff.

_MISSING = object()

#: Types for which ``x == y`` between two values *of this exact type* already means equal
#: canonical JSON. Not float (``0.0 == -0.0``); and no two of them are ``==`` across types
#: except bool and int, which the exact-type check separates.
_PLAIN = frozenset({str, int, bool, type(None)})
#: Types whose ``==`` needs a closer look: containers, and float for the sign of a zero.
_DEEP = frozenset({float, dict, list, tuple})
_KNOWN = _PLAIN | _DEEP
_STR = frozenset({str})
_ZERO_ONE = frozenset({0, 1})


def _same_flags(xs: list[Any], ys: list[Any]) -> list[bool]:
    """For aligned children ``xs[i]``/``ys[i]``: whether each pair is the same, i.e. the
    diff has nothing to report below it. ``ys`` may hold ``_MISSING`` (never the same).

    One C pass of ``==`` and exact-type checks over all pairs, then one batched strict check
    per container kind (and float) among the pairs that passed.
    """
    types = list(map(type, xs))
    try:
        # ``is True``: a type outside JSON whose == answers something else is not the same.
        flags = list(
            map(is_, map(and_, map(is_, types, map(type, ys)), map(eq, xs, ys)), repeat(True))
        )
    except Exception:  # an == outside JSON that raises: leave every pair to the walk
        return [False] * len(xs)
    kinds = set(compress(types, flags))
    if kinds <= _PLAIN:
        return flags
    try:
        for kind in kinds - _PLAIN:
            mask = list(map(and_, flags, map(is_, types, repeat(kind))))
            if kind in _DEEP and _all_strictly(kind, [*compress(xs, mask)], [*compress(ys, mask)]):
                continue
            # Some pair of this kind is not the same after all (a type-only change below
            # it), or the kind is not JSON: decide pair by pair.
            for i in compress(range(len(xs)), mask):
                flags[i] = kind in _DEEP and _all_strictly(kind, [xs[i]], [ys[i]])
    except RecursionError:  # nested too deep to check here: leave every pair to the walk
        return [False] * len(xs)
    return flags


def _all_strictly(kind: type, xs: list[Any], ys: list[Any]) -> bool:
    """Whether every pair ``xs[i] == ys[i]``, all of exact type ``kind`` (a member of
    ``_DEEP``), also has equal canonical JSON below it — all pairs checked together."""
    if not xs:
        return True
    if kind is float:
        return _zero_signs_agree(xs, ys)
    if kind is dict:
        items_x, items_y = list(map(dict.values, xs)), list(map(dict.values, ys))
    elif kind is list or kind is tuple:
        items_x, items_y = xs, ys
    else:
        return False
    xs, ys, items_x, items_y = _not_uniform(xs, ys, items_x, items_y)
    values_x = [*chain.from_iterable(items_x)]
    if not values_x:
        return True  # nothing left, or only empty containers (on both sides: they are ==)
    values_y = [*chain.from_iterable(items_y)]
    types = list(map(type, values_x))
    if types == list(map(type, values_y)):
        kinds = _kinds(types)
        if kind is not dict:
            return _values_strictly(values_x, values_y, types, kinds)
        if len(kinds) == 1 and (kinds <= _PLAIN or (float in kinds and 0.0 not in values_x)):
            # One plain type, or floats none of which is a zero, on both sides: however
            # the keys are ordered, each x value equals its y value and has its type.
            return True
        if [*chain.from_iterable(xs)] == [*chain.from_iterable(ys)]:
            return _values_strictly(values_x, values_y, types, kinds)
    elif kind is not dict:
        return False
    # Keys in another order somewhere: pair y's values with x's by key, dict by dict.
    return _values_strictly(values_x, [*chain.from_iterable(map(_by_keys_of, ys, xs))])


def _by_keys_of(y: dict, x: dict) -> Iterator[Any]:
    return map(y.__getitem__, x)


def _not_uniform(xs: list, ys: list, items_x: list, items_y: list) -> tuple[list, ...]:
    """The pairs of containers left (``xs``, ``ys`` and their values ``items_*``) once those
    holding only plain ints, or only strings, on both sides are set aside.

    Fast paths for the commonest data, in C loops that call nothing per leaf and cost about
    half of comparing ``map(type, …)`` on both sides; which one to try is guessed from the
    first leaf. ``sum`` stays an int only over ints and bools (a float turns it into a
    float; a str, None or a container raises TypeError), and a bool can hide only where a
    value equals 0 or 1 — on either side, as the values are pairwise ``==``. ``str.join``
    takes nothing but strings, and a string is ``==`` to nothing else in JSON.
    """
    first = type(next(iter(items_x[0]), None))
    if first is int:
        try:
            ints = list(
                map(
                    and_,
                    map(
                        and_,
                        map(is_, map(type, map(sum, items_x)), repeat(int)),
                        map(is_, map(type, map(sum, items_y)), repeat(int)),
                    ),
                    map(_ZERO_ONE.isdisjoint, items_x),
                )
            )
        except TypeError:
            return xs, ys, items_x, items_y
        rest = list(map(not_, ints))
        return (
            [*compress(xs, rest)],
            [*compress(ys, rest)],
            [*compress(items_x, rest)],
            [*compress(items_y, rest)],
        )
    if first is str:
        try:
            deque(map("".join, items_x), maxlen=0)  # y's values then are strings too
        except TypeError:
            return xs, ys, items_x, items_y
        return [], [], [], []
    return xs, ys, items_x, items_y


def _zero_signs_agree(xs: list[float], ys: list[float]) -> bool:
    """For pairwise ``==`` floats: whether every zero has the same sign on both sides."""
    index = -1
    for _ in range(16):
        try:
            index = xs.index(0.0, index + 1)
        except ValueError:
            return True
        if copysign(1.0, xs[index]) != copysign(1.0, ys[index]):
            return False
    return _signs(xs) == _signs(ys)  # many zeros: one C pass rather than a Python loop


def _values_strictly(
    xs: list[Any], ys: list[Any], types: list[type] | None = None, kinds: set[type] | None = None
) -> bool:
    """Whether aligned, pairwise ``==`` values of any types are also canonically equal
    (``types``: their exact types, known equal on both sides; ``kinds``: the set of them)."""
    if not xs:
        return True
    if types is None:
        types = list(map(type, xs))
        if types != list(map(type, ys)):
            return False
    if kinds is None:
        kinds = _kinds(types)
    if not kinds <= _KNOWN:
        return False
    for kind in kinds - _PLAIN:
        if len(kinds) == 1:
            if not _all_strictly(kind, xs, ys):
                return False
            continue
        picked = list(map(is_, types, repeat(kind)))
        if not _all_strictly(kind, [*compress(xs, picked)], [*compress(ys, picked)]):
            return False
    return True


def _kinds(types: list[type]) -> set[type]:
    """``set(types)`` of a non-empty list, faster when all are one type (the common case)."""
    first = types[0]
    if types[-1] is first and types.count(first) == len(types):
        return {first}
    return set(types)


def _signs(values: list[float]) -> list[float]:
    return list(map(copysign, repeat(1.0, len(values)), values))


def _shape(value: Any) -> str:
    """``"dict"`` or ``"list"`` for a container with something in it, ``"leaf"`` otherwise
    (an empty container is a leaf, as in :func:`flatten`)."""
    if isinstance(value, dict):
        return "dict" if value else "leaf"
    if isinstance(value, list | tuple):
        return "list" if value else "leaf"
    return "leaf"


def _walk(a: Any, b: Any, prefix: str, changed: list[dict], added: list[dict]) -> None:
    """The changes from ``a`` to ``b`` at ``prefix``: removed and changed leaves appended to
    ``changed`` in a's leaf order, added leaves to ``added`` in b's.

    Walks one level down and, below, only into the children that are not the same.
    """
    shape = _shape(a)
    if shape != _shape(b):
        # A leaf against a container, or a dict against a list: their paths cannot meet.
        _removed(a, prefix, changed)
        _added(b, prefix, added)
    elif shape == "dict":
        _walk_dict(a, b, prefix, changed, added)
    elif shape == "list":
        _walk_list(a, b, prefix, changed, added)
    elif _canonical(a) != _canonical(b):
        changed.append({"path": prefix, "change": "changed", "a": a, "b": b})


def _walk_dict(a: dict, b: dict, prefix: str, changed: list[dict], added: list[dict]) -> None:
    if not (_STR.issuperset(map(type, a)) and _STR.issuperset(map(type, b))):
        # A key that is not a string (not JSON) can print as another key does (1 and "1"):
        # match this subtree by paths, exactly as flatten sees it.
        for change in _diff_flat(flatten(a, prefix), flatten(b, prefix)):
            (added if change["change"] == "added" else changed).append(change)
        return
    values_a = list(a.values())
    values_b = list(map(b.get, a, repeat(_MISSING)))
    differ = map(not_, _same_flags(values_a, values_b))
    missing = 0
    below: dict[str, list[dict]] = {}  # key in both → the leaves added under it
    for key, x, y in compress(zip(a, values_a, values_b, strict=True), differ):
        if y is _MISSING:
            missing += 1
            _removed(x, key_path(prefix, key), changed)
            continue
        under: list[dict] = []
        _walk(x, y, key_path(prefix, key), changed, under)
        if under:
            below[key] = under
    # Added leaves follow b's key order, which need not be a's.
    if len(a) - missing == len(b):
        if len(below) == 1:
            added.extend(*below.values())
        elif below:
            for key in b:
                if key in below:
                    added.extend(below[key])
        return
    for key, y in b.items():
        if key in below:
            added.extend(below[key])
        elif key not in a:
            _added(y, key_path(prefix, key), added)


def _walk_list(a: Sequence, b: Sequence, prefix: str, changed: list[dict], added: list[dict]):
    shared = min(len(a), len(b))
    values_a, values_b = list(a[:shared]), list(b[:shared])
    differ = map(not_, _same_flags(values_a, values_b))
    for index, x, y in compress(zip(count(), values_a, values_b), differ):
        _walk(x, y, f"{prefix}[{index}]", changed, added)
    for index in range(shared, len(a)):
        _removed(a[index], f"{prefix}[{index}]", changed)
    for index in range(shared, len(b)):
        _added(b[index], f"{prefix}[{index}]", added)


def _removed(value: Any, prefix: str, changed: list[dict]) -> None:
    for path, leaf in flatten(value, prefix).items():
        changed.append({"path": path, "change": "removed", "a": leaf, "b": None})


def _added(value: Any, prefix: str, added: list[dict]) -> None:
    for path, leaf in flatten(value, prefix).items():
        added.append({"path": path, "change": "added", "a": None, "b": leaf})


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


@dataclass(frozen=True)
class RunDiff:
    """Two runs compared (:func:`diff_runs`). Its parts are the ``rewind_diff --json`` object's
    (``as_json``): the contract's ``a``, ``b`` (run ids), ``first_divergence`` (``{"node",
    "sequence_id", "fields": [{"path", "a", "b"}]}`` or None), ``nodes`` (``[{"name",
    "a_sha256", "b_sha256", "same"}]`` in aligned order), ``artifact`` (``{"a_sha256",
    "b_sha256", "differs"}``), and ``verdicts`` when A has stability samples (per changed leaf,
    whether B's value is beyond A's noise, uncertain, and ``why``:
    :mod:`runs.engine.analysis.noise`); and the extras
    the dashboard reads: ``changes`` (every aligned step with its full :func:`diff_values`
    fields), ``artifact_diff`` (unified text), ``trajectory_equal``, ``nondeterministic`` (steps
    whose own code gave different writes), ``tokens`` (``{"a", "b"}`` totals) and
    ``code_changed`` (aligned steps whose code version differs: ``{"node", "sequence_id",
    "a", "b", "why"}``, the two versions and ``versions.step_changes``' reasons)."""

    a: int
    b: int
    first_divergence: dict[str, Any] | None
    nodes: list[dict[str, Any]]
    artifact: dict[str, Any]
    changes: list[dict[str, Any]]
    artifact_diff: str
    trajectory_equal: bool
    nondeterministic: list[dict[str, Any]]
    tokens: dict[str, int]
    verdicts: list[dict[str, Any]] | None = None  # None: A has no samples
    code_changed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """No step and no artifact differs, and the trajectory hashes are equal."""
        return (
            self.first_divergence is None and not self.artifact["differs"] and self.trajectory_equal
        )

    def as_json(self) -> dict[str, Any]:
        """The ``rewind_diff --json`` object: every part, ``verdicts`` only when A has samples."""
        result = {part.name: getattr(self, part.name) for part in fields(self)}
        if self.verdicts is None:
            del result["verdicts"]
        return result


def diff_runs(run_a: Run, run_b: Run, referee: Referee | None = None) -> RunDiff:
    """Compare two runs (:class:`RunDiff`).

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
    code_changed: list[dict[str, Any]] = []
    first_divergence: dict[str, Any] | None = None
    for i, j in align([n.name for n in nodes_a], [n.name for n in nodes_b]):
        node_a = nodes_a[i] if i is not None else None
        node_b = nodes_b[j] if j is not None else None
        present = node_b if node_b is not None else node_a
        assert present is not None  # align never yields (None, None)
        same = _same(node_a, node_b)
        if why := _code_changed(node_a, node_b):
            versions = {"a": node_a.code_version, "b": node_b.code_version, "why": why}
            code_changed.append(
                {"node": present.name, "sequence_id": present.sequence_id, **versions}
            )
        if not same and _nondeterministic(node_a, node_b):
            nondeterministic.append(
                {
                    "node": present.name,
                    "sequence_id": present.sequence_id,
                    "keys": _changed_keys(node_a.output, node_b.output),
                    # Lines whose clock or random reads the replay could not give back.
                    "not_replayed": sorted(
                        {m["line"] for m in (node_b.values_read or {}).get("not_replayed", [])}
                    ),
                }
            )
        fields = [] if same else _fields(node_a, node_b)
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

    judged = None
    if run_a.sample_count:
        # Only a sampled run knows its noise; one more query, for its samples' steps.
        from runs.engine.analysis.noise import verdicts

        judged = [v.as_json() for v in verdicts(run_a, nodes_a, nodes_b, changes, referee)]
    return RunDiff(
        a=run_a.pk,
        b=run_b.pk,
        first_divergence=first_divergence,
        nodes=nodes,
        artifact={
            "a_sha256": artifact_sha_a,
            "b_sha256": artifact_sha_b,
            "differs": artifact_sha_a != artifact_sha_b,
        },
        changes=changes,
        artifact_diff=unified_artifact_diff(
            text_a,
            text_b,
            # Labels name runs, never server paths.
            f"run {run_a.pk}" + ("" if run_a.artifact_sha256 else " (no artifact)"),
            f"run {run_b.pk}" + ("" if run_b.artifact_sha256 else " (no artifact)"),
        ),
        trajectory_equal=bool(run_a.trajectory_sha256)
        and run_a.trajectory_sha256 == run_b.trajectory_sha256,
        nondeterministic=nondeterministic,
        tokens={
            "a": sum(n.total_tokens for n in nodes_a),
            "b": sum(n.total_tokens for n in nodes_b),
        },
        verdicts=judged,
        code_changed=code_changed,
    )


def _fields(node_a: Node | None, node_b: Node | None) -> list[dict[str, Any]]:
    """The field changes of two aligned steps that are not the same.

    A side that lacks the step contributes no leaves: its counterpart's leaves are all
    "added" (or "removed"), rather than compared against a null output.
    """
    fields: list[dict[str, Any]] = []
    if node_a is None:
        assert node_b is not None  # align never yields (None, None)
        _added(node_b.output, "", fields)
    elif node_b is None:
        _removed(node_a.output, "", fields)
    else:
        fields = diff_values(node_a.output, node_b.output)
    return fields


def _code_changed(node_a: Node | None, node_b: Node | None) -> list[str]:
    """Why the same step ran two versions of its code (both known); [] when it did not."""
    if node_a is None or node_b is None or node_a.name != node_b.name:
        return []
    a, b = (node_a.code_version, node_a.code_parts), (node_b.code_version, node_b.code_parts)
    return step_changes(*a, *b)


def _nondeterministic(node_a: Node | None, node_b: Node | None) -> bool:
    """Same step, same code, same recorded inputs, every call it made answered from the cache
    (or no call at all), and yet different writes: the step's own code is not deterministic (a
    clock or random read it could not be given back, set order) — named as such, never blamed
    on the model, nor on an edit of its source (``_code_changed``)."""
    if node_a is None or node_b is None or node_a.name != node_b.name:
        return False
    if _code_changed(node_a, node_b):
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
    """The top-level keys whose canonical JSON differs (a missing key reads as null)."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [*{*a, *b}]
        values_a = [a.get(k) for k in keys]
        values_b = [b.get(k) for k in keys]
        differ = map(not_, _same_flags(values_a, values_b))
        return sorted(
            k
            for k, x, y in compress(zip(keys, values_a, values_b, strict=True), differ)
            if _canonical(x) != _canonical(y)
        )
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


def format_diff(result: RunDiff) -> str:
    """Human-readable text of a :func:`diff_runs` result, for ``rewind_diff`` without --json.

    The first divergence comes first with its changed leaves as ``path  old → new`` (an added
    or removed leaf shows ``(absent)`` on the missing side; ``changes`` tells added/removed
    apart from a null value), then a per-node table, then the artifact verdict.
    """
    lines: list[str] = [f"diff run {result.a} → run {result.b}"]
    nodes = result.nodes
    divergence = result.first_divergence

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

    artifact = result.artifact
    lines.append("")
    lines.append(
        f"artifact  {_short_sha(artifact['a_sha256'], 8, '…')} → "
        f"{_short_sha(artifact['b_sha256'], 8, '…')}  "
        f"differs: {'true' if artifact['differs'] else 'false'}"
    )
    verdict = "identical" if result.trajectory_equal else "different"
    lines.append(f"trajectory hash {verdict}")
    lines.append(f"tokens  a={result.tokens['a']}  b={result.tokens['b']}")
    return "\n".join(lines) + "\n"


def _change_kinds(result: RunDiff) -> dict[str, str]:
    """``path → change`` for the divergent step: the first step in ``changes`` that is not
    the same is by definition the divergent one."""
    for change in result.changes:
        if not change["same"]:
            return {f["path"]: f["change"] for f in change["fields"]}
    return {}
