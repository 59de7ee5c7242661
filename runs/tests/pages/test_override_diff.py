"""A long override is shown by what changed (issue 16, item 8).

The runs list shows a fork's first changed words — the override word-diffed against the value
the source step had (what the fork editor pre-filled) — instead of the first characters of a
prompt, which are the part that did not change; the compare page shows the override itself
word-diffed against the old value. Both use ``runs.pages.compare``'s one word diff, and the list
reads the source value in its own SELECT: no query is added.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.engine.apps.registry import get_pipeline
from runs.engine.forking.forks import create_fork
from runs.engine.forking.overrides import current_fields
from runs.lib.words import first_change, word_diff
from runs.models import Run

pytestmark = pytest.mark.django_db

CRITIQUE = 3  # the research pipeline's critique step: an llm node with a long prompt


def old_prompt(run: Run, step: int = CRITIQUE) -> str:
    node = run.nodes.get(sequence_id=step)
    return current_fields(get_pipeline(run.pipeline).node(node.name), node)["prompt"]


def edited(prompt: str) -> str:
    """The prompt with one word of its last line changed: its start is untouched."""
    assert "List the weaknesses" in prompt
    return prompt.replace("List the weaknesses", "List the strengths")


def row_of(text: str, run: Run) -> str:
    start = text.index(f'value="{run.pk}" aria-label="select run {run.pk} to compare"')
    return text[start : text.index("</tr>", start)]


# --- the first change -------------------------------------------------------------------------


def test_first_change_is_the_words_around_the_first_difference():
    a = "You are a careful analyst. Summarise the outreach experiment for the board, in plain words."
    b = a.replace("for the board", "for the regional managers")

    change = first_change(a, b)

    assert change.html == (
        "…outreach experiment for the <del>board</del><ins>regional managers</ins>, in plain words."
    )
    assert change.passages == 1 and change.more == 0


def test_first_change_counts_the_other_changes_and_marks_what_is_left_out():
    a = " ".join(f"word{i}" for i in range(60))
    b = a.replace("word10", "ten").replace("word50", "fifty")

    change = first_change(a, b)

    assert change.html.startswith("…word6 word7 word8 word9 <del>word10</del><ins>ten</ins>")
    assert change.html.endswith("word11 word12 word13 word14…")
    assert change.passages == 2 and change.more == 1


def test_first_change_cuts_a_long_replacement_and_escapes_text():
    a = "keep <b>this</b> old"
    b = "keep <b>this</b> <script>alert(1)</script>" + "y" * 100

    html = first_change(a, b).html

    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;this&lt;/b&gt;" in html
    inserted = re.search(r"<ins>(.*?)</ins>", html).group(1)
    assert inserted.endswith("…") and len(inserted) < 120


def test_equal_texts_have_no_first_change():
    assert first_change("same words", "same words") is None


def test_a_word_diff_of_a_long_prompt_finds_its_one_change():
    """Between the texts' common start and end only: exact matching over every repeated space
    of a 60 KB text was quadratic."""
    words = [f"w{i % 997}x{i}" for i in range(8000)]
    a = " ".join(words)
    b = a.replace(" w15x4003 ", " CHANGED ")

    diff = word_diff(a, b)

    assert diff.passages == 1
    assert "<del>w15x4003</del>" in diff.old and "<ins>CHANGED</ins>" in diff.new
    assert diff.inline.count("<del>") == diff.inline.count("<ins>") == 1


def test_a_word_diff_with_changes_far_apart_still_finds_both():
    words = [f"w{i % 50}" for i in range(6000)]  # many repeated words: the heuristic's path
    a = " ".join(words)
    b = "START " + a + " END"

    diff = word_diff(a, b)

    assert diff.passages == 2
    assert diff.new.startswith("<ins>START </ins>") and diff.new.endswith("<ins> END</ins>")


# --- the runs list ----------------------------------------------------------------------------


def test_anonymous_user_sees_no_list(client):
    assert client.get("/runs/").status_code == 302


def test_the_list_shows_the_changed_words_of_a_long_prompt(signed_in, research_run):
    prompt = old_prompt(research_run)
    fork = create_fork(research_run, "critique", "prompt", edited(prompt))

    row = row_of(signed_in.get("/runs/").content.decode(), fork)

    assert "<code>prompt</code> changed:" in row
    assert "<del>weaknesses</del><ins>strengths</ins>" in row
    assert "…" in row and "List the " in row
    # not the first characters of the prompt: they did not change
    assert prompt[:30].split("\n")[0] not in row


def test_a_search_lists_the_changed_words_too(signed_in, research_run):
    fork = create_fork(research_run, "critique", "prompt", edited(old_prompt(research_run)))

    row = row_of(signed_in.get("/runs/", {"q": "strengths"}).content.decode(), fork)

    assert "<del>weaknesses</del><ins>strengths</ins>" in row


def test_a_short_value_is_listed_whole(signed_in, research_run):
    fork = create_fork(research_run, "analyse", "args.cost_scale", "3")

    row = row_of(signed_in.get("/runs/").content.decode(), fork)

    assert "<code>args.cost_scale</code> = <code" in row and ">3.0</code>" in row
    assert "<del>" not in row


def test_a_fork_whose_pipeline_is_gone_is_listed_by_its_value(signed_in, research_run, settings):
    fork = create_fork(research_run, "critique", "prompt", edited(old_prompt(research_run)))
    settings.REWIND_PIPELINES = {}  # the source value cannot be read as a field any more

    response = signed_in.get("/runs/")

    row = row_of(response.content.decode(), fork)
    assert response.status_code == 200
    assert "<code>prompt</code> = <code" in row and "<del>" not in row


def count_queries(client, params: dict | None = None) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/runs/", params or {}).status_code == 200
    return len(queries.captured_queries)


def test_long_prompt_forks_add_no_query(signed_in, research_run):
    create_fork(research_run, "analyse", "args.cost_scale", "3")
    few = count_queries(signed_in)
    prompt = old_prompt(research_run)
    for word in ("strengths", "risks", "gaps"):
        create_fork(research_run, "critique", "prompt", prompt.replace("weaknesses", word))

    # 1. the session  2. the user  3. COUNT(*) of roots  4. the ids of the page's roots
    # 5. those roots with their totals  6. their descendants counted by kind  7. the newest
    # few descendants, each with its source value as a subquery: nothing per row  8. the
    # dashboard's outcomes of the page's pipelines  9. the steps the outcomes read
    assert few == count_queries(signed_in) == 9
    # a search: the session, the user, COUNT(*) of matches, the ids of the page's matches,
    # those runs (the matches are queued forks: no outcomes to read yet)
    assert count_queries(signed_in, {"q": "prompt"}) == 5


# --- the compare page -------------------------------------------------------------------------


def test_anonymous_user_sees_no_compare_page(client, research_run):
    response = client.get(f"/compare/{research_run.pk}/{research_run.pk}/")

    assert response.status_code == 302


def test_compare_shows_a_long_override_word_diffed_against_the_old_value(
    signed_in, research_run, run_fork
):
    prompt = old_prompt(research_run)
    fork = run_fork(research_run, "critique", "prompt", edited(prompt) + "\n" + "Be brief. " * 40)
    assert fork.status == Run.Status.COMPLETED, fork.error

    text = signed_in.get(f"/compare/{research_run.pk}/{fork.pk}/").content.decode()

    section = text[text.index('<section class="override-diff"') :]
    section = section[: section.index("</section>")]
    assert "The change to <code>prompt</code>" in section
    assert "2 changed passages" in section
    diff = section[section.index('<div class="text inline-diff">') :]
    assert "<del>weaknesses</del><ins>strengths</ins>" in diff
    assert diff.count("<ins>") == 2  # the word, then the added lines


def test_compare_names_what_a_short_override_replaced(signed_in, research_run, run_fork):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")

    text = signed_in.get(f"/compare/{research_run.pk}/{fork.pk}/").content.decode()

    assert "with <code>args.cost_scale</code> = <code>3.0</code> (was <code>1.0</code>)." in text


# --- the run page's header ----------------------------------------------------------------------


def test_the_run_page_names_a_long_overrides_changed_words(signed_in, research_run):
    fork = create_fork(research_run, "critique", "prompt", edited(old_prompt(research_run)))

    for url in (f"/runs/{fork.pk}/", f"/runs/{fork.pk}/nodes/0/"):
        text = signed_in.get(url).content.decode()
        header = text[
            text.index('<p class="meta">') : text.index("</p>", text.index('<p class="meta">'))
        ]
        assert "with <code>prompt</code> changed:" in header
        assert "<del>weaknesses</del><ins>strengths</ins>" in header


def test_the_run_page_header_of_a_short_override_reads_no_source_step(signed_in, research_run):
    fork = create_fork(research_run, "analyse", "args.cost_scale", "3")

    with CaptureQueriesContext(connection) as queries:
        text = signed_in.get(f"/runs/{fork.pk}/").content.decode()

    assert "with <code>args.cost_scale</code> = <code>3.0</code>" in text
    # 1. session  2. user  3. the run (its parent joined)  4. its steps  5. the cache usage of
    # its inherited llm step  6. the dashboard's outcomes of its pipeline: no query for the
    # source step
    sql = [q["sql"] for q in queries.captured_queries]
    assert len(sql) == 6, "\n".join(sql)
    assert sum('FROM "runs_node"' in q for q in sql) == 1
