"""``/runs/<run>/artifact/``: the run's markdown as a download. The file is found from the run
row only (a request cannot name a path), inside ``REWIND_ARTIFACT_DIR`` only, and its bytes are
the ones the run recorded a sha256 for."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from runs.models import Run

pytestmark = pytest.mark.django_db


def url(run: Run | int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/artifact/"


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_anonymous_user_is_sent_to_login(client, research_run):
    response = client.get(url(research_run))

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{research_run.pk}/artifact/"


def test_it_downloads_the_markdown_whose_hash_the_run_recorded(signed_in, research_run):
    response = signed_in.get(url(research_run))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown"
    assert (
        response["Content-Disposition"] == f'attachment; filename="rewind-run-{research_run.pk}.md"'
    )
    data = body(response)
    assert hashlib.sha256(data).hexdigest() == research_run.artifact_sha256
    assert data.startswith(b"# ")
    assert data == Path(research_run.artifact_path).read_bytes()


def test_a_run_without_artifact_is_404(signed_in, rewind_settings, run_row):
    queued = run_row(status=Run.Status.QUEUED)
    failed = run_row(status=Run.Status.FAILED, error="plan: refused")

    assert signed_in.get(url(queued)).status_code == 404
    assert signed_in.get(url(failed)).status_code == 404


def test_unknown_run_is_404(signed_in, run_row):
    assert signed_in.get(url(run_row().pk + 1000)).status_code == 404


def test_a_missing_file_is_404_not_500(signed_in, research_run):
    Path(research_run.artifact_path).unlink()

    assert signed_in.get(url(research_run)).status_code == 404


def test_a_request_cannot_name_the_path(signed_in, research_run, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for you")

    for query in (
        {"path": str(secret)},
        {"artifact_path": str(secret)},
        {"file": "../secret.txt"},
    ):
        response = signed_in.get(url(research_run), query)
        assert response.status_code == 200
        assert hashlib.sha256(body(response)).hexdigest() == research_run.artifact_sha256
    assert signed_in.get(url(research_run) + "../../secret.txt").status_code == 404


def test_a_recorded_path_outside_the_artifact_dir_is_not_served(
    signed_in, rewind_settings, run_row, tmp_path
):
    outside = tmp_path / "elsewhere" / "notes.md"
    outside.parent.mkdir()
    outside.write_text("# private notes\n")
    run = run_row(
        artifact_path=str(outside),
        artifact_sha256=hashlib.sha256(outside.read_bytes()).hexdigest(),
    )

    assert signed_in.get(url(run)).status_code == 404
    page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert "private notes" not in page


def test_a_relative_escape_in_the_recorded_path_is_not_served(
    signed_in, rewind_settings, run_row, tmp_path
):
    directory = Path(rewind_settings.REWIND_ARTIFACT_DIR)
    directory.mkdir(parents=True)
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\n")
    run = run_row(
        artifact_path=str(directory / ".." / "secret.md"),
        artifact_sha256=hashlib.sha256(secret.read_bytes()).hexdigest(),  # a matching hash
    )

    assert signed_in.get(url(run)).status_code == 404


def test_post_is_not_allowed(signed_in, research_run):
    assert signed_in.post(url(research_run)).status_code == 405


def test_a_file_whose_bytes_do_not_match_the_recorded_hash_is_not_served(
    signed_in, rewind_settings, run_row
):
    directory = Path(rewind_settings.REWIND_ARTIFACT_DIR)
    directory.mkdir(parents=True)
    recorded = b"# the report this run wrote\n"
    # the run's own file is gone (or was written on another machine's artifact dir) ...
    run = run_row(
        artifact_path=str(directory / "moved" / "report.md"),
        artifact_sha256=hashlib.sha256(recorded).hexdigest(),
    )
    # ... and a file with the run's id, left by some other run, is in the directory.
    (directory / f"{run.pk}.md").write_bytes(b"# somebody else's report\n")

    assert signed_in.get(url(run)).status_code == 404
    page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert "somebody else" not in page
    assert "This run produced no artifact." in page


def test_a_changed_file_is_not_served_as_the_run_artifact(signed_in, research_run):
    Path(research_run.artifact_path).write_text("# edited after the run\n")

    assert signed_in.get(url(research_run)).status_code == 404
