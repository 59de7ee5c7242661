"""Generated code must load (issue 16, item 5): the literals an exported test file is written
with are Python that evaluates back to the values, hostile ones included — NaN and the
infinities (the mean of an empty list), a lone surrogate, quotes, non-ASCII text."""

from __future__ import annotations

import math

import pytest

from runs.engine.analysis.export import _changed_literal, _expected_literal, inline

HOSTILE = [
    float("nan"),
    float("inf"),
    float("-inf"),
    -0.0,
    1e308,
    'it\'s "quoted"\n\ttabbed \\ back',
    "naïve — ünïcode ✓ \u2028 line separator",
    "\ud800 a lone surrogate",
    {"nested": [float("nan"), {"deeper": float("-inf")}], "ok": 1},
    [None, True, False, 0, "", []],
]


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_an_inline_literal_evaluates_back_to_its_value(value):
    source = inline(value)
    compile(source, "<export>", "eval")
    got = eval(source, {"__builtins__": {"float": float}})  # noqa: S307 — our own output
    assert _same(got, value)


def test_the_changed_fields_and_the_expectations_load_with_nan_in_them():
    changed = [{"node": "analyse", "fields": [{"path": "mean", "a": float("nan"), "b": 1.5}]}]
    expected = {7: {"trajectory_sha256": "ab", "artifact_sha256": None, "steps": [(0, "a", "f")]}}
    namespace: dict = {}
    exec(  # noqa: S102 — our own output
        f"CHANGED = {_changed_literal(changed)}\nEXPECTED = {_expected_literal(expected)}",
        {"__builtins__": {"float": float}},
        namespace,
    )
    assert math.isnan(namespace["CHANGED"][0]["fields"][0]["a"])
    assert namespace["EXPECTED"][7]["steps"] == [(0, "a", "f")]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b and type(a) is type(b)
