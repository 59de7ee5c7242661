"""``/runs/<run>/``: the step graph with cache sources and tokens, the cost bar, the artifact
rendered as sanitised HTML, the live region (SSE + polling) only while a run is unfinished,
and a number of queries that does not grow with the number of steps."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.models import Node, Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db


def url(run: Run | int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/"


def write_artifact(run: Run, text: str) -> Run:
    """Give ``run`` an artifact file with ``text`` in ``REWIND_ARTIFACT_DIR``, recorded on the
    run row as the runner does."""
    directory = Path(settings.REWIND_ARTIFACT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{run.pk}.md"
    path.write_text(text, encoding="utf-8")
    run.artifact_path = str(path)
    run.artifact_sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    run.save(update_fields=["artifact_path", "artifact_sha256"])
    return run


def page(client, run: Run) -> str:
    response = client.get(url(run))
    assert response.status_code == 200
    return response.content.decode()


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, run_row):
    run = run_row()

    response = client.get(url(run))

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{run.pk}/"


def test_unknown_run_is_404(signed_in, run_row):
    run = run_row()

    assert signed_in.get(url(run.pk + 1000)).status_code == 404


def test_post_is_not_allowed(signed_in, run_row):
    assert signed_in.post(url(run_row())).status_code == 405


# --- a finished run --------------------------------------------------------------------------


def test_the_graph_shows_every_step_with_its_cache_source_and_tokens(signed_in, research_run):
    text = page(signed_in, research_run)

    assert "<html" in text
    for node in research_run.nodes.all():
        step = text[text.index(f'id="step-{node.sequence_id}"') :]
        step = step[: step.index("</li>")]
        assert f'<span class="name">{node.name}</span>' in step
        assert f'<span class="badge src-{node.cache_source}"' in step
        assert f">{node.cache_source}</span>" in step
        assert f"{node.total_tokens} tok" in step
    assert [n.name for n in research_run.nodes.order_by("sequence_id")] == list(ORDER)


def test_the_graph_of_a_fork_shows_inherited_and_cached_steps(signed_in, research_run, run_fork):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")

    text = page(signed_in, fork)

    assert text.count('class="badge src-inherited"') == 2  # plan, research: copied
    assert "src-live" in text  # analyse and what reads it: re-executed
    assert f'Fork of <a href="/runs/{research_run.pk}/">run {research_run.pk}</a>' in text
    assert "<code>args.cost_scale</code> = <code>3.0</code>" in text
    assert f'href="/compare/{research_run.pk}/{fork.pk}/"' in text


def test_the_totals_and_each_steps_tokens_and_cost_are_shown(signed_in, research_run):
    nodes = list(research_run.nodes.all())
    total = sum(n.total_tokens for n in nodes)

    text = page(signed_in, research_run)

    cost = text[text.index('<p class="cost">') :]
    cost = cost[: cost.index("</p>")]
    assert f"{total} tokens" in cost
    assert "tokens avoided" in cost
    timeline = text[text.index('<section id="run-timeline"') :]
    timeline = timeline[: timeline.index("</section>")]
    for node in nodes:
        row = timeline[timeline.index(f'id="step-{node.sequence_id}"') :]
        row = row[: row.index("</li>")]
        assert f'<span class="name">{node.name}</span>' in row
        assert f'<span class="num tokens">{node.total_tokens} tok</span>' in row
        assert f"${node.cost_usd:.6f}" in row


def test_the_artifact_is_rendered_as_html_with_its_hash_and_a_download_link(
    signed_in, research_run
):
    text = page(signed_in, research_run)

    artifact = text[text.index('<section class="artifact">') :]
    assert f"sha256 {research_run.artifact_sha256}" in artifact
    assert f'href="/runs/{research_run.pk}/artifact/"' in artifact
    report = artifact[artifact.index('<article class="report">') : artifact.index("</article>")]
    assert "<table>" in report and "<th>Group</th>" in report  # the markdown table, as HTML
    assert "<h2>" in report and "<h1>" not in report  # headings move down: the page has its h1
    assert "|---|" not in report  # not shown as raw markdown


def test_a_run_without_artifact_says_so(signed_in, rewind_settings, run_row, node_row):
    run = run_row(status=Run.Status.FAILED, error="plan: the provider refused")
    node_row(run, 0, status=Node.Status.FAILED, error="refused")

    text = page(signed_in, run)

    assert "This run produced no artifact." in text
    assert "plan: the provider refused" in text


def test_a_model_substitution_is_flagged(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0, "plan", model_requested="gpt-4o", model_answered="gpt-4o-mini-2024")
    node_row(run, 1, "critique")

    text = page(signed_in, run)

    assert text.count("⚠ model") == 1
    assert "⚠ model gpt-4o-mini-2024" in text
    assert (
        'title="the provider substituted the model: answered by gpt-4o-mini-2024, not gpt-4o"'
        in text
    )


MALICIOUS = """# Report

<script>alert(1)</script>

<img src="x" onerror="alert(2)">

<a href="https://example.org/" onerror="alert(3)" onclick="alert(4)">a link</a>

[click](javascript:alert(5))

<p style="color:red" onmouseover="alert(6)">styled</p>

<iframe src="https://evil.example/"></iframe>

