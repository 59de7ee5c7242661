"""Comparing any two runs: the picker (``/compare/?a=&b=`` and the runs list's checkboxes,
redirected to the canonical ``/compare/<a>/<b>/``), per-step token/cost/latency deltas, changed
text highlighted word by word (escaped), long values folded but never cut, the artifacts
aligned side by side, and trajectories of different shape aligned by step name and visit."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.lib.hashing import content_sha256
from runs.lib.words import word_diff
from runs.models import Run
from runs.pages import picker
from runs.pages.compare import side_by_side

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(a: Run, b: Run, query: str = "") -> str:
    return f"/compare/{a.pk}/{b.pk}/{query}"


def squash(html: str) -> str:
    return " ".join(html.split())


def section(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i : text.index(end, i)]


def step_row(text: str, label: str) -> str:
    """The steps table's row of ``label``, whitespace collapsed."""
    table = section(text, '<table class="hashes steps">', "</table>")
    for row in table.split("<tr")[1:]:
        if row.split("</td>", 1)[0].endswith(f"<td>{label}"):
            return squash(row)
    raise AssertionError(f"no row {label!r}")


@pytest.fixture
def cost_fork(research_run, run_fork) -> Run:
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    return fork


# --- the picker ------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client):
    response = client.get("/compare/", {"a": 1, "b": 2})

    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=/compare/")


def test_a_and_b_redirect_to_the_canonical_url(signed_in, run_row):
    a, b = run_row(), run_row()

    response = signed_in.get("/compare/", {"a": b.pk, "b": a.pk})

    assert response.status_code == 302
    assert response["Location"] == f"/compare/{b.pk}/{a.pk}/"  # as chosen: B may be older


def test_two_ticked_runs_redirect_older_first(signed_in, run_row):
    a, b = run_row(), run_row()

    response = signed_in.get(f"/compare/?run={b.pk}&run={a.pk}")

    assert response.status_code == 302
    assert response["Location"] == f"/compare/{a.pk}/{b.pk}/"


def test_no_choice_shows_the_picker(signed_in, run_row):
    runs = [run_row() for _ in range(3)]

    response = signed_in.get("/compare/")

    assert response.status_code == 200
    text = response.content.decode()
    assert "<h1>Compare two runs</h1>" in text
    picker = section(text, '<form method="get" action="/compare/" class="picker"', "</form>")
    for run in runs:
        assert f'<option value="{run.pk}">run {run.pk} · research · root · completed' in picker


@pytest.mark.parametrize("count", [0, 1, 3])
def test_ticking_other_than_two_runs_says_so(signed_in, run_row, count):
    runs = [run_row() for _ in range(3)]
    query = "&".join(f"run={r.pk}" for r in runs[:count]) or "run="

    response = signed_in.get(f"/compare/?{query}")

    assert response.status_code == 400
    text = response.content.decode()
    assert "select exactly two runs to compare" in text
    if count == 1:  # the one ticked run is kept as A
        assert f'name="a" value="{runs[0].pk}"' in text
        assert 'name="b" value=""' in text


@pytest.mark.parametrize(
    "query",
    ["a=abc&b=1", "a=0&b=1", "a=1", "b=2", "run=x&run=1", "a=99999999999&b=1"],
)
def test_a_bad_choice_is_400_with_the_picker(signed_in, run_row, query):
    run_row()

    response = signed_in.get(f"/compare/?{query}")

    assert response.status_code == 400
    assert 'class="picker"' in response.content.decode()


def test_an_unknown_run_chosen_is_404_at_the_canonical_url(signed_in, run_row):
    run = run_row()

    response = signed_in.get("/compare/", {"a": run.pk, "b": run.pk + 100}, follow=True)

    assert response.redirect_chain == [(f"/compare/{run.pk}/{run.pk + 100}/", 302)]
    assert response.status_code == 404


