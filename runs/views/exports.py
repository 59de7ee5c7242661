"""A run exported as a test, or a finished batch as a regression suite, downloaded as a zip:
the files ``rewind_export`` writes."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from runs.engine.analysis.batches.suite import build_suite
from runs.engine.analysis.export import ExportFiles, build_export, zip_export
from runs.engine.errors import RewindError
from runs.forms import ExportForm
from runs.views.common import get_batch, get_run


@require_GET
def run_export(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_run(run_id)
    form = ExportForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            "bad parameter: " + form.errors.as_text(), status=400, content_type="text/plain"
        )
    try:
        export = build_export(run, form.cleaned_data["against"])
    except RewindError as exc:  # not completed, a row it needs is gone: nothing to download
        return HttpResponse(str(exc), status=409, content_type="text/plain")
    return _download(export)


@require_GET
def batch_export(request: HttpRequest, batch_id: int) -> HttpResponse:
    """``rewind_export --batch``'s files: one test per source run, one fixture."""
    batch = get_batch(batch_id)
    try:
        suite = build_suite(batch)
    except RewindError as exc:  # not finished, nothing to assert, a row it needs is gone
        return HttpResponse(str(exc), status=409, content_type="text/plain")
    return _download(suite)


def _download(export: ExportFiles) -> HttpResponse:
    return HttpResponse(
        zip_export(export),
        content_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{export.folder}.zip"'},
    )
