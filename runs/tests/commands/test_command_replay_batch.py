"""rewind_replay as a batch: parallel workers, the task queue, and a clean Ctrl-C."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.management.commands.rewind_replay import Command as ReplayCommand
from runs.models import Run


def replay(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("rewind_replay", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db(transaction=True)  # worker threads use their own connections
def test_parallel_workers_replay_every_run_and_report_in_run_order(run_pipeline):
    runs = [
        run_pipeline("research", {"region": region}) for region in ("all", "east", "west", "north")
    ]

    out, _ = replay(*[str(r.pk) for r in runs], "--workers", "3", "--json")

    results = json.loads(out)["results"]
    assert [r["run"] for r in results] == [r.pk for r in runs]
    assert {r["verdict"] for r in results} == {"identical"}
    assert all(r["total_tokens"] == 0 for r in results)


@pytest.mark.django_db
def test_enqueue_hands_the_replays_to_the_task_queue(
    research_run, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}

    with django_capture_on_commit_callbacks(execute=True):
        out, _ = replay(str(research_run.pk), "--enqueue", "--json")

    (queued,) = json.loads(out)["queued"]
    assert queued["run"] == research_run.pk and queued["status"] == "queued"
    replayed = Run.objects.get(pk=queued["replay"])
    assert replayed.status == Run.Status.COMPLETED  # the immediate backend ran it on commit
    assert replayed.trajectory_sha256 == research_run.trajectory_sha256


@pytest.mark.django_db
def test_ctrl_c_stops_cleanly_and_reports_what_finished(run_pipeline, monkeypatch):
    runs = [run_pipeline("research", {"region": region}) for region in ("all", "east", "west")]
    original = ReplayCommand.replay_one
    calls = []

    def interrupted_on_second(self, run):
        calls.append(run.pk)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, run)

    monkeypatch.setattr(ReplayCommand, "replay_one", interrupted_on_second)
    out = io.StringIO()
    with pytest.raises(CommandError, match="interrupted"):
        call_command("rewind_replay", *[str(r.pk) for r in runs], stdout=out, stderr=io.StringIO())

    text = out.getvalue()
    assert "interrupted: 1 of 3 replayed" in text
    assert f"{runs[0].pk}" in text and "identical" in text
    assert calls == [runs[0].pk, runs[1].pk]  # nothing started after Ctrl-C


@pytest.mark.django_db
@pytest.mark.parametrize("workers", ["0", "33"])
def test_a_worker_count_out_of_range_is_refused(research_run, workers):
    with pytest.raises(CommandError, match="--workers must be between 1 and 32"):
        replay(str(research_run.pk), "--workers", workers)
