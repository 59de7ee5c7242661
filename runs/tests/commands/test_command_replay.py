"""``rewind_replay``: batch unchanged replays with a verdict, not a claim; exit 1 when any
replay diverged."""

from __future__ import annotations

import io
import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Run

# Transactional: between replays the command calls ``close_old_connections()`` (as a long
# batch should), which closes a connection that is inside a transaction, as pytest-django's
# default per-test transaction would be. Autocommit, as in a real shell, keeps it working.
pytestmark = pytest.mark.django_db(transaction=True)


def rewind_replay(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_replay", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def replay_error(*args: str) -> tuple[str, str]:
    """Run ``rewind_replay args`` expecting a ``CommandError``: (one-line message, stdout)."""
    out = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("rewind_replay", *args, stdout=out, stderr=io.StringIO())
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message, out.getvalue()


def results(out: str) -> dict[str, Any]:
    return json.loads(out)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def fork_of(research_run, run_fork) -> Run:
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    return fork


@pytest.fixture
def editable_data(rewind_settings, tmp_path) -> Path:
    """A private copy of the demo dataset that a test may change under a recorded run."""
    copy = tmp_path / "data"
    shutil.copytree(django_settings.REWIND_DATA_DIR, copy)
    rewind_settings.REWIND_DATA_DIR = copy
    return copy


def test_replaying_a_run_and_a_fork_is_identical(research_run, fork_of):
    out = rewind_replay(str(research_run.pk), str(fork_of.pk))

    lines = out.splitlines()
    assert lines[0].split() == ["run", "replay", "verdict", "tokens", "first", "divergence"]
    rows = [line.split() for line in lines[1:-1]]
    assert [int(row[0]) for row in rows] == [research_run.pk, fork_of.pk]
    assert [row[2:4] for row in rows] == [["identical", "0"], ["identical", "0"]]
    assert lines[-1] == "2/2 identical"


def test_json_gives_a_verdict_per_run(research_run, fork_of):
    data = results(rewind_replay(str(research_run.pk), str(fork_of.pk), "--json"))

    assert data["requested"] == 2
    assert data["interrupted"] is False
    assert [r["run"] for r in data["results"]] == [research_run.pk, fork_of.pk]
    for result in data["results"]:
        assert result["verdict"] == "identical"
        assert result["first_divergence"] is None
        assert result["total_tokens"] == 0
        assert result["live_nodes"] == []
        assert result["trajectory_equal"] is True
        assert result["artifact_equal"] is True
        replay = Run.objects.get(pk=result["replay"])
        assert replay.status == Run.Status.COMPLETED


REPLAY_KEYS = [
    "run",
    "replay",
    "verdict",
    "first_divergence",
    "nodes",
    "total_tokens",
    "live_nodes",
    "trajectory_equal",
    "artifact_equal",
    "error",
    "nondeterministic",
    "code_changed",
    "escaped",
]


def test_json_keeps_its_keys_in_their_order_for_a_verdict_and_a_failed_replay(research_run):
    """The contract of ``--json``: every result's keys, in this order, whether a verdict was
    given (``ReplayVerdict.as_json``) or not (``ReplayVerdict.failed``)."""
    from runs.engine.forking.replays import ReplayVerdict

    out = rewind_replay(str(research_run.pk), "--json")
    assert list(json.loads(out)) == ["results", "interrupted", "requested"]
    (result,) = json.loads(out)["results"]
    assert list(result) == REPLAY_KEYS
    failed = ReplayVerdict.failed(research_run.pk, None, "its worker died twice").as_json()
    assert list(failed) == REPLAY_KEYS
    assert failed == {
        "run": research_run.pk,
        "replay": None,
        "verdict": "failed",
        "first_divergence": None,
        "nodes": 0,
        "total_tokens": 0,
        "live_nodes": [],
        "trajectory_equal": False,
        "artifact_equal": False,
        "error": "its worker died twice",
        "nondeterministic": [],
        "code_changed": [],
        "escaped": [],
    }


def test_a_fork_is_replayed_under_its_own_override(fork_of):
    data = results(rewind_replay(str(fork_of.pk), "--json"))

    replay = Run.objects.get(pk=data["results"][0]["replay"])
    assert replay.parent_id == fork_of.pk
    assert replay.override == fork_of.override
    assert replay.trajectory_sha256 == fork_of.trajectory_sha256


def test_all_replays_every_completed_run(research_run, fork_of):
    create_run("research")  # queued: not a candidate for --all

    data = results(rewind_replay("--all", "--json"))

    assert [r["run"] for r in data["results"]] == [research_run.pk, fork_of.pk]
    assert {r["verdict"] for r in data["results"]} == {"identical"}


def test_pipeline_selects_the_runs_of_that_pipeline(research_run):
    data = results(rewind_replay("--pipeline", "research", "--json"))

    assert [r["run"] for r in data["results"]] == [research_run.pk]


def test_since_selects_recent_runs(research_run):
    old = execute_run(create_run("research", {"region": "north"}).pk)
    Run.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))

    data = results(rewind_replay("--since", "1d", "--json"))

    assert [r["run"] for r in data["results"]] == [research_run.pk]


