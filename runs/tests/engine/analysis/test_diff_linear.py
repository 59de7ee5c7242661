"""The field-level diff stays exact while skipping what is equal (issue 10, part 3).

``diff_values`` walks into a subtree only when it is not the same on both sides. "The same"
must be as strict as the output hash (canonical JSON), not as loose as Python ``==``, which
says ``1 == 1.0 == True`` and ``0.0 == -0.0``: a skipped subtree hiding a type-only change
would leave a step whose hash changed with no field change to show. These tests pin that
strictness (against a plain reference diff written here), and that equal subtrees really
are skipped (by counting the walk's work, never by timing it).
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runs.engine.analysis import diff
from runs.engine.analysis.diff import diff_runs, diff_values
from runs.lib.hashing import content_sha256
from runs.models import Node, Run

# --------------------------------------------------------------------------- the reference

_BARE = re.compile(r"^[A-Za-z0-9_\-]+$")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def reference_flatten(value: Any, prefix: str = "", out: dict | None = None) -> dict[str, Any]:
    """Every leaf by path: ``a.b``, ``a[0]``, ``a["odd key"]``; empty containers are leaves."""
    out = {} if out is None else out
    if isinstance(value, dict) and value:
        for key, item in value.items():
            key = str(key)
            if _BARE.match(key):
                path = f"{prefix}.{key}" if prefix else key
            else:
                path = f"{prefix}[{json.dumps(key, ensure_ascii=False)}]"
            reference_flatten(item, path, out)
    elif isinstance(value, list | tuple) and value:
        for index, item in enumerate(value):
            reference_flatten(item, f"{prefix}[{index}]", out)
    else:
        out[prefix] = value
    return out


def reference_diff(a: Any, b: Any) -> list[dict[str, Any]]:
    """The plain strict diff: flatten everything, compare every leaf's canonical JSON."""
    flat_a, flat_b = reference_flatten(a), reference_flatten(b)
    changes = []
    for path, x in flat_a.items():
        if path not in flat_b:
            changes.append({"path": path, "change": "removed", "a": x, "b": None})
        elif canonical(x) != canonical(flat_b[path]):
            changes.append({"path": path, "change": "changed", "a": x, "b": flat_b[path]})
    for path, y in flat_b.items():
        if path not in flat_a:
            changes.append({"path": path, "change": "added", "a": None, "b": y})
    return changes


def exactly(changes: list[dict[str, Any]]) -> str:
    """A diff as text that tells ``1`` from ``1.0`` and ``True`` and ``-0.0`` from ``0.0``
    (``==`` on the lists would not), and keeps each change's key order (the JSON shape)."""
    return json.dumps(changes, ensure_ascii=False)


def assert_like_reference(a: Any, b: Any) -> None:
    assert exactly(diff_values(a, b)) == exactly(reference_diff(a, b))


def big_state(groups: int) -> dict[str, Any]:
    """Many equal subtrees of every JSON kind: int, float, bool, str, None, lists, nesting."""
    return {
        f"g{g}": {
            "ints": {f"k{k}": g * 100 + k for k in range(20)},
            "small": [k % 3 for k in range(10)],  # 0 and 1 among the ints
            "floats": [g + k / 4 for k in range(10)],  # a 0.0 in g0
            "flags": {"ok": g % 2 == 0, "seen": True},
            "text": {"title": f"group {g}", "tags": ["a", "b", f"t{g}"]},
            "rows": [{"id": r, "score": r / 3, "name": f"r{r}", "none": None} for r in range(3)],
        }
        for g in range(groups)
    }


# --------------------------------------------------------------------------- (a) strictness

# (path into the value, old leaf, new leaf): each change is invisible to Python ``==``.
TYPE_ONLY = [
    (("g7", "ints", "k3"), 703, 703.0),  # int → float in a dict
    (("g7", "ints", "k3"), 703.0, 703),  # float → int in a dict of ints
    (("g7", "small", 1), 1, True),  # int → bool in a list
    (("g7", "small", 0), 0, False),
    (("g0", "floats", 0), 0.0, -0.0),  # the sign of a zero
    (("g7", "flags", "seen"), True, 1),  # bool → int
    (("g7", "flags", "seen"), True, 1.0),  # bool → float
    (("g7", "rows", 2, "id"), 2, 2.0),  # in a list of records
    (("g7", "rows", 0, "score"), 0.0, -0.0),
    (("g7", "floats", 4), 8.0, 8),  # float → int
]