def test_the_compare_page_offers_both_lineages_recent_runs_and_a_swap(signed_in, run_row):
    a, b, other = run_row(), run_row(), run_row()
    child = run_row(parent=a, root=a, fork_node="plan", fork_sequence_id=0)

    text = signed_in.get(url(a, b)).content.decode()

    picker = section(text, '<form method="get" action="/compare/" class="picker"', "</form>")
    assert f'name="a" value="{a.pk}"' in picker and f'name="b" value="{b.pk}"' in picker
    choices = section(picker, '<datalist id="run-choices">', "</datalist>")
    assert f'<option value="{child.pk}">run {child.pk} · research · replay of {a.pk}' in choices
    assert f'<option value="{other.pk}">run {other.pk} · research · root' in choices
    assert f'<a href="/compare/{b.pk}/{a.pk}/" class="swap">swap A and B</a>' in picker


def test_the_picker_offers_a_bounded_part_of_a_big_lineage(signed_in, run_row):
    """The picker listed every run of the lineage (issue 19: 830 KB for 5,000 runs): it now
    offers the root, the parents and the newest few, and finds the rest by search."""
    a, b = run_row(), run_row()

    def offered() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as queries:
            text = signed_in.get(url(a, b)).content.decode()
        choices = section(text, '<datalist id="run-choices">', "</datalist>")
        return choices.count("<option "), len(queries.captured_queries)

    for _ in range(3):
        run_row(parent=a, root=a, fork_node="plan", fork_sequence_id=0)
    few, few_queries = offered()
    Run.objects.bulk_create(
        Run(pipeline="research", status="completed", parent=a, root=a, fork_node="plan",
            fork_sequence_id=0)
        for _ in range(300)
    )  # fmt: skip
    many, many_queries = offered()

    assert few == 3 + 2  # the three forks, a and b
    # a and b, the newest LINEAGE_RUNS of a's lineage, then the newest others
    assert many == 2 + picker.LINEAGE_RUNS + picker.RECENT_RUNS < 300
    assert few_queries == many_queries


def test_the_picker_search_finds_runs_by_id_or_text_and_answers_a_fragment(signed_in, run_row):
    root = run_row()
    east = run_row(
        parent=root, root=root, fork_node="analyse", fork_sequence_id=2,
        override={"node": "analyse", "field": "args.region", "value": "east"},
    )  # fmt: skip
    run_row(parent=root, root=root, fork_node="analyse", fork_sequence_id=2)

    by_text = signed_in.get("/compare/runs/", {"b": "EAST"}, headers=HTMX)
    by_id = signed_in.get("/compare/runs/", {"a": f"run {root.pk}"}, headers=HTMX)

    assert by_text.status_code == by_id.status_code == 200
    text = by_text.content.decode()
    assert "<html" not in text and text.count("<option ") == 1
    label = f"run {east.pk} · research · fork of {root.pk} at analyse: args.region = east"
    assert f'<option value="{east.pk}">{label} · completed</option>' in text
    assert by_id.content.decode().count("<option ") == 1
    assert f'value="{root.pk}"' in by_id.content.decode()


def test_the_picker_search_answers_at_most_a_few_runs(signed_in, run_row):
    root = run_row()
    Run.objects.bulk_create(
        Run(pipeline="research", status="completed", parent=root, root=root, fork_node="plan",
            fork_sequence_id=0)
        for _ in range(60)
    )  # fmt: skip

    with CaptureQueriesContext(connection) as queries:
        text = signed_in.get("/compare/runs/", {"q": "research"}, headers=HTMX).content.decode()

    assert text.count("<option ") == picker.FOUND_RUNS
    # 1. the session  2. the user  3. the newest matches with their parents: one query
    assert len(queries.captured_queries) == 3


@pytest.mark.parametrize("params", [{"q": "x" * 201}, {"a": "y" * 300}])
def test_a_too_long_picker_search_is_400(signed_in, params):
    assert signed_in.get("/compare/runs/", params).status_code == 400


def test_a_run_typed_as_run_12_or_hash_12_is_chosen(signed_in, run_row):
    a, b = run_row(), run_row()

    response = signed_in.get("/compare/", {"a": f"run {a.pk}", "b": f"#{b.pk}"})

    assert response.status_code == 302
    assert response["Location"] == f"/compare/{a.pk}/{b.pk}/"


def test_text_typed_in_a_box_is_not_a_run_and_says_so(signed_in, run_row):
    b = run_row()

    response = signed_in.get("/compare/", {"a": "east", "b": b.pk})

    assert response.status_code == 400
    assert "not a run id: &#x27;east&#x27;" in response.content.decode()


