"""Tests of the field-level diff (runs.engine.analysis.diff; DESIGN.md, "Diff")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runs.engine.analysis.diff import (
    RunDiff,
    align,
    diff_runs,
    diff_values,
    format_diff,
    unified_artifact_diff,
)
from runs.engine.analysis.leaves import flatten
from runs.lib.hashing import content_sha256, sha256_bytes, trajectory_sha256
from runs.models import Node, Run

# --------------------------------------------------------------------------- factories

ANALYSE_A = {"groups": {"A": {"total_cost": 344.75, "conversions": 12}}, "winner": "A"}
ANALYSE_B = {"groups": {"A": {"total_cost": 1034.25, "conversions": 12}}, "winner": "A"}

PIPELINE = [
    ("load", "tool", {"rows": 40, "file": "ads.csv"}),
    ("plan", "llm", {"sections": ["intro", "numbers", "verdict"]}),
    ("analyse", "tool", ANALYSE_A),
    ("write", "llm", {"text": "Group A wins."}),
]


def make_run(**fields: Any) -> Run:
    fields.setdefault("pipeline", "research")
    fields.setdefault("status", Run.Status.COMPLETED)
    return Run.objects.create(**fields)


def make_node(run: Run, sequence_id: int, name: str, output: Any, **fields: Any) -> Node:
    fields.setdefault("kind", Node.Kind.TOOL)
    fields.setdefault("status", Node.Status.COMPLETED)
    fields.setdefault("cache_source", Node.CacheSource.LIVE)
    return Node.objects.create(
        run=run,
        sequence_id=sequence_id,
        name=name,
        output=output,
        output_sha256=content_sha256(output),
        src_run=run,
        src_sequence_id=sequence_id,
        **fields,
    )


def make_pipeline_run(
    steps: list[tuple[str, str, Any]] = PIPELINE, tokens: int = 0, **run_fields: Any
) -> Run:
    """A completed run with one node per step, sequence ids 1.., and its trajectory hash."""
    run = make_run(**run_fields)
    for sequence_id, (name, kind, output) in enumerate(steps, start=1):
        make_node(run, sequence_id, name, output, kind=kind, total_tokens=tokens)
    run.trajectory_sha256 = trajectory_sha256(content_sha256(out) for _, _, out in steps)
    run.save(update_fields=["trajectory_sha256"])
    return run


def with_artifact(run: Run, path: Path, text: str) -> Run:
    path.write_text(text, encoding="utf-8")
    run.artifact_path = str(path)
    run.artifact_sha256 = sha256_bytes(text.encode("utf-8"))
    run.save(update_fields=["artifact_path", "artifact_sha256"])
    return run


# --------------------------------------------------------------------------- flatten


def test_flatten_nested_dicts_and_lists() -> None:
    value = {
        "groups": {"A": {"cost_per_conversion": 28.7}},
        "sections": ["intro", "numbers", "verdict"],
        "a": {"b": [0, 1, {"c": "deep"}]},
    }
    assert flatten(value) == {
        "groups.A.cost_per_conversion": 28.7,
        "sections[0]": "intro",
        "sections[1]": "numbers",
        "sections[2]": "verdict",
        "a.b[0]": 0,
        "a.b[1]": 1,
        "a.b[2].c": "deep",
    }


def test_flatten_lists_of_lists() -> None:
    assert flatten([[1, 2], [3]]) == {"[0][0]": 1, "[0][1]": 2, "[1][0]": 3}


def test_flatten_scalar_root_has_empty_path() -> None:
    assert flatten(42) == {"": 42}
    assert flatten(None) == {"": None}
    assert flatten("text", prefix="x") == {"x": "text"}


def test_flatten_empty_containers_are_leaves() -> None:
    assert flatten({}) == {"": {}}
    assert flatten([]) == {"": []}
    assert flatten({"tags": [], "meta": {}, "n": 1}) == {"tags": [], "meta": {}, "n": 1}


def test_flatten_quotes_keys_that_would_be_ambiguous() -> None:
    # {"a.b": 1} and {"a": {"b": 1}} must not flatten to the same path.
    assert flatten({"a.b": 1}) == {'["a.b"]': 1}
    assert flatten({"a": {"b": 1}}) == {"a.b": 1}
    assert flatten({"x": {"odd key": 2}}) == {'x["odd key"]': 2}


# --------------------------------------------------------------------------- diff_values


def test_diff_values_changed_added_removed() -> None:
    a = {"total": 344.75, "gone": "x", "keep": [1, 2]}
    b = {"total": 1034.25, "keep": [1, 2, 3], "new": True}
    assert diff_values(a, b) == [
        {"path": "total", "change": "changed", "a": 344.75, "b": 1034.25},
        {"path": "gone", "change": "removed", "a": "x", "b": None},
        {"path": "keep[2]", "change": "added", "a": None, "b": 3},
        {"path": "new", "change": "added", "a": None, "b": True},
    ]


def test_diff_values_equal_values_give_nothing() -> None:
    assert diff_values(ANALYSE_A, json.loads(json.dumps(ANALYSE_A))) == []
    assert diff_values(3, 3) == []


def test_diff_values_key_order_is_not_a_difference() -> None:
    a = {"x": 1, "y": {"p": 1, "q": 2}}
    b = {"y": {"q": 2, "p": 1}, "x": 1}
    assert diff_values(a, b) == []


def test_diff_values_empty_container_change_is_visible() -> None:
    assert diff_values({}, []) == [{"path": "", "change": "changed", "a": {}, "b": []}]
    assert diff_values({"tags": []}, {"tags": ["x"]}) == [
        {"path": "tags", "change": "removed", "a": [], "b": None},
        {"path": "tags[0]", "change": "added", "a": None, "b": "x"},
    ]


def test_diff_values_type_matters_like_the_hash() -> None:
    # Canonical JSON renders these differently, so their output hashes differ too.
    assert [c["path"] for c in diff_values({"n": 1}, {"n": 1.0})] == ["n"]
    assert [c["path"] for c in diff_values({"n": True}, {"n": 1})] == ["n"]
    assert [c["path"] for c in diff_values({"n": "1"}, {"n": 1})] == ["n"]


def test_diff_values_order_is_a_then_new_b_paths() -> None:
    changes = diff_values({"b": 1, "a": 1}, {"z": 0, "a": 2, "c": 3})
    assert [c["path"] for c in changes] == ["b", "a", "z", "c"]


# --------------------------------------------------------------------------- align


def test_align_linear_runs_index_to_index() -> None:
    names = ["load", "plan", "analyse", "write"]
    assert align(names, names) == [(0, 0), (1, 1), (2, 2), (3, 3)]


def test_align_node_that_runs_twice() -> None:
    # B loops over "critique" once more than A: only the extra occurrence is unmatched.
    a = ["draft", "critique", "revise", "write"]
    b = ["draft", "critique", "revise", "critique", "revise", "write"]
    assert align(a, b) == [(0, 0), (1, 1), (2, 2), (None, 3), (None, 4), (3, 5)]
    # And the other way round, the extra occurrences are A-only.
    assert align(b, a) == [(0, 0), (1, 1), (2, 2), (3, None), (4, None), (5, 3)]


def test_align_extra_node_on_one_side() -> None:
    a = ["load", "analyse", "write"]
    b = ["load", "analyse", "check", "write"]
    assert align(a, b) == [(0, 0), (1, 1), (None, 2), (2, 3)]
    assert align(b, a) == [(0, 0), (1, 1), (2, None), (3, 2)]


def test_align_disjoint_and_empty() -> None:
    assert align(["x"], ["y"]) == [(0, None), (None, 0)]
    assert align([], ["y"]) == [(None, 0)]
    assert align([], []) == []


# --------------------------------------------------------------------------- artifact text


def test_unified_artifact_diff_identical_is_empty() -> None:
    assert unified_artifact_diff("same\n", "same\n", "a", "b") == ""


def test_unified_artifact_diff_shows_both_lines() -> None:
    text = unified_artifact_diff("x\ncost 344.75\n", "x\ncost 1034.25\n", "a.md", "b.md")
    assert "--- a.md" in text and "+++ b.md" in text
    assert "-cost 344.75\n" in text and "+cost 1034.25\n" in text


def test_unified_artifact_diff_missing_final_newline_is_visible() -> None:
    text = unified_artifact_diff("end\n", "end", "a", "b")
    assert "\\ No newline at end of file" in text


# --------------------------------------------------------------------------- diff_runs


@pytest.mark.django_db
def test_diff_runs_identical_runs() -> None:
    run_a = make_pipeline_run(tokens=10)
    run_b = make_pipeline_run(tokens=0, parent=run_a)

    result = diff_runs(run_a, run_b)

    assert result.a == run_a.pk and result.b == run_b.pk
    assert result.first_divergence is None
    assert [n["name"] for n in result.nodes] == ["load", "plan", "analyse", "write"]
    assert all(n["same"] for n in result.nodes)
    assert all(n["a_sha256"] == n["b_sha256"] for n in result.nodes)
    assert result.artifact == {"a_sha256": None, "b_sha256": None, "differs": False}
    assert result.artifact_diff == ""
    assert result.trajectory_equal is True
    assert result.tokens == {"a": 40, "b": 0}
    assert all(c["fields"] == [] for c in result.changes)
    # The contract keys, exactly (plus the documented extras).
    assert set(result.as_json()) == {
        "a",
        "b",
        "first_divergence",
        "nodes",
        "artifact",
        "changes",
        "artifact_diff",
        "trajectory_equal",
        "nondeterministic",
        "tokens",
        "code_changed",
    }
    assert result.nondeterministic == [] and result.code_changed == []
    assert set(result.nodes[0]) == {"name", "a_sha256", "b_sha256", "same"}
    json.dumps(result.as_json())  # the --json output must serialise as is


@pytest.mark.django_db
def test_diff_runs_change_at_third_node() -> None:
    run_a = make_pipeline_run()
    changed = [*PIPELINE[:2], ("analyse", "tool", ANALYSE_B), PIPELINE[3]]
    run_b = make_pipeline_run(changed, parent=run_a)

    result = diff_runs(run_a, run_b)

    assert result.first_divergence == {
        "node": "analyse",
        "sequence_id": 3,
        "fields": [{"path": "groups.A.total_cost", "a": 344.75, "b": 1034.25}],
    }
    assert [n["same"] for n in result.nodes] == [True, True, False, True]
    assert result.trajectory_equal is False
    assert result.changes[2]["fields"] == [
        {"path": "groups.A.total_cost", "change": "changed", "a": 344.75, "b": 1034.25}
    ]


@pytest.mark.django_db
def test_diff_runs_extra_node_on_one_side() -> None:
    run_a = make_pipeline_run()
    extra = [*PIPELINE[:3], ("check", "llm", {"ok": True}), PIPELINE[3]]
    run_b = make_pipeline_run(extra)

    result = diff_runs(run_a, run_b)

    assert [n["name"] for n in result.nodes] == ["load", "plan", "analyse", "check", "write"]
    check = result.nodes[3]
    assert check["a_sha256"] is None and check["b_sha256"] and check["same"] is False
    # "write" still pairs with "write" although B's is one step later.
    assert result.nodes[4]["same"] is True
    assert result.first_divergence == {
        "node": "check",
        "sequence_id": 4,
        "fields": [{"path": "ok", "a": None, "b": True}],
    }


@pytest.mark.django_db
def test_diff_runs_step_missing_in_b_reports_a_sequence_id() -> None:
    run_a = make_pipeline_run()
    run_b = make_pipeline_run(PIPELINE[:3])

    result = diff_runs(run_a, run_b)

    assert result.first_divergence["node"] == "write"
    assert result.first_divergence["sequence_id"] == 4
    assert result.nodes[3]["b_sha256"] is None


@pytest.mark.django_db
def test_diff_runs_artifacts_differ(tmp_path: Path, settings: Any) -> None:
    settings.REWIND_ARTIFACT_DIR = tmp_path  # artifacts are read only from inside this folder
    run_a = with_artifact(make_pipeline_run(), tmp_path / "a.md", "# Report\nA costs 344.75\n")
    run_b = with_artifact(make_pipeline_run(), tmp_path / "b.md", "# Report\nA costs 1034.25\n")

    result = diff_runs(run_a, run_b)

    assert result.artifact["differs"] is True
    assert result.artifact["a_sha256"] == run_a.artifact_sha256
    assert result.artifact["b_sha256"] == run_b.artifact_sha256
    assert "-A costs 344.75" in result.artifact_diff
    assert "+A costs 1034.25" in result.artifact_diff
    assert " # Report" in result.artifact_diff


@pytest.mark.django_db
def test_diff_runs_missing_artifact_file_gives_empty_text(tmp_path: Path) -> None:
    run_a = make_pipeline_run(artifact_path=str(tmp_path / "gone.md"), artifact_sha256="ab" * 32)
    run_b = make_pipeline_run(artifact_path=str(tmp_path / "gone.md"), artifact_sha256="ab" * 32)

    result = diff_runs(run_a, run_b)

    assert result.artifact["differs"] is False
    assert result.artifact_diff == ""


@pytest.mark.django_db
def test_diff_runs_query_count(django_assert_num_queries: Any) -> None:
    run_a = make_pipeline_run()
    run_b = make_pipeline_run([*PIPELINE[:2], ("analyse", "tool", ANALYSE_B), PIPELINE[3]])

    with django_assert_num_queries(2):
        # 1. SELECT run_a's nodes ORDER BY sequence_id
        # 2. SELECT run_b's nodes ORDER BY sequence_id
        # Nothing per node: names, hashes, outputs and tokens all come from those rows.
        diff_runs(run_a, run_b)


# --------------------------------------------------------------------------- format_diff


@pytest.mark.django_db
def test_format_diff_shows_the_divergence() -> None:
    run_a = make_pipeline_run()
    run_b = make_pipeline_run([*PIPELINE[:2], ("analyse", "tool", ANALYSE_B), PIPELINE[3]])

    text = format_diff(diff_runs(run_a, run_b))

    assert "first divergence: analyse (step 3)" in text
    assert "  groups.A.total_cost  344.75 → 1034.25" in text
    assert "DIFFERENT" in text
    assert "differs: false" in text


def run_diff(**parts: Any) -> RunDiff:
    """A ``RunDiff`` from the contract's parts; the extras empty unless given."""
    extras = {"changes": [], "artifact_diff": "", "trajectory_equal": False}
    extras |= {"nondeterministic": [], "tokens": {"a": 0, "b": 0}}
    return RunDiff(**(extras | parts))