def _set(value: Any, path: tuple, leaf: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = leaf


def _path_text(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


@pytest.mark.parametrize(("path", "old", "new"), TYPE_ONLY)
def test_a_type_only_change_deep_in_an_equal_subtree_is_reported(path, old, new) -> None:
    a = big_state(12)
    b = copy.deepcopy(a)
    assert a == b
    _set(a, path, old)
    _set(b, path, new)
    assert a == b  # Python == cannot see it; canonical JSON (and so the hash) does
    assert content_sha256(a) != content_sha256(b)

    changes = diff_values(a, b)

    assert exactly(changes) == exactly(
        [{"path": _path_text(path), "change": "changed", "a": old, "b": new}]
    )
    assert_like_reference(a, b)


@pytest.mark.parametrize(
    ("a", "b", "path"),
    [
        ({"n": 1}, {"n": 1.0}, "n"),
        ({"n": 1}, {"n": True}, "n"),
        ({"n": 0}, {"n": False}, "n"),
        ({"n": 0.0}, {"n": -0.0}, "n"),
        ([1, 2, 3], [1, 2.0, 3], "[1]"),
        ([0.0, 1.5], [-0.0, 1.5], "[0]"),
        ({"x": [{"y": [[1, 2], [3, 4]]}]}, {"x": [{"y": [[1, 2], [3, 4.0]]}]}, "x[0].y[1][1]"),
        ({"x": {"y": {"z": [True, 2]}}}, {"x": {"y": {"z": [1, 2]}}}, "x.y.z[0]"),
        (1, 1.0, ""),
        (True, 1, ""),
    ],
)
def test_type_only_changes_small(a: Any, b: Any, path: str) -> None:
    changes = diff_values(a, b)
    assert [c["path"] for c in changes] == [path]
    assert changes[0]["change"] == "changed"
    assert_like_reference(a, b)


def test_type_only_change_in_keys_reordered() -> None:
    # The same keys in another order, values swapped between an int and a float: == holds
    # key by key only if the diff pairs values by key, which it must.
    a = {"p": 1, "q": 2.0, "r": "s"}
    b = {"r": "s", "q": 2, "p": 1.0}
    assert a == b
    assert [c["path"] for c in diff_values(a, b)] == ["p", "q"]
    assert_like_reference(a, b)
    many_a = {f"g{g}": dict(a) for g in range(5)}
    many_b = {f"g{g}": dict(a) if g != 3 else dict(b) for g in range(5)}
    assert [c["path"] for c in diff_values(many_a, many_b)] == ["g3.p", "g3.q"]
    # Here the types even line up in each dict's own key order ([int, float] both): only
    # pairing the values by key shows that p went 1 → 1.0 and q 1.0 → 1.
    a = {"p": 1, "q": 1.0}
    b = {"q": 1, "p": 1.0}
    assert [c["path"] for c in diff_values({"g": a, "h": a}, {"g": a, "h": b})] == ["h.p", "h.q"]


def test_the_sign_of_a_zero_among_many_zeros() -> None:
    a = {"g": {"z": [0.0] * 40, "w": {f"k{i}": 0.0 for i in range(40)}}, "h": 1}
    for path in (("g", "z", 33), ("g", "w", "k33")):
        b = copy.deepcopy(a)
        _set(b, path, -0.0)
        b["h"] = 2
        assert [c["path"] for c in diff_values(a, b)] == [_path_text(path), "h"]
        assert_like_reference(a, b)


def test_equal_but_differently_built_values_give_nothing() -> None:
    a = big_state(8)
    b = json.loads(json.dumps(a))  # new objects; -0.0, 1.0, True survive a JSON round trip
    reordered = {k: dict(reversed(list(v.items()))) for k, v in reversed(list(b.items()))}
    assert diff_values(a, b) == []
    assert diff_values(a, reordered) == []
    nan = float("nan")
    assert diff_values({"x": [nan, 1.0]}, {"x": [float("nan"), 1.0]}) == []  # "NaN" both sides


def test_list_against_tuple_and_non_string_keys_match_the_reference() -> None:
    # Outside JSON, but the diff must not change what it reports for them.
    assert_like_reference({"x": [1, [2, 3]]}, {"x": (1, (2, 3))})
    assert_like_reference({"x": (1, 2)}, {"x": (1, 2.0)})
    assert_like_reference({1: "a", "1": "b", "k": 0}, {1: "a", "1": "c", "k": 0})
    assert_like_reference({"d": {2: [1]}}, {"d": {2: [1.0]}})
    # Keys that print alike (1 and "1") or are == but print apart (True and 1): paths, not
    # dict lookups, decide — in a dict the walk reaches.
    assert_like_reference({1: "a", "1": "b", "k": 0}, {"1": "b", 1: "a", "k": 1})
    assert_like_reference({True: "x", "k": 0}, {1: "x", "k": 1})


def test_deeply_nested_values_still_diff() -> None:
    def nested(leaf: Any, depth: int = 600) -> Any:
        value = leaf
        for level in range(depth):
            value = {"a": value, "b": [1, 2]} if level % 2 else [value, {"c": 1.0}]
        return value

    assert diff_values(nested(1), nested(1)) == []
    assert_like_reference(nested(1), nested(1.0))


@pytest.mark.django_db
def test_diff_runs_shows_a_type_only_change_of_a_step() -> None:
    output_a = big_state(10)
    output_b = copy.deepcopy(output_a)
    output_b["g6"]["rows"][1]["id"] = 1.0  # was 1: a new hash, and a field to show for it
    run_a = Run.objects.create(pipeline="research", status=Run.Status.COMPLETED)
    run_b = Run.objects.create(pipeline="research", status=Run.Status.COMPLETED, parent=run_a)
    for run, output in ((run_a, output_a), (run_b, output_b)):
        for sequence_id, (name, out) in enumerate((("load", {"rows": 3}), ("analyse", output))):
            Node.objects.create(
                run=run,
                sequence_id=sequence_id + 1,
                name=name,
                kind=Node.Kind.TOOL,
                status=Node.Status.COMPLETED,
                cache_source=Node.CacheSource.LIVE,
                output=out,
                output_sha256=content_sha256(out),
                src_run=run,
                src_sequence_id=sequence_id + 1,
            )

    result = diff_runs(run_a, run_b)

    assert [n["same"] for n in result.nodes] == [True, False]
    assert result.first_divergence["node"] == "analyse"
    assert exactly(result.first_divergence["fields"]) == exactly(
        [{"path": "g6.rows[1].id", "a": 1, "b": 1.0}]
    )


def test_changed_keys_are_strict_too() -> None:
    a = {"n": 1, "z": {"v": 0.0}, "same": [1, 2], "gone": None}
    b = {"n": 1.0, "z": {"v": -0.0}, "same": [1, 2]}  # a missing key reads as null
    assert diff._changed_keys(a, b) == ["n", "z"]


# --------------------------------------------------------------------------- (b) property

_LEAVES = st.one_of(
    st.sampled_from([0, 1, -1, 2, 0.0, -0.0, 1.0, 2.0, 0.5, True, False, None, "", "a", "1"]),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)
_KEYS = st.sampled_from(["a", "b", "c", "n", "a.b", "", "0", "[0]", "odd key", "é"])
JSON = st.recursive(
    _LEAVES,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(_KEYS, children, max_size=6),
    max_leaves=60,
)
# Values that ``==`` confuses with each other, and so must be told apart by type.
_TWINS: dict[Any, list[Any]] = {0: [0, 0.0, -0.0, False], 1: [1, 1.0, True], 2: [2, 2.0]}


def _mutate(data: st.DataObject, value: Any) -> Any:
    """A copy of ``value`` with a few changes drawn at random: a leaf's type (1 → 1.0 →
    True), a leaf or subtree replaced, keys added, removed or reordered, a list grown or
    shrunk — and mostly nothing, so that big equal subtrees remain to be skipped."""
    choice = data.draw(st.integers(0, 9), label="mutation")
    if choice == 0:
        return data.draw(JSON, label="replacement")
    if isinstance(value, dict):
        items = [(k, _mutate(data, v)) for k, v in value.items()]
        if choice == 1:
            items.reverse()
        if choice == 2 and items:
            items.pop(data.draw(st.integers(0, len(items) - 1)))
        if choice == 3:
            items.append((data.draw(_KEYS), data.draw(JSON)))
        return dict(items)
    if isinstance(value, list):
        items = [_mutate(data, v) for v in value]
        if choice == 2 and items:
            items.pop()
        if choice == 3:
            items.append(data.draw(JSON))
        return items
    if type(value) in (int, float, bool) and not math.isnan(value) and value in _TWINS:
        if choice <= 5:
            return data.draw(st.sampled_from(_TWINS[value]), label="twin")
    return value


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_same_as_the_reference_strict_diff(data: st.DataObject) -> None:
    a = data.draw(JSON, label="a")
    b = _mutate(data, a)
    assert_like_reference(a, b)
    assert_like_reference(b, a)


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    """Wider values than hypothesis draws: many sibling containers, so that the batched
    checks of a level (ints, strings, floats, records) see many pairs at once."""
    kind = rng.random()
    if depth >= 3 or kind < 0.3:
        return rng.choice(
            [0, 1, 2, 7, 0.0, -0.0, 1.0, 2.5, True, False, None, "x", "y", rng.randint(-9, 99)]
        )
    width = rng.randint(0, 12)
    uniform = rng.random() < 0.5  # a container of one leaf type, as real data often is
    leaf = rng.choice([lambda: rng.randint(2, 99), lambda: rng.random() * 10, lambda: "s"])
    make = leaf if uniform else (lambda: _random_json(rng, depth + 1))
    if kind < 0.65:
        return {f"k{i}": make() for i in range(width)}
    return [make() for _ in range(width)]


def _random_twin(rng: random.Random, value: Any) -> Any:
    """``value`` with one leaf somewhere replaced by its ``==`` twin (or left alone)."""
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        return {**value, key: _random_twin(rng, value[key])}
    if isinstance(value, list) and value:
        index = rng.randrange(len(value))
        return [*value[:index], _random_twin(rng, value[index]), *value[index + 1 :]]
    if type(value) is int:
        return (
            rng.choice([float(value), value]) if value not in (0, 1) else rng.choice(_TWINS[value])
        )
    if type(value) is float:
        return (
            -value
            if value == 0
            else rng.choice([value, int(value) if value.is_integer() else value])
        )
    if type(value) is bool:
        return rng.choice([int(value), float(value)])
    return value


def test_seeded_wide_values_same_as_the_reference() -> None:
    rng = random.Random(10)
    for _ in range(1500):
        a = {f"top{i}": _random_json(rng) for i in range(rng.randint(1, 8))}
        b = json.loads(json.dumps(a))  # equal, built anew
        for _ in range(rng.randint(0, 2)):
            b = _random_twin(rng, b)
        assert_like_reference(a, b)
        assert_like_reference(b, a)


# --------------------------------------------------------------------------- (c) work


def _count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Counts calls of ``runs.engine.analysis.diff.<name>`` (recursive calls look the name up again)."""
    calls = [0]
    original = getattr(diff, name, None)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(diff, name, counting, raising=False)
    return calls


@pytest.mark.parametrize("groups", [10, 400])
def test_the_walk_does_not_descend_into_equal_subtrees(monkeypatch, groups: int) -> None:
    a = big_state(groups)
    b = copy.deepcopy(a)
    b["g3"]["rows"][2]["score"] = 99.5  # one leaf, four levels down
    walked = _count_calls(monkeypatch, "_walk")
    paths_built = _count_calls(monkeypatch, "key_path")
    leaves_compared = _count_calls(monkeypatch, "_canonical")

    changes = diff_values(a, b)

    assert [c["path"] for c in changes] == ["g3.rows[2].score"]
    # Exactly the nodes on the way to the change: the root, g3, g3.rows, g3.rows[2] and the
    # leaf itself — whatever the size of what is equal around them.
    assert walked[0] == 5
    assert paths_built[0] == 3  # g3, g3.rows, g3.rows[2].score (list items need none)
    assert leaves_compared[0] == 2  # one canonical string per side, of the one leaf


@pytest.mark.parametrize("groups", [10, 400])
def test_a_type_only_change_costs_a_walk_down_its_own_path_only(monkeypatch, groups) -> None:
    a = big_state(groups)
    b = copy.deepcopy(a)
    b["g5"]["ints"]["k7"] = 507.0  # was 507
    walked = _count_calls(monkeypatch, "_walk")

    assert [c["path"] for c in diff_values(a, b)] == ["g5.ints.k7"]
    assert walked[0] == 4  # root, g5, g5.ints, the leaf


def test_the_strict_check_is_batched_per_level_not_per_subtree(monkeypatch) -> None:
    # Checking types below == is Python work per level and kind of container, not per
    # container: as many calls for 400 equal groups as for 10.
    counts = []
    for groups in (10, 400):
        a = big_state(groups)
        b = copy.deepcopy(a)
        b["g3"]["text"]["title"] = "changed"
        checks = _count_calls(monkeypatch, "_all_strictly")
        assert [c["path"] for c in diff_values(a, b)] == ["g3.text.title"]
        counts.append(checks[0])
        monkeypatch.undo()
    assert 0 < counts[0] == counts[1] < 40