| a | b |
|---|---|
| 1 | 2 |
"""


def test_script_and_handlers_in_the_artifact_are_removed(signed_in, run_row, rewind_settings):
    run = write_artifact(run_row(), MALICIOUS)

    text = page(signed_in, run)

    report = text[text.index('<article class="report">') : text.index("</article>")]
    assert "<script" not in report
    assert "alert(1)" not in report  # the script's content goes with it
    assert "onerror" not in report and "onclick" not in report and "onmouseover" not in report
    assert "<img" not in report and "<iframe" not in report and "style=" not in report
    assert "javascript:" not in report
    assert '<a href="https://example.org/"' in report  # a plain link survives
    assert "<table>" in report
    assert "<script>alert" not in text  # nowhere on the page


# --- live region -----------------------------------------------------------------------------


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING])
def test_an_unfinished_run_streams_and_polls(signed_in, run_row, node_row, status):
    run = run_row(status=status)
    node_row(run, 0, "plan")

    text = page(signed_in, run)

    # both say where the page stands: its last step and the status it shows
    where = f"?after=0&amp;status={status}"
    assert f'sse-connect="/runs/{run.pk}/events/{where}"' in text
    assert 'sse-close="done"' in text
    assert f'hx-get="/runs/{run.pk}/status/{where}" hx-trigger="every 3s"' in text
    assert "waiting: research, analyse" in text  # the steps still to come
    assert 'http-equiv="refresh"' in text  # and without JavaScript, a reload
    assert re.search(r'<button type="submit" disabled[^>]*>Replay unchanged</button>', text)


@pytest.mark.parametrize(
    "status", [Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.INTERRUPTED]
)
def test_a_finished_run_neither_streams_nor_polls(signed_in, run_row, node_row, status):
    run = run_row(status=status)
    node_row(run, 0, "plan")

    text = page(signed_in, run)

    assert "sse-connect" not in text
    assert "/status/" not in text
    assert "every 3s" not in text
    assert 'http-equiv="refresh"' not in text
    assert "waiting:" not in text


# --- queries ---------------------------------------------------------------------------------


def run_with_steps(run_row, node_row, count: int) -> Run:
    run = run_row()
    for seq in range(count):
        node_row(run, seq, ORDER[seq % len(ORDER)], kind="llm", total_tokens=10 * seq)
    return run


def queries_for(client, run: Run) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url(run)).status_code == 200
    return [q["sql"] for q in queries.captured_queries]


def test_query_count_does_not_grow_with_the_number_of_steps(signed_in, run_row, node_row):
    few = queries_for(signed_in, run_with_steps(run_row, node_row, 2))
    many = queries_for(signed_in, run_with_steps(run_row, node_row, 40))

    assert len(few) == len(many)
    # 1. the session  2. the user  3. the run (its parent joined)  4. its steps
    # (no cache-usage query: no step of these runs was served from the cache)
    # 5. the dashboard's outcomes  6. the steps the outcomes read, with their outputs
    assert len(many) == 6, "\n".join(many)


def test_query_count_of_a_fork_served_from_the_cache(signed_in, research_run, run_fork):
    fork = run_fork(research_run, "critique")  # an unchanged replay from step 3

    queries = queries_for(signed_in, fork)

    # 1. session  2. user  3. the run  4. its steps
    # 5. the cache entries' usage of every cached or inherited llm step, at once
    # 6. the dashboard's outcomes  7. the steps the outcomes read, with their outputs
    assert len(queries) == 7, "\n".join(queries)


@pytest.mark.parametrize("status", [Run.Status.RUNNING, Run.Status.COMPLETED])
def test_a_run_of_a_pipeline_no_longer_registered_still_shows(signed_in, run_row, node_row, status):
    run = run_row(pipeline="retired", status=status)
    node_row(run, 0, "gather")

    text = page(signed_in, run)

    assert '<span class="name">gather</span>' in text
    assert "waiting:" not in text  # nothing to predict without the pipeline


def test_a_completed_run_links_to_sampling_and_export(signed_in, research_run):
    text = signed_in.get(f"/runs/{research_run.pk}/").content.decode()

    assert f'href="/runs/{research_run.pk}/stability/">Sample k times</a>' in text
    assert f'href="/runs/{research_run.pk}/export/" download>Export as test</a>' in text


def test_an_unfinished_run_offers_neither(signed_in, run_row):
    run = run_row(status="running")

    text = signed_in.get(f"/runs/{run.pk}/").content.decode()

    assert "Sample k times" not in text and "Export as test" not in text


def test_a_replay_of_a_fork_is_labelled_a_replay_not_a_fork_with_its_parents_change(
    signed_in, research_run, run_fork
):
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.replays import create_replay

    fork = run_fork(research_run, "analyse", "args.cost_scale", "2.5")
    replay = execute_run(create_replay(fork).pk)  # carries the fork's override, by design

    text = page(signed_in, replay)
    meta = text[text.index('<p class="meta">') : text.index("</p>", text.index('<p class="meta">'))]

    assert f'An unchanged replay of <a href="/runs/{fork.pk}/">run {fork.pk}</a>' in meta
    assert "cost_scale" not in meta


def test_the_fork_editor_page_offers_a_grid_of_several_values(signed_in, research_run):
    text = signed_in.get(f"/runs/{research_run.pk}/nodes/2/fork/").content.decode()

    assert text.count("<h1>") == 1
    assert f'href="/runs/{research_run.pk}/nodes/2/grid/">Try several values</a>' in text
