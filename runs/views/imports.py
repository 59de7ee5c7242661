"""The import page (staff only): Burr's history on the server — a tracker directory or a
persister table — read into runs by the same import as ``rewind_import``, and its report."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.views.decorators.http import require_http_methods

from runs.engine.errors import RewindError
from runs.forms import ImportForm
from runs.pages.imports import report_view
from runs.views.common import render_partial


@require_http_methods(["GET", "POST"])
def import_page(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST: import, then the form again with the report (what was imported,
    updated, already there, and each line that could not be read). A path or database the
    import refuses is the form with its one-line reason, 400, nothing written."""
    if not request.user.is_staff:
        # It reads the server's files: only staff, as only staff change settings.
        return HttpResponseForbidden("only staff may import history")
    form = ImportForm(request.POST if request.method == "POST" else None)
    report, status = None, 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                report = report_view(form.run_import())
            except RewindError as exc:
                form.add_error(None, form.hide_password(str(exc)))
            except OSError as exc:  # a directory it may not read: said, never a 500
                form.add_error(None, form.hide_password(str(exc)))
            else:
                status = 200
    response = render_partial(
        request, "runs/import.html", "import-panel", {"form": form, "report": report}
    )
    response.status_code = status
    return response
