"""A step's inspector and the fork editor."""

from __future__ import annotations

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods

from runs.budgets import BUDGET_STATUS, BudgetExceeded, open_within_budget
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import PipelineError, RewindError
from runs.engine.forking.forks import change_preview, fork_at, provider_switch
from runs.forms import ForkForm
from runs.lib.jsontext import pretty_json
from runs.models import Node, Run
from runs.pages.imports import step_spans
from runs.pages.masking import masked, masked_json
from runs.pages.nodes import code_reasons, step_calls, step_state, step_values, tokens_counted
from runs.pages.runs import cache_help, unregistered, why_unregistered
from runs.views.common import get_node, get_run, go_to_opened
from runs.views.runs import graph_context, header_change, run_context, run_steps

# What an inspector swap also updates: the graph and the timeline (to highlight the step)
# and, while the run goes on, the live stream (so its next update keeps the highlight).
SELECTION_REGIONS = ("run-graph", "run-timeline", "run-stream")


def _inspector_context(run: Run, node: Node, steps: list[Node]) -> dict:
    """The step, its neighbours in the run and, for a node that ran more than once, which
    visit this is. Its values are shown masked (``runs.pages.masking``); ``node`` itself is
    left as read."""
    index = next(i for i, step in enumerate(steps) if step.pk == node.pk)
    visits = [step.sequence_id for step in steps if step.name == node.name]
    previous = steps[index - 1] if index > 0 else None
    after = step_state(node, previous)
    values = (node.inputs, node.prompt, node.output)
    inputs, prompt, output = shown = tuple(masked(value) for value in values)
    return {
        "run": run,
        "node": node,
        "previous_step": previous,
        "step_state": after,
        "state_json": pretty_json(after.state) if after.state is not None else "",  # masked
        "next_step": steps[index + 1] if index + 1 < len(steps) else None,
        "visit": visits.index(node.sequence_id) + 1,
        "visits": len(visits),
        "cache_help": cache_help(run, node),
        "calls": step_calls(node),
        "tokens_counted": tokens_counted(node),
        "values": step_values(node),
        "code_reasons": code_reasons(run, node),  # why code_changed: "helpers.py changed"
        "spans": step_spans(node),
        "unregistered": unregistered(run),  # then there is no "Fork from here"
        "prompt": prompt,
        "masked_any": shown != values,  # then the page says why "[redacted]" stands there
        "error": masked(node.error),
        "raw_output": masked(node.raw_output),
        "cache_note": masked(node.cache_note),
        "inputs_json": pretty_json(inputs),
        "output_json": pretty_json(output),
        "raw_json": masked_json(
            {
                "inputs": inputs,
                "prompt": prompt,
                "output": output,
                "output_sha256": node.output_sha256,
                "cache_key": node.cache_key,
                "cache_source": node.cache_source,
                "model_requested": node.model_requested,
                "model_answered": node.model_answered,
                "temperature": node.temperature,
                "tokens": [node.prompt_tokens, node.completion_tokens, node.total_tokens],
                "code_version": node.code_version,
                "code_changed": node.code_changed,
                "code_parts": node.code_parts,
                "values_read": node.values_read,
            }
        ),
    }


@require_GET
def node_detail(request: HttpRequest, run_id: int, sequence_id: int) -> HttpResponse:
    """The inspector beside the run's graph: the whole page, or (htmx, a click on a step) the
    inspector with the graph, timeline and stream swapped out of band to highlight the step.
    Constant queries: the run, the step, the run's steps (and the page's cache usage)."""
    run = get_run(run_id)
    node = get_node(run, sequence_id)
    steps = run_steps(run)
    selected = next(step for step in steps if step.pk == node.pk)
    inspector = _inspector_context(run, node, steps)
    if request.htmx and not request.htmx.history_restore_request:
        context = {**graph_context(run, steps, selected), **inspector}
        html = render_to_string("runs/node_detail.html#inspector", context, request=request)
        context["oob"] = True
        for region in SELECTION_REGIONS:
            html += render_to_string(f"runs/run_detail.html#{region}", context, request=request)
        response = HttpResponse(html)
    else:  # a link followed without JavaScript, a reload, or htmx restoring history
        context = {**run_context(run, steps, selected), **inspector, "change": header_change(run)}
        response = render(request, "runs/node_detail.html", context)
    # The same URL answers a page and a fragment: a cache must not give one for the other.
    patch_vary_headers(response, ("HX-Request", "HX-History-Restore-Request"))
    return response


@require_http_methods(["GET", "POST"])
def node_fork(request: HttpRequest, run_id: int, sequence_id: int) -> HttpResponse:
    run = get_run(run_id)
    node = get_node(run, sequence_id)
    template = "runs/node_fork.html#fork-editor" if request.htmx else "runs/node_fork.html"
    try:  # the app, resolved once for everything this request asks of the fork
        pipeline = get_pipeline(run.pipeline)
    except PipelineError as exc:  # no form that could only fail: what to register instead
        context = {"run": run, "node": node, "unregistered": why_unregistered(run, exc)}
        return render(request, template, context, status=400 if request.method == "POST" else 200)
    try:
        spec = pipeline.node(node.name)
    except PipelineError as exc:
        raise Http404(str(exc)) from None
    form = ForkForm(spec, node, request.POST or None)
    # The fields are pre-filled masked; the form compares what comes back with what it showed,
    # so a field left as shown is unchanged (its exact value kept), and an edited one is taken
    # as written.
    exact = dict(form.initial)
    form.initial = {name: masked(value) for name, value in exact.items()}
    masked_fields = [name for name, value in form.initial.items() if value != exact[name]]
    switch = provider_switch(run, pipeline)
    error, status = None, 200
    if request.method == "POST":
        status = 400  # unless the fork is made below
        replay = "replay" in request.POST  # the "Replay unchanged" button ignores the fields
        live = request.POST.get("live") == "1"  # skip the cache: always a new run
        # Let the other provider answer: offered only when this server's is not the run's.
        provider = switch if switch and request.POST.get("provider") == switch else None
        if replay or form.is_valid():
            try:
                # The form parsed the one changed field; that value is the fork's override.
                override = None if replay else form.override
                wanted = fork_at(
                    run, node, override, pipeline=pipeline, live=live, provider=provider
                )
                opened = open_within_budget(request.user, wanted)
            except BudgetExceeded as exc:
                error, status = str(exc), BUDGET_STATUS
            except RewindError as exc:
                error = str(exc)  # e.g. the run is still running: nothing was written
            else:
                return go_to_opened(request, opened)
    try:
        preview = change_preview(run, node, pipeline) if run.is_finished else None
    except RewindError:
        preview = None
    context = {
        "run": run,
        "node": node,
        "form": form,
        "error": error,
        "preview": preview,
        "provider_switch": switch,
        "masked_fields": masked_fields,
    }
    return render(request, template, context, status=status)
