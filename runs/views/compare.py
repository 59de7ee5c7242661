"""Comparing two runs."""

from __future__ import annotations

from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
)
from django.views.decorators.http import require_GET

from runs.engine.artifacts import artifact_text
from runs.engine.diff import diff_runs
from runs.forms import CompareForm
from runs.views.common import _get_run, _partial


@require_GET
def compare(request: HttpRequest, run_a: int, run_b: int) -> HttpResponse:
    form = CompareForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("bad parameter: " + form.errors.as_text())
    a, b = _get_run(run_a), _get_run(run_b)
    result = diff_runs(a, b)
    only_different = form.cleaned_data["only"] == "different"
    changes = [c for c in result["changes"] if not (only_different and c["same"])]
    identical = result["first_divergence"] is None and not result["artifact"]["differs"]
    context = {
        "a": a,
        "b": b,
        "result": result,
        "changes": changes,
        "any_field_changed": any(c["fields"] for c in changes),
        "only_different": only_different,
        "identical": identical and result["trajectory_equal"],
        "node_count": len(result["nodes"]),
        "text_a": artifact_text(a) or "",
        "text_b": artifact_text(b) or "",
    }
    return _partial(request, "runs/compare.html", "diff", context)