def test_the_picker_search_is_for_signed_in_users(client):
    response = client.get("/compare/runs/", {"q": "east"})

    assert response.status_code == 302 and "/login/" in response["Location"]


# --- any two runs, per-step deltas -------------------------------------------------------------


def test_two_forks_of_one_run_are_compared(signed_in, research_run, cost_fork, run_fork):
    region = run_fork(research_run, "analyse", "args.region", "east")

    response = signed_in.get(url(cost_fork, region))

    assert response.status_code == 200
    text = squash(response.content.decode())
    assert (
        f'Both runs descend from <a href="/runs/{research_run.pk}/">run {research_run.pk}</a>'
        in text
    )
    assert "First divergence: <strong>analyse</strong>" in text


def test_each_step_shows_token_cost_and_latency_in_both_runs_with_the_change(
    signed_in, research_run, cost_fork
):
    text = signed_in.get(url(research_run, cost_fork)).content.decode()

    critique_a = research_run.nodes.get(name="critique")
    critique_b = cost_fork.nodes.get(name="critique")
    row = step_row(text, "critique")
    tokens = f"{critique_a.total_tokens:,} → {critique_b.total_tokens:,}"
    difference = critique_b.total_tokens - critique_a.total_tokens
    sign = "+" if difference > 0 else "−"
    assert (
        f'data-label="tokens A → B">{tokens} <span class="change">{sign}{abs(difference):,}' in row
    )
    assert f"${critique_a.cost_usd:.6f} → ${critique_b.cost_usd:.6f}" in row
    assert 'data-label="latency A → B">' in row and " ms → " in row
    # an inherited step paid nothing in the fork
    plan = step_row(text, "plan")
    plan_tokens = research_run.nodes.get(name="plan").total_tokens
    assert f'{plan_tokens:,} → 0 <span class="change">−{plan_tokens:,}</span>' in plan
    assert '<span class="badge src-inherited">inherited</span>' in plan


def test_the_totals_row_sums_what_each_run_executed(signed_in, research_run, cost_fork):
    text = squash(signed_in.get(url(research_run, cost_fork)).content.decode())

    totals = section(text, '<tr class="totals">', "</tr>")
    executed_b = cost_fork.nodes.exclude(cache_source="inherited")
    total_a = sum(n.total_tokens for n in research_run.nodes.all())
    total_b = sum(n.total_tokens for n in executed_b)
    assert f"{total_a:,} → {total_b:,}" in totals
    assert "trajectory hash differs" in totals


def test_an_unknown_cost_is_a_dash_and_has_no_change(signed_in, run_row, node_row):
    a, b = run_row(), run_row()
    node_row(a, 0, cost_usd=Decimal("0.001"), total_tokens=10)
    node_row(b, 0, cost_usd=None, total_tokens=10, output_sha256="f" * 64)

    text = signed_in.get(url(a, b)).content.decode()

    row = step_row(text, "plan")
    assert 'class="num delta unknown" data-label="cost A → B">$0.001000 → —</td>' in row


# --- changed values ---------------------------------------------------------------------------


def test_changed_text_is_highlighted_word_by_word_and_escaped(signed_in, run_row, node_row):
    a, b = run_row(), run_row()
    node_row(a, 0, output={"verdict": "policy C is cheapest <b>now</b>"}, output_sha256="a" * 64)
    node_row(b, 0, output={"verdict": "policy A is cheapest <b>now</b>"}, output_sha256="b" * 64)

    text = squash(signed_in.get(url(a, b)).content.decode())

    item = section(text, '<code class="path">verdict</code>', "</li>")
    assert (
        '<span class="old">policy <del>C</del> is cheapest &lt;b&gt;now&lt;/b&gt;</span> → '
        '<span class="new">policy <ins>A</ins> is cheapest &lt;b&gt;now&lt;/b&gt;</span>'
    ) in item
    assert "<b>now" not in text


