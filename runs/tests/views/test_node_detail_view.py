"""``/runs/<run>/nodes/<sequence_id>/``: the inspector. It shows what a step was sent and
what it answered, its hashes and cache key, where its value came from (and, for an inherited
step, which run really executed it), the error and raw output of a failure — all escaped."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from runs.lib.jsontext import pretty_json
from runs.models import Node, Run
from runs.pages.runs import CACHE_SOURCE_HELP

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(run: Run | int, sequence_id: int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/nodes/{sequence_id}/"


def inspect(client, run: Run, sequence_id: int, **kwargs) -> str:
    response = client.get(url(run, sequence_id), **kwargs)
    assert response.status_code == 200
    return response.content.decode()


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, run_row, node_row):
    run = run_row()
    node_row(run, 0)

    response = client.get(url(run, 0), headers=HTMX)

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{run.pk}/nodes/0/"


def test_unknown_step_is_404(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0)

    assert signed_in.get(url(run, 1)).status_code == 404
    assert signed_in.get(url(run, 99999999)).status_code == 404


def test_unknown_run_is_404(signed_in, run_row):
    run = run_row()

    assert signed_in.get(url(run.pk + 1000, 0)).status_code == 404


def test_a_step_of_another_run_is_404(signed_in, run_row, node_row):
    run, other = run_row(), run_row()
    node_row(other, 5)

    assert signed_in.get(url(run, 5)).status_code == 404


def test_post_is_not_allowed(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0)

    assert signed_in.post(url(run, 0)).status_code == 405


# --- page and fragment -----------------------------------------------------------------------


def test_an_llm_step_shows_its_prompt_inputs_output_and_hashes(signed_in, research_run):
    plan = research_run.nodes.get(name="plan")

    text = inspect(signed_in, research_run, plan.sequence_id)

    assert "<html" in text
    assert '<section id="run-graph"' in text  # the run's page, the inspector beside its graph
    assert f'<a href="/runs/{research_run.pk}/" class="close"' in text
    assert "<h2>plan <small" in text
    for message in plan.prompt:
        assert f'<span class="role">{message["role"]}</span>' in text
        assert f"<pre>{escape(message['content'])}</pre>" in text
    assert {m["role"] for m in plan.prompt} == {"system", "user"}
    assert escape(pretty_json(plan.inputs)) in text
    assert escape(pretty_json(plan.output)) in text
    assert f"<code>{plan.output_sha256}</code>" in text
    assert f"<code>{plan.cache_key}</code>" in text and len(plan.cache_key) == 64
    assert '<span class="badge src-live">live</span>' in text
    assert CACHE_SOURCE_HELP["live"] in text
    assert "requested <code>rewind-sim-1</code>, answered <code>rewind-sim-1</code>" in text
    assert f"= {plan.total_tokens}</dd>" in text
    assert f'href="/runs/{research_run.pk}/nodes/{plan.sequence_id}/fork/"' in text


def test_htmx_gets_only_the_inspector(signed_in, research_run):
    text = inspect(signed_in, research_run, 0, headers=HTMX)

    assert "<html" not in text
    assert "<h1>" not in text  # the page around it is not sent ...
    assert text.lstrip().startswith('<div class="inspector-head">')
    assert "<h2>plan <small" in text
    assert 'hx-target="#inspector"' in text  # its fork link swaps into the same region
    # ... only, out of band, the graph and timeline that highlight the step
    assert (
        '<section id="run-graph" class="run-graph" aria-labelledby="run-graph-title" hx-swap-oob="true">'
        in text
    )
    assert "<h1" not in text and '<p class="meta">' not in text


def test_a_tool_step_shows_its_args_and_no_prompt(signed_in, research_run):
    analyse = research_run.nodes.get(name="analyse")

    text = inspect(signed_in, research_run, analyse.sequence_id)

    assert "<h3>Prompt</h3>" not in text
    assert "<dt>model</dt>" not in text
    assert escape('"cost_scale": 1.0') in text
    assert "tool · completed" in text


def test_each_cache_source_is_explained(signed_in, run_row, node_row):
    run = run_row()
    for seq, source in enumerate(CACHE_SOURCE_HELP):
        node_row(run, seq, cache_source=source)

    for seq, source in enumerate(CACHE_SOURCE_HELP):
        text = inspect(signed_in, run, seq, headers=HTMX)
        assert f'<span class="badge src-{source}">{source}</span>' in text
        assert escape(CACHE_SOURCE_HELP[source]) in text


def test_a_cache_miss_says_why(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0, cache_note="nearest entry differs in: model")

    assert "<dd>nearest entry differs in: model</dd>" in inspect(signed_in, run, 0)


def test_a_model_substitution_is_flagged(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0, model_requested="gpt-4o", model_answered="gpt-4o-mini")

    text = inspect(signed_in, run, 0)

    assert "requested <code>gpt-4o</code>, answered <code>gpt-4o-mini</code>" in text
    assert "the provider substituted the model" in text


# --- provenance ------------------------------------------------------------------------------


def test_an_inherited_step_links_the_run_that_executed_it(signed_in, research_run, run_fork):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    plan = fork.nodes.get(name="plan")
    assert plan.cache_source == Node.CacheSource.INHERITED

    text = inspect(signed_in, fork, plan.sequence_id)

    assert (
        f'Provenance: executed by <a href="/runs/{research_run.pk}/">run {research_run.pk}</a>, '
        f"step {plan.src_sequence_id}." in text
    )
    assert CACHE_SOURCE_HELP["inherited"] in text


def test_a_fork_of_a_fork_points_at_the_run_that_really_executed_the_step(
    signed_in, research_run, run_fork
):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    fork_of_fork = run_fork(fork, "compose")
    plan = fork_of_fork.nodes.get(name="plan")
    analyse = fork_of_fork.nodes.get(name="analyse")

    plan_text = inspect(signed_in, fork_of_fork, plan.sequence_id)
    analyse_text = inspect(signed_in, fork_of_fork, analyse.sequence_id)

    # plan ran in the root; analyse ran (with the override) in the first fork — never "a copy
    # of a copy" in the intermediate run.
    assert f'executed by <a href="/runs/{research_run.pk}/">run {research_run.pk}</a>' in plan_text
    assert f'executed by <a href="/runs/{fork.pk}/">run {fork.pk}</a>' in analyse_text


def test_an_executed_step_has_no_provenance_line(signed_in, research_run):
    assert "Provenance:" not in inspect(signed_in, research_run, 0)


# --- failures and escaping -------------------------------------------------------------------


def test_a_failed_step_shows_its_error_and_raw_output(signed_in, serve_simulator, run_pipeline):
    serve_simulator(garbage=True)  # the model answers something no parser accepts
    run = run_pipeline("research")
    assert run.status == Run.Status.FAILED
    plan = run.nodes.get(name="plan")
    assert plan.status == Node.Status.FAILED and plan.raw_output

    text = inspect(signed_in, run, plan.sequence_id)

    failure = text[text.index('<div class="failure">') :]
    failure = failure[: failure.index("</div>")]
    assert f'<pre class="error">{escape(plan.error)}</pre>' in failure
    assert "<h3>Raw output</h3>" in failure
    assert f"<pre>{escape(plan.raw_output)}</pre>" in failure
    assert "&lt;&lt;garbled output&gt;&gt;" in failure  # the simulator's garbage, escaped
    assert f"step {plan.sequence_id} · llm · failed</small>" in text


def test_model_text_is_escaped(signed_in, run_row, node_row):
    run = run_row()
    node_row(
        run,
        0,
        prompt=[
            {"role": "system", "content": "<b>system</b>"},
            {"role": "user", "content": "<script>alert(1)</script>"},
        ],
        output={"answer": "<img src=x onerror=alert(2)>"},
        status=Node.Status.FAILED,
        error="<script>alert(3)</script>",
        raw_output="<iframe src=javascript:alert(4)>",
        model_requested="<i>m</i>",
        model_answered="<i>n</i>",
    )

    text = inspect(signed_in, run, 0)

    assert "<script>alert" not in text
    assert "<img src=x" not in text and "<iframe" not in text and "<i>m</i>" not in text
    assert "<b>system</b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in text
    assert "&lt;iframe src=javascript:alert(4)&gt;" in text
    assert "&lt;img src=x onerror=alert(2)&gt;" in text


def test_an_unfinished_run_offers_no_fork(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0)

    text = inspect(signed_in, run, 0)

    assert "Fork from here" not in text


# --- the state after a step -----------------------------------------------------------------


def test_it_shows_the_state_after_the_step_and_what_changed_since_the_step_before(
    signed_in, research_run
):
    """Burr's own UI shows the whole state after each step and the delta from the step
    before; the inspector too (Burr's ``__`` keys left out)."""
    plan, research = research_run.nodes.order_by("sequence_id")[:2]

    first = inspect(signed_in, research_run, plan.sequence_id)
    second = inspect(signed_in, research_run, research.sequence_id)

    assert "State after this step" in first and "The first step" in first
    assert f"since step {plan.sequence_id} (plan)" in second
    assert '<code>research</code> <span class="muted">added</span>' in second
    assert "<code>plan" not in second.split("Whole state")[0].split("State after this step")[1]
    assert "__SEQUENCE_ID" not in second
    assert escape('"plan":') in second.split("Whole state")[1]  # the whole state holds plan


def test_an_inherited_step_shows_its_executors_state(signed_in, research_run, run_fork):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    research = fork.nodes.get(name="research")
    assert research.cache_source == "inherited"

    page = inspect(signed_in, fork, research.sequence_id)

    assert "No state was recorded" not in page
    assert '<code>research</code> <span class="muted">added</span>' in page


def test_the_state_delta_is_key_by_key_with_the_leaves_that_changed_inside_a_key():
    from runs.pages.nodes import _changes

    before = {"count": 1, "chat": [{"role": "user", "content": "hi"}], "gone": 3}
    after = {"count": 2, "chat": [{"role": "user", "content": "hi"}, {"role": "ai"}], "new": {}}

    assert _changes(before, after) == [
        {"path": "count", "change": "changed", "a": 1, "b": 2},
        {"path": "chat[1].role", "change": "added", "a": None, "b": "ai"},
        {"path": "new", "change": "added", "a": None, "b": {}},
        {"path": "gone", "change": "removed", "a": 3, "b": None},
    ]
