"""Tests for the demo pipeline's pure computation (runs/pipelines/analysis.py) and dataset.

No database: these are plain functions over files.
"""

from __future__ import annotations

import copy
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from runs.pipelines.analysis import (
    METRICS,
    analyse,
    file_sha256,
    load_rows,
    profile_dataset,
    recompute,
    render_report,
    verify_analysis,
)

DATA = Path(__file__).resolve().parents[3] / "data"
CSV = DATA / "outreach.csv"
META = DATA / "outreach.json"
COLUMNS = [
    "participant_id",
    "region",
    "group",
    "channel",
    "contacts",
    "cost_usd",
    "converted",
    "days_to_convert",
]

TINY = """participant_id,region,group,channel,contacts,cost_usd,converted,days_to_convert
P0001,north,A,email,1,1.00,1,5
P0002,north,A,phone,3,4.50,0,
P0003,south,A,email,2,2.25,1,9
P0004,north,B,visit,4,20.00,1,4
P0005,south,B,phone,1,3.00,0,
P0006,south,C,email,5,1.75,0,
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.csv"
    path.write_text(TINY, encoding="utf-8")
    return path


def _report_kwargs(analysis: dict) -> dict:
    return {
        "title": "Which outreach policy?",
        "question": "Which policy converts cheapest?",
        "summary": "Policy C is cheapest per conversion.",
        "sections": ["First paragraph.", "Second *paragraph*."],
        "analysis": analysis,
        "verification": verify_analysis(CSV, analysis),
        "metadata": json.loads(META.read_text(encoding="utf-8")),
    }


# --- the shipped dataset ---------------------------------------------------------------


def test_dataset_shape_and_columns():
    with CSV.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        assert next(reader) == COLUMNS
        body = list(reader)
    assert len(body) == 360
    rows = load_rows(CSV)
    assert len(rows) == 360
    assert rows[0]["participant_id"] == "P0001" and rows[-1]["participant_id"] == "P0360"
    assert {r["region"] for r in rows} == {"north", "south", "east", "west"}
    assert {r["group"] for r in rows} == {"A", "B", "C"}
    assert {r["channel"] for r in rows} == {"email", "phone", "visit"}
    assert all(1 <= r["contacts"] <= 8 for r in rows)
    assert all((r["days_to_convert"] is None) == (not r["converted"]) for r in rows)
    assert all(isinstance(r["cost_usd"], float) and r["cost_usd"] > 0 for r in rows)


def test_metadata_describes_policies_and_columns():
    meta = json.loads(META.read_text(encoding="utf-8"))
    assert meta["policies"]["A"]["name"] == "Standard reminders"
    assert set(meta["policies"]) == {"A", "B", "C"}
    assert list(meta["columns"]) == COLUMNS
    assert meta["currency"] == "USD"
    assert "synthetic" in meta["provenance"].lower()


def test_regenerating_dataset_is_byte_identical(tmp_path: Path):
    script = DATA / "make_dataset.py"
    for out in (tmp_path / "one", tmp_path / "two"):
        subprocess.run([sys.executable, str(script), "--out", str(out)], check=True)
        for name in ("outreach.csv", "outreach.json"):
            assert (out / name).read_bytes() == (DATA / name).read_bytes(), name


# --- profile_dataset -----------------------------------------------------------------


def test_profile_dataset():
    profile = profile_dataset(CSV, META)
    assert profile["rows"] == 360
    assert profile["columns"] == COLUMNS
    assert profile["regions"] == ["east", "north", "south", "west"]
    assert profile["channels"] == ["email", "phone", "visit"]
    assert profile["groups"]["B"]["name"] == "Personal follow-up"
    assert sum(g["participants"] for g in profile["groups"].values()) == 360
    assert profile["dataset_sha256"] == file_sha256(CSV)
    south = profile_dataset(CSV, META, region="south")
    assert south["rows"] == sum(1 for r in load_rows(CSV) if r["region"] == "south")
    assert sum(g["participants"] for g in south["groups"].values()) == south["rows"]
    json.dumps(profile)


def test_profile_dataset_unknown_region():
    with pytest.raises(ValueError) as exc:
        profile_dataset(CSV, META, region="x")
    assert str(exc.value) == "unknown region 'x'; choose one of all, east, north, south, west"


# --- analyse --------------------------------------------------------------------------


def test_analyse_matches_hand_computation(tiny: Path):
    result = analyse(tiny)
    assert result["rows_used"] == 6
    assert result["params"] == {"region": "all", "min_contacts": 1, "cost_scale": 1.0}
    assert result["groups"]["A"] == {
        "participants": 3,
        "conversions": 2,
        "conversion_rate": 0.6667,  # 2 / 3
        "total_cost": 7.75,  # 1.00 + 4.50 + 2.25
        "cost_per_conversion": 3.875,  # 7.75 / 2
        "mean_days_to_convert": 7.0,  # (5 + 9) / 2
    }
    assert result["groups"]["B"] == {
        "participants": 2,
        "conversions": 1,
        "conversion_rate": 0.5,
        "total_cost": 23.0,
        "cost_per_conversion": 23.0,
        "mean_days_to_convert": 4.0,
    }
    # No conversions: rates that would divide by zero are None, not 0 or inf.
    assert result["groups"]["C"]["cost_per_conversion"] is None
    assert result["groups"]["C"]["mean_days_to_convert"] is None
    assert result["groups"]["C"]["conversion_rate"] == 0.0
    assert result["best_group"] == "A"


def test_analyse_filters_and_scale_on_tiny(tiny: Path):
    north = analyse(tiny, region="north", cost_scale=2)
    assert north["rows_used"] == 3
    assert north["params"]["cost_scale"] == 2.0
    assert north["groups"]["A"]["total_cost"] == 11.0  # (1.00 + 4.50) * 2
    assert north["groups"]["C"]["participants"] == 0  # empty groups keep their place
    assert north["groups"]["C"]["conversion_rate"] is None
    many = analyse(tiny, min_contacts=3)
    assert many["rows_used"] == 3  # contacts 3, 4, 5
    assert many["best_group"] == "B"  # A's only row with >= 3 contacts did not convert


def test_analyse_is_deterministic_and_json_ready():
    a = analyse(CSV)
    assert json.dumps(a, sort_keys=True) == json.dumps(analyse(CSV), sort_keys=True)
    assert list(a["groups"]) == ["A", "B", "C"]
    assert a["rows_used"] == 360
    assert sum(g["participants"] for g in a["groups"].values()) == 360
    for metrics in a["groups"].values():
        assert list(metrics) == list(METRICS)
        for value in metrics.values():
            if isinstance(value, float):
                assert value == round(value, 4)


def test_arguments_change_the_numbers():
    base = analyse(CSV)
    scaled = analyse(CSV, cost_scale=2.0)
    for group, metrics in base["groups"].items():
        assert scaled["groups"][group]["total_cost"] == pytest.approx(2 * metrics["total_cost"])
        assert scaled["groups"][group]["conversions"] == metrics["conversions"]
    east = analyse(CSV, region="east")
    assert east["rows_used"] < base["rows_used"]
    assert east["groups"] != base["groups"]
    strict = analyse(CSV, min_contacts=5)
    assert strict["rows_used"] < base["rows_used"]
    assert strict["groups"] != base["groups"]
    # The dataset is built so the ranking itself depends on the question asked.
    assert {base["best_group"], east["best_group"], strict["best_group"]} == {"A", "B", "C"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"region": "x"}, "unknown region 'x'; choose one of all, east, north, south, west"),
        ({"min_contacts": 0}, "min_contacts must be from 1 to 8"),
        ({"min_contacts": 9}, "min_contacts must be from 1 to 8"),
        ({"min_contacts": "3"}, "min_contacts must be an integer"),
        ({"min_contacts": True}, "min_contacts must be an integer"),
        ({"min_contacts": 2.5}, "min_contacts must be an integer"),
        ({"cost_scale": 0}, "cost_scale must be > 0 and <= 1000"),
        ({"cost_scale": -1.0}, "cost_scale must be > 0 and <= 1000"),
        ({"cost_scale": 1000.5}, "cost_scale must be > 0 and <= 1000"),
        ({"cost_scale": float("nan")}, "cost_scale must be > 0 and <= 1000"),
        ({"cost_scale": "2"}, "cost_scale must be a number"),
    ],
)
def test_bad_arguments_raise(kwargs: dict, message: str):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        analyse(CSV, **kwargs)


def test_cost_scale_bounds_are_inclusive_at_1000():
    assert analyse(CSV, cost_scale=1000)["params"]["cost_scale"] == 1000.0


# --- recompute / verify_analysis ------------------------------------------------------

PARAM_SETS = [
    {},
    {"region": "north"},
    {"region": "south", "min_contacts": 2},
    {"region": "east", "cost_scale": 0.37},
    {"min_contacts": 5, "cost_scale": 3.0},
    {"region": "west", "min_contacts": 8, "cost_scale": 999.99},
]


@pytest.mark.parametrize("kwargs", PARAM_SETS)
def test_recompute_agrees_with_analyse(kwargs: dict):
    reported = analyse(CSV, **kwargs)
    again = recompute(CSV, reported["params"])
    assert again["best_group"] == reported["best_group"]
    assert again["rows_used"] == reported["rows_used"]
    assert list(again["groups"]) == list(reported["groups"])
    for group, metrics in reported["groups"].items():
        for metric, value in metrics.items():
            want = again["groups"][group][metric]
            if value is None:
                assert want is None
            else:
                assert want == pytest.approx(value, abs=1e-3), (group, metric)
    verdict = verify_analysis(CSV, reported)
    assert verdict == {"checks": 3 * len(METRICS) + 2, "mismatches": [], "ok": True}


def test_verify_reports_tampered_number():
    reported = analyse(CSV)
    tampered = copy.deepcopy(reported)
    tampered["groups"]["B"]["total_cost"] += 5
    verdict = verify_analysis(CSV, tampered)
    assert verdict["ok"] is False
    assert verdict["mismatches"] == [
        {
            "group": "B",
            "metric": "total_cost",
            "reported": reported["groups"]["B"]["total_cost"] + 5,
            "recomputed": reported["groups"]["B"]["total_cost"],
        }
    ]
    assert verdict["checks"] == 3 * len(METRICS) + 2


def test_verify_tolerates_rounding_but_not_more():
    reported = copy.deepcopy(analyse(CSV))
    reported["groups"]["A"]["conversion_rate"] += 0.0005
    assert verify_analysis(CSV, reported)["ok"] is True
    reported["groups"]["A"]["conversion_rate"] += 0.002
    assert verify_analysis(CSV, reported)["ok"] is False


def test_verify_reports_wrong_best_group_and_junk_values():
    reported = copy.deepcopy(analyse(CSV))
    reported["best_group"] = "A"
    reported["groups"]["C"]["conversions"] = "many"
    verdict = verify_analysis(CSV, reported)
    assert verdict["ok"] is False
    assert {(m["group"], m["metric"]) for m in verdict["mismatches"]} == {
        (None, "best_group"),
        ("C", "conversions"),
    }


def test_verify_requires_params_and_groups():
    reported = analyse(CSV)
    for missing in ("params", "groups"):
        broken = {k: v for k, v in reported.items() if k != missing}
        with pytest.raises(ValueError, match=missing):
            verify_analysis(CSV, broken)


# --- render_report --------------------------------------------------------------------


def test_render_report_is_deterministic_and_contains_the_table():
    analysis = analyse(CSV)
    text = render_report(**_report_kwargs(analysis))
    assert text == render_report(**_report_kwargs(analyse(CSV)))
    assert text.startswith("# Which outreach policy?\n")
    assert "Which policy converts cheapest?" in text
    assert "Second *paragraph*." in text  # LLM text is placed verbatim
    for group, m in analysis["groups"].items():
        row = next(line for line in text.splitlines() if line.startswith(f"| {group} |"))
        assert f"| {m['participants']} |" in row
        assert f"| {m['conversions']} |" in row
        assert f"{m['conversion_rate'] * 100:.2f}%" in row
        assert f"{m['total_cost']:.2f}" in row
        assert f"{m['cost_per_conversion']:.2f}" in row
    assert "**Best group:** C (Community partners)" in text
    assert f"{3 * len(METRICS) + 2} checks passed, numbers recomputed independently" in text
    assert str(CSV) not in text and "2026" not in text


def test_render_report_changes_with_the_analysis():
    base = render_report(**_report_kwargs(analyse(CSV)))
    east = render_report(**_report_kwargs(analyse(CSV, region="east")))
    assert base != east
    assert "**Best group:** B (Personal follow-up)" in east


def test_render_report_shows_failed_verification():
    analysis = analyse(CSV)
    kwargs = _report_kwargs(analysis)
    kwargs["verification"] = {
        "checks": 20,
        "mismatches": [{"group": "B", "metric": "total_cost", "reported": 1.0, "recomputed": 2.0}],
        "ok": False,
    }
    text = render_report(**kwargs)
    assert "19 of 20 checks passed" in text
    assert "checks passed, numbers recomputed independently" not in text