def test_a_long_value_is_folded_in_full_never_cut(signed_in, run_row, node_row):
    a, b = run_row(), run_row()
    words = " ".join(f"word{i}" for i in range(200))
    node_row(a, 0, output={"report": words}, output_sha256="a" * 64)
    node_row(
        b, 0, output={"report": words.replace("word150", "changed150")}, output_sha256="b" * 64
    )

    text = signed_in.get(url(a, b)).content.decode()

    item = squash(section(text, '<code class="path">report</code>', "</li>"))
    assert '<details class="long"> <summary>1 changed passage in' in item
    assert "<del>word150</del><ins>changed150</ins>" in item
    assert "word0 word1" in item and "word199" in item  # every word, start to end
    assert "…" not in item


def test_a_long_added_value_is_folded_in_full(signed_in, run_row, node_row):
    a, b = run_row(), run_row()
    long_text = "line one\n" + "x" * 2000
    node_row(a, 0, output={}, output_sha256="a" * 64)
    node_row(b, 0, output={"notes": long_text}, output_sha256="b" * 64)

    text = signed_in.get(url(a, b)).content.decode()

    item = section(text, '<code class="path">notes</code>', "</li>")
    assert "<details" in item and "x" * 2000 in item
    assert '<small class="muted">added</small>' in item


def test_a_changed_number_shows_its_difference(signed_in, run_row, node_row):
    a, b = run_row(), run_row()
    node_row(a, 0, output={"n": 2}, output_sha256="a" * 64)
    node_row(b, 0, output={"n": 5}, output_sha256="b" * 64)

    item = squash(section(signed_in.get(url(a, b)).content.decode(), 'class="path">n<', "</li>"))

    assert (
        '<span class="old">2</span> → <span class="new">5</span> <small class="delta">(+3)</small>'
        in item
    )


# --- trajectories of different shape ---------------------------------------------------------


def test_trajectories_of_different_shape_are_aligned_by_step_and_visit(
    signed_in, run_row, node_row
):
    a, b = run_row(pipeline="loop"), run_row(pipeline="loop")
    for seq, name in enumerate(["ask", "tick", "ask", "tick", "done"]):
        node_row(a, seq, name, output={"v": seq}, output_sha256=f"{seq:064x}")
    for seq, name in enumerate(["ask", "tick", "done"]):
        same = {"ask": 0, "tick": 1}.get(name)
        output = {"v": same} if same is not None else {"v": 99}
        node_row(b, seq, name, output=output, output_sha256=content_sha256(output))
    # make A's first ask/tick hash-equal to B's
    for node in a.nodes.filter(sequence_id__in=[0, 1]):
        node.output_sha256 = content_sha256(node.output)
        node.save()

    text = signed_in.get(url(a, b)).content.decode()

    labels = [
        row.split("</td>", 1)[0].rsplit("<td>", 1)[1]
        for row in section(text, "<tbody>", "</tbody>").split("<tr")[1:]
    ]
    assert labels == ["ask #1", "tick #1", "ask #2", "tick #2", "done"]
    assert "only in run" in step_row(text, "ask #2")
    assert f"only in run {a.pk}" in step_row(text, "tick #2")
    assert "same" in step_row(text, "ask #1") and "different" in step_row(text, "done")
    assert f'<h3>ask #2 <small class="muted">only in run {a.pk}</small></h3>' in text


# --- the artifacts side by side --------------------------------------------------------------


def test_the_artifacts_are_aligned_side_by_side_with_changes_marked(
    signed_in, research_run, cost_fork
):
    text = signed_in.get(url(research_run, cost_fork)).content.decode()

    sbs = section(text, '<div class="sbs" role="table"', '<details class="unified">')
    # the results table row of group A changed: one aligned row, words marked on each side
    changed = [r for r in sbs.split('<div class="sbs-row ')[1:] if "Standard reminders" in r]
    assert len(changed) == 1 and changed[0].startswith("changed")
    assert "<del>562.17</del>" in changed[0] and "<ins>1686.51</ins>" in changed[0]
    # an unchanged line is one row holding the same text on both sides
    question = [r for r in sbs.split('<div class="sbs-row ')[1:] if "**Question:**" in r]
    assert len(question) == 1 and question[0].startswith("equal")
    # the unified diff is still there to copy, folded
    assert '<details class="unified"><summary>Unified diff (to copy)</summary>' in text


