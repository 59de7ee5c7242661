from __future__ import annotations

import io
import json

import pytest
from axes.models import AccessLog
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.management import call_command

# Committed rows: the live-update figure reads them from a real server's own connection.
pytestmark = pytest.mark.django_db(transaction=True)


def test_it_reports_ratios_and_an_identical_zero_token_replay(rewind_settings):
    out = io.StringIO()
    call_command(
        "rewind_bench", "--json", "--repeat", "1", "--batch-runs", "0", "--list-runs", "0",
        "--memory-replays", "0", "--no-storage", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    figures = json.loads(out.getvalue())

    assert figures["replay_identical"] is True
    assert figures["replay_tokens"] == 0
    for name in ("replay_to_cold_ratio", "fork_to_cold_ratio", "diff_to_cold_ratio"):
        assert figures[name] > 0
    assert figures["cold_peak_bytes"] > 0 and figures["replay_peak_bytes"] > 0
    assert figures["simulator"] is True
    # The users, sessions and sign-ins the page figures made are gone with them.
    assert not get_user_model().objects.filter(username__startswith="rewind-bench").exists()
    assert not AccessLog.objects.filter(username__startswith="rewind-bench").exists()
    assert not Session.objects.exists()


def test_every_figure_is_a_ratio_to_an_anchor_measured_beside_it(rewind_settings):
    out = io.StringIO()
    call_command(
        "rewind_bench", "--json", "--repeat", "1", "--batch-runs", "5", "--list-runs", "1",
        "--memory-replays", "20", "--no-storage", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    table = json.loads(out.getvalue())["figures"]

    measured = [row for row in table if row["pass"] is not None]
    names = [row["figure"] for row in measured]
    assert any("bare Burr step" in name and "WAL" in name for name in names)
    assert any("SQL statements per cached step" in name for name in names)
    assert any("100000-leaf" in name for name in names)
    assert any("run page, 500 steps" in name for name in names)
    assert any("browser sees it" in name for name in names)
    assert any(name.startswith("noise rule: false alarms") for name in names)
    assert any(name.startswith("noise rule: misses") for name in names)
    assert any(name.startswith("bisect over a 20-step trajectory") for name in names)
    assert any(name.startswith("batch of 5 forks, 2 queue workers") for name in names)
    assert any(name.startswith("per source run of a batch") for name in names)
    assert any(name.startswith("import: peak memory of a 10,000-step") for name in names)
    assert any(
        name.startswith("runs list page 1, 15,001 runs, one root with 5,000") for name in names
    )
    assert any(name.startswith("compare page, a run of that lineage") for name in names)
    assert any(name.startswith("runs list middle page, 15,001 ÷ 1,000 runs") for name in names)
    assert any(name.startswith("runs search (10 matches)") for name in names)
    assert any(name.startswith("runs list SQL at 10,000 runs") for name in names)
    assert any(name.startswith("worker memory over 20 cached replays") for name in names)
    for row in measured:
        sign, bound = row["goal"].split()[:2]
        if row["goal"].endswith((" s", " KB")):  # a time or size goal: itself, anchor beside
            assert row["anchor"] > 0, row
            assert row["pass"] == (row["value"] <= float(bound)), row
            continue
        assert row["ratio"] > 0, row
        limit = float(bound.rstrip("×"))
        met = row["ratio"] <= limit if sign == "≤" else row["ratio"] >= limit
        assert sign in {"≤", "≥"} and row["pass"] == met, row
    assert any(
        row["figure"].startswith("recording a Burr program with rewind_hooks") for row in table
    )
    # What the bench does not measure yet says so, rather than passing silently.
    assert all(row.get("note") for row in table if row["pass"] is None)
