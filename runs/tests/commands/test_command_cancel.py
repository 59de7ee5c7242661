"""``rewind_cancel RUN``: cancels a queued or running run; one-line errors and a non-zero exit
for anything else, changing nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run

pytestmark = pytest.mark.django_db


def rewind_cancel(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_cancel", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_it_cancels_a_queued_or_running_run(run_row, status):
    run = run_row(status=status)
    assert rewind_cancel(str(run.pk)) == f"run {run.pk} cancelled\n"
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert run.error == "cancelled by the command line (rewind_cancel)"
    assert run.finished_at is not None


@pytest.mark.parametrize(
    "status",
    [Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.INTERRUPTED, Run.Status.CANCELLED],
)
def test_it_refuses_a_finished_run_and_changes_nothing(run_row, status):
    run = run_row(status=status, error="as it was")
    with pytest.raises(CommandError, match=f"run {run.pk} is {status}; only a queued or running"):
        rewind_cancel(str(run.pk))
    run.refresh_from_db()
    assert (run.status, run.error) == (status, "as it was")


def test_it_refuses_an_unknown_run():
    with pytest.raises(CommandError, match="no run 999999"):
        rewind_cancel("999999")


def test_it_refuses_a_run_id_that_is_not_a_number():
    with pytest.raises(CommandError, match="run ids are numbers, got 'abc'"):
        rewind_cancel("abc")


@pytest.mark.django_db(transaction=True)
def test_from_a_shell_an_error_is_one_line_and_exit_status_1(run_row):
    """Run as a user runs it (a subprocess on the test database, committed rows)."""
    import subprocess
    import sys

    from runs.tests.conftest import PROJECT_ROOT, worker_environment

    run = run_row(status=Run.Status.COMPLETED)
    done = subprocess.run(
        [sys.executable, "manage.py", "rewind_cancel", str(run.pk)],
        cwd=PROJECT_ROOT,
        env=worker_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"CommandError: run {run.pk} is completed; only a queued or running run can be cancelled"
    ]