@pytest.mark.parametrize("since", ["2d", "72h", "2000-01-01", "2000-01-01T00:00:00+00:00"])
def test_since_takes_durations_and_iso_dates(research_run, since):
    data = results(rewind_replay("--since", since, "--json"))

    assert [r["run"] for r in data["results"]] == [research_run.pk]


def test_since_garbage_is_rejected(rewind_settings):
    message, _ = replay_error("--since", "garbage")

    assert "--since" in message and "'garbage'" in message


@pytest.mark.parametrize("since", ["2024-13-45", "99999999d"])
def test_since_out_of_range_is_a_clean_error(rewind_settings, since):
    message, _ = replay_error("--since", since)

    assert "--since" in message


def test_a_diverging_replay_exits_with_an_error_and_names_the_first_divergence(
    editable_data, run_pipeline
):
    # Why this diverges, deterministically: the tool cache key includes the sha256 of every
    # data file a tool reads, so changing the dataset under a recorded run makes the replay's
    # ``research`` and ``analyse`` steps miss the cache and recompute over different numbers
    # (``research`` reports the dataset's sha256, so it is the first to differ). The downstream
    # llm prompts embed those numbers, so they go live and cost tokens. No randomness involved:
    # a temperature > 0 would diverge only with high probability.
    run = run_pipeline("research")
    assert run.status == Run.Status.COMPLETED, run.error
    csv = editable_data / "outreach.csv"
    rows = csv.read_text().splitlines(keepends=True)
    assert rows[1].startswith("P0001,north,A,email,2,1.55,")
    rows[1] = rows[1].replace(",1.55,", ",9.55,", 1)
    csv.write_text("".join(rows))

    message, out = replay_error(str(run.pk), "--json")

    assert message == "1 of 1 replay(s) not identical (diverged, failed or not hermetic)"
    (result,) = results(out)["results"]
    assert result["verdict"] == "diverged"
    assert result["first_divergence"]["node"] == "research"
    assert result["first_divergence"]["sequence_id"] == 1
    assert any(f["path"] == "dataset_sha256" for f in result["first_divergence"]["fields"])
    assert result["trajectory_equal"] is False
    assert result["artifact_equal"] is False
    assert result["total_tokens"] > 0


def test_a_diverging_replay_is_shown_in_the_table(editable_data, run_pipeline):
    run = run_pipeline("research")
    csv = editable_data / "outreach.csv"
    csv.write_text(
        csv.read_text().replace("P0001,north,A,email,2,1.55,", "P0001,north,A,email,2,9.55,")
    )

    _, out = replay_error(str(run.pk))

    row = out.splitlines()[1].split()
    assert row[2] == "diverged"
    assert "research (step 1)" in out
    assert out.splitlines()[-1] == "0/1 identical"


def test_no_arguments_is_an_error(rewind_settings):
    message, _ = replay_error()

    assert "--all" in message


def test_ids_and_all_together_is_an_error(research_run):
    message, _ = replay_error(str(research_run.pk), "--all")

    assert message == "give run ids or --all, not both"
    assert Run.objects.count() == 1  # nothing was replayed


def test_unknown_run_is_an_error(research_run):
    missing = research_run.pk + 1000

    message, _ = replay_error(str(research_run.pk), str(missing))

    assert message == f"no run {missing}"
    assert Run.objects.count() == 1  # checked before the first replay ran


def test_a_run_that_did_not_complete_is_an_error(rewind_settings):
    queued = create_run("research")

    message, _ = replay_error(str(queued.pk))

    assert "only completed runs" in message and str(queued.pk) in message


def test_progress_bar_only_on_a_terminal(research_run, monkeypatch, capsys):
    rewind_replay(str(research_run.pk))
    assert capsys.readouterr().err == ""

    terminal = FakeTerminal()
    call_command("rewind_replay", str(research_run.pk), stdout=io.StringIO(), stderr=terminal)

    assert f"1/1 run {research_run.pk}: identical" in terminal.getvalue()


@pytest.mark.django_db  # deliberately not transactional: the test runs inside a transaction
def test_replaying_several_runs_inside_a_transaction_works(research_run):
    second = execute_run(create_run("research", {"region": "east"}).pk)

    data = results(rewind_replay(str(research_run.pk), str(second.pk), "--json"))

    assert [r["verdict"] for r in data["results"]] == ["identical", "identical"]
