"""A run's stability: sample it k times (live, unchanged forks) and see, per step, how many
different outputs came back — a histogram of output hashes — and which leaves varied."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlencode

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseStopPolling

from runs.budgets import admitted
from runs.engine.analysis.noise import (
    FAILED,
    StepStability,
    stability,
)
from runs.engine.analysis.projection import projected_cost
from runs.engine.run_sets.execution import Execution, execute
from runs.engine.run_sets.samples import make_samples, sample_request
from runs.forms import SampleForm
from runs.forms.stability import DEFAULT_SAMPLES
from runs.models import Node, Run
from runs.pages.grids import hash_colour
from runs.views.common import create_or_refuse, get_run, navigate

# Histogram geometry (SVG user units = px): one bar per distinct hash.
BAR_WIDTH, BAR_GAP, CHART_HEIGHT, LABEL_HEIGHT = 22, 6, 48, 14


@dataclass
class Bar:
    sha: str
    count: int
    colour: str
    x: int
    y: int
    height: int
    is_source: bool

    @property
    def label_x(self) -> float:
        return self.x + BAR_WIDTH / 2

    @property
    def label_y(self) -> int:
        return self.y - 3


def histogram(step: StepStability) -> dict[str, Any]:
    """Bars of an SVG histogram: height by count, fill by hash (the grid's colours), the
    source's own hash outlined."""
    top = max((count for _, count in step.hashes), default=1)
    bars = []
    for index, (sha, count) in enumerate(step.hashes):
        height = max(2, round(CHART_HEIGHT * count / top))
        bars.append(
            Bar(
                sha=sha,
                count=count,
                colour=hash_colour(sha) if sha != FAILED else "",
                x=index * (BAR_WIDTH + BAR_GAP),
                y=LABEL_HEIGHT + CHART_HEIGHT - height,
                height=height,
                is_source=sha == step.source_sha256,
            )
        )
    width = max(len(bars) * (BAR_WIDTH + BAR_GAP) - BAR_GAP, BAR_WIDTH)
    return {
        "bars": bars,
        "width": width,
        "height": LABEL_HEIGHT + CHART_HEIGHT + 2,
        "bar_width": BAR_WIDTH,
    }


def _context(
    run: Run, form: SampleForm | None = None, chosen: dict[str, Any] | None = None
) -> dict[str, Any]:
    samples = list(run.samples.order_by("id"))
    # One query for the run's steps and every sample's.
    source_nodes: list[Node] = []
    sample_nodes: list[Node] = []
    for node in Node.objects.filter(Q(run=run) | Q(run__sample_of=run)).order_by(
        "run_id", "sequence_id"
    ):
        (source_nodes if node.run_id == run.pk else sample_nodes).append(node)
    steps = stability(source_nodes, sample_nodes)
    return {
        "run": run,
        "samples": samples,
        "unfinished": [s for s in samples if not s.is_finished],
        "finished": sum(1 for s in samples if s.is_finished),
        "steps": [{"step": s, "chart": histogram(s)} for s in steps],
        "varying": sum(1 for s in steps if s.distinct > 1),
        "form": form or SampleForm(source_nodes, initial=chosen or _initial(source_nodes)),
    }


def _initial(nodes: list[Node]) -> dict[str, Any]:
    return {"k": DEFAULT_SAMPLES, "node": str(nodes[0].sequence_id) if nodes else ""}


def _chosen(run: Run, request: HttpRequest) -> dict[str, Any] | None:
    """The form as last sent (``?k=&node=``, after a POST), when it is still a valid choice."""
    if "k" not in request.GET:
        return None
    form = SampleForm(list(run.nodes.order_by("sequence_id")), request.GET)
    return form.cleaned_data if form.is_valid() else None


def _make_samples(request: HttpRequest, run: Run, form: SampleForm) -> list[Run]:
    """k samples of ``run`` admitted within the user's budget (nothing written otherwise)."""
    k = form.cleaned_data["k"]
    wanted = sample_request(run, k, form.cleaned_data["node"])
    project = partial(projected_cost, *[wanted] * k, what=f"these {k} samples")
    with admitted(request.user, project) as admission:
        samples = make_samples(run, k, request=wanted)
        admission.record(*samples)
    return samples


@require_http_methods(["GET", "POST"])
def run_stability(request: HttpRequest, run_id: int) -> HttpResponse:
    """GET: the page (htmx polls its live region while samples run; 286 once all finished).
    POST: make k samples, queue them, come back here; a refusal is a 400 with the form."""
    run = get_run(run_id)
    if request.method == "POST":
        nodes = list(run.nodes.order_by("sequence_id"))
        form = SampleForm(nodes, request.POST)
        samples, status = create_or_refuse(form, lambda: _make_samples(request, run, form))
        if samples is not None:
            execute([sample.pk for sample in samples], Execution(enqueue=True))
            # Back to the page with the form as it was sent (k and the step kept).
            chosen = urlencode({"k": form.cleaned_data["k"], "node": form.cleaned_data["node"]})
            return navigate(request, f"{reverse('run-stability', args=[run.pk])}?{chosen}")
        return render(request, "runs/stability.html", _context(run, form), status=status)
    context = _context(run, chosen=_chosen(run, request))
    if request.htmx:
        response = render(request, "runs/stability.html#stability-live", context)
        if not context["unfinished"]:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "runs/stability.html", context)