def test_format_diff_no_divergence_and_artifact_line() -> None:
    result = {
        "a": 1,
        "b": 2,
        "first_divergence": None,
        "nodes": [
            {"name": "load", "a_sha256": "1" * 64, "b_sha256": "1" * 64, "same": True},
            {"name": "write", "a_sha256": "2" * 64, "b_sha256": "2" * 64, "same": True},
        ],
        "artifact": {
            "a_sha256": "0f661db5" + "0" * 56,
            "b_sha256": "af9df990" + "0" * 56,
            "differs": True,
        },
    }

    text = format_diff(run_diff(**result))

    assert "no divergence: 2/2 nodes identical" in text
    assert "artifact  0f661db5… → af9df990…  differs: true" in text
    assert f"load   {'1' * 12}  {'1' * 12}  same" in text


def test_format_diff_added_removed_and_root_value() -> None:
    changes = [
        {"path": "", "change": "changed", "a": 1, "b": 2},
        {"path": "extra", "change": "added", "a": None, "b": "x"},
    ]
    result = {
        "a": 1,
        "b": 2,
        "first_divergence": {
            "node": "n",
            "sequence_id": 5,
            "fields": [{k: c[k] for k in ("path", "a", "b")} for c in changes],
        },
        "nodes": [{"name": "n", "a_sha256": "1" * 64, "b_sha256": None, "same": False}],
        "artifact": {"a_sha256": None, "b_sha256": None, "differs": False},
        "changes": [{"name": "n", "sequence_id": 5, "same": False, "fields": changes}],
    }

    text = format_diff(run_diff(**result))

    assert "first divergence: n (step 5)" in text
    assert "(value)  1 → 2" in text
    assert 'extra    (absent) → "x"' in text
    assert "artifact  — → —  differs: false" in text