def test_artifacts_are_escaped_in_the_side_by_side(signed_in, run_row, settings, tmp_path):
    settings.REWIND_ARTIFACT_DIR = tmp_path
    a, b = run_row(), run_row()
    for run, body in ((a, "<script>alert(1)</script>\nsame\n"), (b, "<img src=x>\nsame\n")):
        path = Path(tmp_path) / f"{run.pk}.md"
        path.write_text(body)
        from runs.lib.hashing import sha256_bytes

        Run.objects.filter(pk=run.pk).update(
            artifact_path=str(path), artifact_sha256=sha256_bytes(path.read_bytes())
        )

    text = signed_in.get(url(a, b)).content.decode()

    assert "<script>alert(1)" not in text and "<img src=x>" not in text
    assert "&lt;script&gt;" in text and "&lt;img" in text


def test_runs_without_artifacts_say_so(signed_in, run_row):
    text = signed_in.get(url(run_row(), run_row())).content.decode()

    assert "Neither run produced an artifact." in text


# --- the hook for noise verdicts -------------------------------------------------------------


def test_the_verdicts_partial_is_included_only_when_the_diff_has_verdicts(
    signed_in, research_run, cost_fork, monkeypatch
):
    import dataclasses

    from runs.views import compare

    real = compare.diff_runs

    def with_verdicts(a, b, referee=None):
        verdicts = [{"node": "analyse", "path": "x", "verdict": "beyond-noise"}]
        return dataclasses.replace(real(a, b, referee=referee), verdicts=verdicts)

    without = signed_in.get(url(research_run, cost_fork))
    monkeypatch.setattr(compare, "diff_runs", with_verdicts)
    with_them = signed_in.get(url(research_run, cost_fork))

    def names(response):
        return [t.name for t in response.templates]

    assert "runs/_verdicts.html" not in names(without)
    assert "runs/_verdicts.html" in names(with_them)


# --- the presentation functions ---------------------------------------------------------------


def test_word_diff_marks_only_the_changed_words_and_keeps_numbers_whole():
    diff = word_diff("cost 1,686.51 per run", "cost 562.17 per run")

    assert diff.old == "cost <del>1,686.51</del> per run"
    assert diff.new == "cost <ins>562.17</ins> per run"
    assert diff.inline == "cost <del>1,686.51</del><ins>562.17</ins> per run"
    assert diff.passages == 1


def test_word_diff_escapes_every_piece():
    diff = word_diff("<a> & b", "<a> & c")

    assert diff.old == "&lt;a&gt; &amp; <del>b</del>"
    assert diff.new == "&lt;a&gt; &amp; <ins>c</ins>"


def test_side_by_side_pairs_replaced_lines_and_folds_long_unchanged_stretches():
    same = [f"line {i}" for i in range(20)]
    a = "\n".join([*same, "old ending", "gone"])
    b = "\n".join(["new first", *same, "new ending"])

    blocks = side_by_side(a, b, context=2)

    kinds = [(block.folded, [line.kind for line in block.lines]) for block in blocks]
    assert kinds == [
        (False, ["added", "equal", "equal"]),
        (True, ["equal"] * 16),
        (False, ["equal", "equal", "changed", "removed"]),
    ]
    changed = blocks[-1].lines[2]
    assert (changed.a_number, changed.b_number) == (21, 22)
    assert changed.a_html == "<del>old</del> ending" and changed.b_html == "<ins>new</ins> ending"
    removed = blocks[-1].lines[3]
    assert (removed.a_number, removed.b_number, removed.b_html) == (22, None, None)


def test_identical_texts_fold_into_one_block():
    blocks = side_by_side("a\nb\nc\nd\ne\nf\ng\nh", "a\nb\nc\nd\ne\nf\ng\nh")

    assert [(b.folded, len(b.lines)) for b in blocks] == [(True, 8)]


def test_a_run_compared_with_itself_says_so_and_offers_the_picker(signed_in, research_run):
    """It said nothing at all (issue 16, also noticed)."""
    page = signed_in.get(f"/compare/{research_run.pk}/{research_run.pk}/")
    picked = signed_in.get(f"/compare/?a={research_run.pk}&b={research_run.pk}")

    for response in (page, picked):
        assert response.status_code == 400
        text = response.content.decode()
        assert f"run {research_run.pk} against itself differs nowhere" in text
        assert 'name="b"' in text  # the picker, to choose another B
    assert signed_in.get("/compare/99999/99999/").status_code == 404
