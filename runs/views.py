"""Thin views: look the run up, hand it to the engine, render. No engine logic here."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from runs.engine.report import run_json
from runs.models import Run

RUNS_PER_PAGE = 50


def _get_run(run_id: int) -> Run:
    try:
        return Run.objects.get(pk=run_id)
    except Run.DoesNotExist:
        raise Http404(f"no run {run_id}") from None


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"service": "rewind", "status": "ok"})


@require_GET
def api_run(request: HttpRequest, run_id: int) -> JsonResponse:
    return JsonResponse(run_json(_get_run(run_id)), json_dumps_params={"ensure_ascii": False})


@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(Run.objects.order_by("-created_at", "-id"), RUNS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "runs/run_list.html", {"page": page})
