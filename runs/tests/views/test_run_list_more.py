"""``/runs/``, what each row says besides the lineage: tokens, cost (unknown is "—", never $0),
duration, the fork point and the changed field; replays and stability samples labelled as
such (a replay of a fork carries its parent's override, and is still a replay); search by run
id, pipeline, step, field or value; and two runs ticked to compare (a plain GET form)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from runs.models import Node, Run
from runs.pages.change import describe_change
from runs.views.listing import RUNS_PER_PAGE

pytestmark = pytest.mark.django_db

URL = "/runs/"
HTMX = {"HX-Request": "true"}
COST_SCALE = {"node": "analyse", "field": "args.cost_scale", "value": 2.5}


def row(text: str, run: Run) -> str:
    """The table row of ``run``, whitespace collapsed."""
    at = text.index(f'<input type="checkbox" name="run" value="{run.pk}"')
    start = text.rindex("<tr", 0, at)
    return " ".join(text[start : text.index("</tr>", start)].split())


def cell(text: str, run: Run, label: str) -> str:
    html = row(text, run)
    start = html.index(f'data-label="{label}">') + len(f'data-label="{label}">')
    return html[start : html.index("</td>", start)].strip()


def fork(parent: Run, run_row, **fields) -> Run:
    values = {
        "parent": parent,
        "fork_node": "analyse",
        "fork_sequence_id": 2,
        "override": COST_SCALE,
        **fields,
    }
    return run_row(**values)


@pytest.fixture
def timed(run_row):
    """``timed(seconds, **fields)``: a run that started and finished ``seconds`` apart."""

    def make(seconds: float, **fields) -> Run:
        started = timezone.now() - timedelta(minutes=5)
        return run_row(
            started_at=started, finished_at=started + timedelta(seconds=seconds), **fields
        )

    return make


# --- tokens, cost, duration ------------------------------------------------------------------


def test_a_row_shows_the_tokens_cost_and_duration_of_the_steps_the_run_executed(
    signed_in, timed, node_row
):
    run = timed(2.5)
    node_row(run, 0, total_tokens=120, cost_usd=Decimal("0.000150"))
    node_row(run, 1, "critique", total_tokens=1000, cost_usd=Decimal("0.001000"))

    text = signed_in.get(URL).content.decode()

    assert cell(text, run, "Tokens") == "1,120"
    assert cell(text, run, "Cost") == "$0.001150"
    assert cell(text, run, "Duration") == "2.5 s"


def test_inherited_steps_were_paid_by_an_ancestor(signed_in, timed, node_row):
    parent = timed(1)
    node_row(parent, 0, total_tokens=500, cost_usd=Decimal("0.5"))
    child = timed(0.25, parent=parent, fork_node="critique", fork_sequence_id=1, override=None)
    node_row(child, 0, cache_source=Node.CacheSource.INHERITED, src_run=parent)
    node_row(child, 1, "critique", total_tokens=7, cost_usd=Decimal("0.000007"))

    text = signed_in.get(URL).content.decode()

    assert cell(text, child, "Tokens") == "7"
    assert cell(text, child, "Cost") == "$0.000007"
    assert cell(text, child, "Duration") == "250 ms"


def test_an_unknown_cost_is_a_dash_never_zero(signed_in, timed, node_row):
    run = timed(1)
    node_row(run, 0, total_tokens=10, cost_usd=Decimal("0.01"))
    node_row(run, 1, "critique", total_tokens=10, cost_usd=None, model_answered="mystery-1")

    text = signed_in.get(URL).content.decode()

    cost = cell(text, run, "Cost")
    assert "—" in cost and "$" not in cost
    assert 'title="unknown: a step was answered by a model with no price"' in cost
    assert cell(text, run, "Tokens") == "20"


def test_a_run_that_has_not_started_shows_dashes(signed_in, run_row):
    run = run_row(status=Run.Status.QUEUED)

    text = signed_in.get(URL).content.decode()

    assert cell(text, run, "Tokens") == "—"
    assert cell(text, run, "Cost") == "—"
    assert cell(text, run, "Duration") == "—"


def test_a_long_run_shows_minutes(signed_in, timed):
    run = timed(125)

    assert cell(signed_in.get(URL).content.decode(), run, "Duration") == "2 min 05 s"


# --- fork point, changed field, replays ------------------------------------------------------


def test_a_fork_shows_its_fork_point_and_changed_field(signed_in, run_row):
    parent = run_row()
    child = fork(parent, run_row)

    change = cell(signed_in.get(URL).content.decode(), child, "Change")

    assert "at <strong>analyse</strong>" in change
    assert '<code>args.cost_scale</code> = <code title="2.5">2.5</code>' in change


def test_a_replay_of_a_root_is_labelled_a_replay(signed_in, run_row):
    parent = run_row()
    replay = fork(parent, run_row, fork_node="plan", fork_sequence_id=0, override=None)

    change = cell(signed_in.get(URL).content.decode(), replay, "Change")

    assert f'replay of <a href="/runs/{parent.pk}/">run {parent.pk}</a>' in change
    assert "unchanged, from plan" in change


def test_a_replay_of_a_fork_is_a_replay_not_a_fork_with_its_parents_change(signed_in, run_row):
    root = run_row()
    changed = fork(root, run_row)
    # create_replay forks the fork at its own fork point, carrying its override
    replay = fork(changed, run_row, override=dict(COST_SCALE))

    text = signed_in.get(URL).content.decode()

    change = cell(text, replay, "Change")
    assert f'replay of <a href="/runs/{changed.pk}/">run {changed.pk}</a>' in change
    assert "args.cost_scale" not in change
    assert "args.cost_scale" in cell(text, changed, "Change")  # the fork itself still is one


def test_the_same_change_at_another_step_is_a_fork(run_row):
    root = run_row()
    changed = fork(root, run_row)
    again = fork(changed, run_row, fork_node="critique", fork_sequence_id=3)

    assert describe_change(again).is_fork


def test_a_different_change_on_a_fork_is_a_fork(run_row):
    root = run_row()
    changed = fork(root, run_row)
    other = fork(changed, run_row, override={**COST_SCALE, "value": 3.0})

    change = describe_change(other)
    assert change.is_fork and change.value == 3.0 and change.parent == changed.pk


def test_a_stability_sample_is_labelled_a_sample(signed_in, run_row):
    source = run_row()
    sample = fork(source, run_row, override=None, sample_of=source)

    change = cell(signed_in.get(URL).content.decode(), sample, "Change")

    assert f'stability sample of <a href="/runs/{source.pk}/">run {source.pk}</a>' in change


def test_a_root_run_is_a_new_run(signed_in, run_row):
    run = run_row()

    assert "new run" in cell(signed_in.get(URL).content.decode(), run, "Change")


def test_a_long_override_value_is_shortened_in_the_list_but_kept_in_its_title(signed_in, run_row):
    value = "word " * 40
    child = fork(run_row(), run_row, override={"node": "plan", "field": "prompt", "value": value})

    change = cell(signed_in.get(URL).content.decode(), child, "Change")

    assert f'title="{value}"' in change


# --- search ----------------------------------------------------------------------------------


@pytest.fixture
def family(run_row):
    root = run_row()
    cost = fork(root, run_row)
    region = fork(
        root, run_row, override={"node": "analyse", "field": "args.region", "value": "east"}
    )
    prompt = fork(
        root,
        run_row,
        fork_node="critique",
        fork_sequence_id=3,
        override={"node": "critique", "field": "prompt", "value": "Be Brief"},
    )
    other = run_row(pipeline="chatbot")
    return {"root": root, "cost": cost, "region": region, "prompt": prompt, "other": other}


def listed(text: str, *runs: Run) -> list[bool]:
    return [f'name="run" value="{run.pk}"' in text for run in runs]


@pytest.mark.parametrize("form", ["{pk}", "run {pk}", "#{pk}", "Run{pk}"])
def test_search_by_run_id(signed_in, family, form):
    target = family["region"]

    text = signed_in.get(URL, {"q": form.format(pk=target.pk)}).content.decode()

    assert listed(text, target, family["root"], family["cost"]) == [True, False, False]
    assert "1 match for" in text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("cost_scale", ["cost"]),  # the changed field
        ("EAST", ["region"]),  # its value, case-insensitive
        ("brief", ["prompt"]),  # a text value
        ("2.5", ["cost"]),  # a number value
        ("critique", ["prompt"]),  # the fork point
        ("chat", ["other"]),  # the pipeline
    ],
)
def test_search_by_field_value_step_or_pipeline(signed_in, family, query, expected):
    text = signed_in.get(URL, {"q": query}).content.decode()

    found = [name for name, run in family.items() if listed(text, run)[0]]
    assert found == expected


def test_a_search_lists_matches_flat_naming_their_parent(signed_in, family):
    text = signed_in.get(URL, {"q": "cost_scale"}).content.decode()

    assert 'class="depth-0"' in row(text, family["cost"])
    assert f"(fork of {family['root'].pk})" in row(text, family["cost"])


def test_a_search_with_no_match_says_so(signed_in, family):
    text = signed_in.get(URL, {"q": "nothing like this"}).content.decode()

    assert "No runs match “nothing like this”" in text


def test_search_combines_with_the_filters(signed_in, family, run_row):
    failed = fork(family["root"], run_row, status=Run.Status.FAILED)

    text = signed_in.get(URL, {"q": "cost_scale", "status": "failed"}).content.decode()

    assert listed(text, failed, family["cost"]) == [True, False]


def test_htmx_search_gets_only_the_table(signed_in, family):
    response = signed_in.get(URL, {"q": "east"}, headers=HTMX)

    text = response.content.decode()
    assert "<html" not in text and 'class="filters' not in text
    assert listed(text, family["region"], family["cost"]) == [True, False]


def test_the_search_box_keeps_what_was_searched_and_escapes_it(signed_in, family):
    text = signed_in.get(URL, {"q": '"><script>alert(1)</script>'}).content.decode()

    assert "<script>alert(1)" not in text
    assert 'value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in text


def test_a_too_long_search_is_400(signed_in):
    response = signed_in.get(URL, {"q": "x" * 201})

    assert response.status_code == 400
    assert "bad filter" in response.content.decode()


def test_pagination_links_keep_the_search(signed_in, run_row):
    root = run_row()
    for _ in range(RUNS_PER_PAGE + 1):
        fork(root, run_row)

    text = signed_in.get(URL, {"q": "cost_scale"}).content.decode()

    assert 'href="?q=cost_scale&amp;page=2"' in text


def test_query_count_of_a_search_does_not_grow(signed_in, run_row):
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert signed_in.get(URL, {"q": "cost_scale"}).status_code == 200
        return len(queries.captured_queries)

    root = run_row()
    fork(root, run_row)
    few = count()
    for _ in range(20):
        fork(root, run_row)
    # 1. the session  2. the user  3. COUNT(*) of matches (through the search index)
    # 4. the ids of the page's matches  5. those runs, each with its parent (a JOIN) and its
    # tokens and cost (subqueries): nothing per row  6. the dashboard's outcomes
    # 7. the steps the outcomes read, with the outputs read
    assert few == count() == 7


# --- two runs to compare ----------------------------------------------------------------------


def test_each_row_has_a_checkbox_in_a_get_form_to_the_compare_picker(signed_in, run_row):
    a, b = run_row(), run_row()

    text = signed_in.get(URL).content.decode()

    form = text[text.index('<form method="get" action="/compare/"') :]
    form = form[: form.index("</form>")]
    assert '<button type="submit">Compare selected</button>' in form
    for run in (a, b):
        assert (
            f'<input type="checkbox" name="run" value="{run.pk}" '
            f'aria-label="select run {run.pk} to compare">'
        ) in form


def test_the_compare_button_is_in_the_htmx_table_too(signed_in, run_row):
    run_row()

    text = signed_in.get(URL, headers=HTMX).content.decode()

    assert "Compare selected" in text and 'action="/compare/"' in text
