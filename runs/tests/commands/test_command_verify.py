"""``rewind_verify``: the end-to-end self-check passes on a fresh install."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run

pytestmark = pytest.mark.django_db

CHECKS = 13


def test_every_check_passes(rewind_settings):
    out = io.StringIO()

    # no_color: a test run from a terminal would otherwise wrap PASS in ANSI codes.
    call_command("rewind_verify", stdout=out, stderr=io.StringIO(), no_color=True)

    lines = out.getvalue().splitlines()
    assert [line for line in lines if line.startswith("FAIL")] == []
    assert len([line for line in lines if line.startswith("PASS")]) == CHECKS
    assert lines[-1].startswith(f"{CHECKS}/{CHECKS} checks passed")
    # The run, the fork and the replay it made stay for inspection.
    run, fork, replay = Run.objects.order_by("pk")
    assert lines[-1].endswith(f"(runs {run.pk}, {fork.pk}, {replay.pk})")
    assert fork.parent_id == run.pk and replay.parent_id == run.pk
    assert {r.status for r in (run, fork, replay)} == {Run.Status.COMPLETED}


def test_it_passes_again_on_a_warm_cache(rewind_settings):
    """A second self-check is served from cache; the checks must not assume a cold one."""
    call_command("rewind_verify", stdout=io.StringIO(), no_color=True)
    out = io.StringIO()

    call_command("rewind_verify", stdout=out, stderr=io.StringIO(), no_color=True)

    assert f"{CHECKS}/{CHECKS} checks passed" in out.getvalue()


def test_a_failed_check_is_reported_and_exits_with_an_error(rewind_settings, monkeypatch):
    # Pretend the artifact on disk does not hash to what the run recorded.
    monkeypatch.setattr(
        "runs.management.commands.rewind_verify.sha256_bytes", lambda data: "0" * 64
    )
    out = io.StringIO()

    with pytest.raises(CommandError) as caught:
        call_command("rewind_verify", stdout=out, stderr=io.StringIO(), no_color=True)

    assert str(caught.value) == "1 check(s) failed"
    lines = out.getvalue().splitlines()
    (failed,) = [line for line in lines if line.startswith("FAIL")]
    assert "artifact file exists and its sha256 matches the record" in failed
    assert lines[-1].startswith(f"{CHECKS - 1}/{CHECKS} checks passed")


def test_unknown_pipeline_is_a_clean_error(rewind_settings):
    with pytest.raises(CommandError) as caught:
        call_command("rewind_verify", "--pipeline", "nope", stdout=io.StringIO())

    assert str(caught.value).startswith("unknown pipeline 'nope'")
    assert Run.objects.count() == 0
