"""The dashboard's side of importing Burr's history (issue 18, item 7 and the pages of items
1–3): the Import page (staff only) runs the same import as ``rewind_import`` and shows its
report; the runs list filters and badges imported runs; a run's page says where it came from,
what spawned it and what it spawned; a step shows its spans; an imported run whose app is not
registered says what to register instead of offering a fork that could only fail."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import burr
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.engine.imports.service import import_path
from runs.engine.imports.writing import NO_CALLS
from runs.models import BurrState, Node, Run

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"
COUNTER = DEMO / "demo_counter"


def imported(project: str, app_id: str) -> Run:
    return Run.objects.get(imported_from__project=project, imported_from__app_id=app_id)


def counts() -> tuple[int, int, int]:
    return Run.objects.count(), Node.objects.count(), BurrState.objects.count()


# --- the Import page ------------------------------------------------------------------------


def test_a_good_import_lists_the_runs_it_made_with_links(staff_client):
    response = staff_client.post("/import/", {"path": str(COUNTER)})
    page = response.content.decode()
    assert response.status_code == 200
    runs = list(Run.objects.order_by("pk"))
    assert len(runs) == 5
    for run in runs:
        app = run.imported_from["app_id"]
        assert (
            f'<a href="/runs/{run.pk}/">run {run.pk}</a> <span class="muted">demo_counter/{app}'
            in page
        )
    assert "Imported <small" in page and "5 runs" in page


def test_a_second_import_shows_nothing_new(staff_client):
    staff_client.post("/import/", {"path": str(COUNTER)})
    before = counts()
    page = staff_client.post("/import/", {"path": str(COUNTER)}).content.decode()
    assert counts() == before
    assert "5 already imported, nothing new." in page
    assert "Imported <small" not in page and 'class="imported-runs"' not in page


def test_the_options_reach_the_import(staff_client):
    response = staff_client.post(
        "/import/", {"path": str(DEMO), "project": "demo_counter", "app_id": "count-to-1",
                     "pipeline": "counter_app"},
    )  # fmt: skip
    assert response.status_code == 200
    run = Run.objects.get()
    assert run.pipeline == "counter_app"
    assert run.imported_from["app_id"] == "count-to-1"


@pytest.mark.parametrize(
    "name, message",
    [
        ("missing", "no such directory"),
        ("a-file", "not a directory"),
        ("empty", "no Burr tracker log here"),
    ],
)
def test_a_bad_path_is_the_form_again_with_its_one_line_reason(
    staff_client, tmp_path, name, message
):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "empty").mkdir()
    response = staff_client.post("/import/", {"path": str(tmp_path / name)})
    page = response.content.decode()
    assert response.status_code == 400
    assert f'<p class="error" role="alert">{tmp_path / name}: {message}' in page
    assert 'name="path"' in page and f'value="{tmp_path / name}"' in page  # the form again
    assert counts() == (0, 0, 0)


def test_neither_or_both_sources_is_a_400(staff_client):
    for data in ({}, {"path": str(COUNTER), "persister": "sqlite:///x.db"}):
        response = staff_client.post("/import/", data)
        assert response.status_code == 400
        assert "give a tracker directory or a persister database (one of them)" in (
            response.content.decode()
        )
    assert counts() == (0, 0, 0)


def test_a_bad_persister_is_a_400_and_its_password_never_shown(staff_client, tmp_path):
    response = staff_client.post(
        "/import/", {"persister": "mysql://reader:s3cret-pw@db.example/burr", "table": "burr_state"}
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "give sqlite:///path/to/file.db or postgresql://user@host/db" in page
    assert "s3cret-pw" not in page
    response = staff_client.post("/import/", {"persister": f"sqlite:///{tmp_path}/none.db"})
    assert response.status_code == 400 and "no such SQLite file" in response.content.decode()


def test_a_corrupt_line_is_shown_with_its_file_and_line(staff_client, tmp_path):
    root = tmp_path / "burr"
    for app in ("count-to-10", "count-to-42"):
        shutil.copytree(COUNTER / app, root / "demo_counter" / app)
    log = root / "demo_counter" / "count-to-10" / "log.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    lines[6] = lines[6][: len(lines[6]) // 2] + "\n"
    log.write_text("".join(lines))
    response = staff_client.post("/import/", {"path": str(root)})
    page = response.content.decode()
    assert response.status_code == 200  # the sibling imported
    assert f'<code class="where">{log.resolve()}:7</code>' in page
    assert "not a JSON object" in page
    assert imported("demo_counter", "count-to-42")
    assert not Run.objects.filter(imported_from__app_id="count-to-10").exists()


def test_htmx_gets_the_panel_not_the_page(staff_client):
    response = staff_client.post("/import/", {"path": str(COUNTER)}, headers={"HX-Request": "true"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in page and 'class="import-report has-report"' in page
    bad = staff_client.post("/import/", {"path": "/no/such/dir"}, headers={"HX-Request": "true"})
    assert bad.status_code == 400 and "<html" not in bad.content.decode()


def test_non_staff_are_refused_and_nothing_is_imported(signed_in):
    assert signed_in.get("/import/").status_code == 403
    assert signed_in.post("/import/", {"path": str(COUNTER)}).status_code == 403
    assert counts() == (0, 0, 0)
    assert 'href="/import/"' not in signed_in.get("/runs/").content.decode()


def test_anonymous_users_are_sent_to_sign_in(client, db):
    response = client.post("/import/", {"path": str(COUNTER)})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert counts() == (0, 0, 0)


def test_staff_see_the_page_and_the_nav_link(staff_client):
    page = staff_client.get("/import/").content.decode()
    assert "<h1>Import Burr history</h1>" in page
    assert '<a href="/import/">Import</a>' in page
    assert 'value="burr_state"' in page


# --- the runs list --------------------------------------------------------------------------


@pytest.fixture
def mixed(db, run_row) -> tuple[Run, Run]:
    """One imported run (demo_counter/count-to-1) and one made here."""
    import_path(COUNTER / "count-to-1")
    return imported("demo_counter", "count-to-1"), run_row()


def _rows(page: str) -> set[int]:
    return {int(n) for n in re.findall(r'name="run" value="(\d+)"', page)}


@pytest.mark.parametrize("flat", [False, True])
def test_the_origin_filter_lists_imported_or_made_here(signed_in, mixed, flat):
    ours, theirs = mixed
    extra = "&status=completed" if flat else ""
    assert _rows(signed_in.get("/runs/?origin=imported" + extra).content.decode()) == {ours.pk}
    assert _rows(signed_in.get("/runs/?origin=here" + extra).content.decode()) == {theirs.pk}
    assert _rows(signed_in.get("/runs/?" + extra).content.decode()) == {ours.pk, theirs.pk}
    assert signed_in.get("/runs/?origin=elsewhere").status_code == 400


def test_an_imported_row_has_a_badge_and_says_where_it_came_from(signed_in, mixed):
    page = signed_in.get("/runs/").content.decode()
    assert page.count('<span class="badge imported"') == 1
    assert "from demo_counter/count-to-1" in page
    assert '<option value="imported" >imported</option>' in page  # the filter's choices


def test_the_filter_survives_pagination(signed_in, run_row, mixed):
    for _ in range(30):
        run_row()
    page = signed_in.get("/runs/?origin=here&status=completed").content.decode()
    assert "?status=completed&amp;origin=here&amp;page=2" in page
    assert '<option value="here" selected>made here</option>' in page


def test_the_filter_costs_no_query_more(signed_in, mixed):
    def queries(url: str) -> tuple[int, set[int]]:
        with CaptureQueriesContext(connection) as ctx:
            page = signed_in.get(url).content.decode()
        return len(ctx.captured_queries), _rows(page)

    # The same rows listed by the origin as by the pipeline: the same queries (session, user,
    # the page's count and rows, the lineage, the outcomes), the origin one more WHERE clause.
    assert queries("/runs/?origin=imported") == queries("/runs/?pipeline=demo_counter")
    assert queries("/runs/?origin=here") == queries("/runs/?pipeline=research")
    flat = "&status=completed"
    assert queries("/runs/?origin=here" + flat) == queries("/runs/?pipeline=research" + flat)


# --- the run and step pages -----------------------------------------------------------------


def test_an_imported_runs_page_says_where_from_and_when(signed_in, db):
    import_path(COUNTER / "count-to-1")
    run = imported("demo_counter", "count-to-1")
    page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    stamp = run.created_at.strftime("%Y-%m-%d %H:%M")
    assert (
        f"Imported from <strong>demo_counter/count-to-1</strong> "
        f"(<code>{(COUNTER / 'count-to-1').resolve()}</code>) on "
    ) in page
    assert f">{stamp}</time>" in page
    assert NO_CALLS in page  # "calls not recorded: …", in the run's warnings
    assert "live mode: cache reads skipped" not in page


def test_spawned_by_and_sub_applications_link_both_ways(signed_in, run_row):
    origin = {"path": "/burr", "project": "p", "app_id": "parent"}
    parent = run_row(pipeline="p", imported_from=origin)
    kids = [
        run_row(pipeline="p", imported_from={**origin, "app_id": f"kid{i}"}, spawned_by=parent,
                spawned_sequence_id=2)
        for i in range(2)
    ]  # fmt: skip
    page = signed_in.get(f"/runs/{parent.pk}/").content.decode()
    assert "sub-applications: " in page
    for kid in kids:
        assert (
            f'<a href="/runs/{kid.pk}/">run {kid.pk}</a> <span class="muted">(step 2)</span>'
            in page
        )
    child = signed_in.get(f"/runs/{kids[0].pk}/").content.decode()
    assert f'spawned by <a href="/runs/{parent.pk}/nodes/2/">run {parent.pk} at step 2</a>' in child
    assert "sub-application" not in child


def test_a_run_made_here_costs_no_query_for_sub_applications(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0)
    with CaptureQueriesContext(connection) as ctx:
        page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert "Imported from" not in page
    asked = [q["sql"] for q in ctx.captured_queries if re.search(r'spawned_by_id"? = ', q["sql"])]
    assert asked == []


def test_a_step_shows_its_spans_with_durations_and_attributes(signed_in, db):
    import_path(DEMO / "demo_chatbot_with_traces" / "chat-1-giraffe")
    run = imported("demo_chatbot_with_traces", "chat-1-giraffe")
    first = run.nodes.get(sequence_id=0)
    assert first.spans
    page = signed_in.get(f"/runs/{run.pk}/nodes/0/").content.decode()
    assert '<details class="spans"' in page
    assert '<span class="span-name">process_prompt</span>' in page
    assert "<dt><code>prompt</code></dt><dd>Please draw a giraffe.</dd>" in page
    assert " ms</span>" in page
    # It ran in the program that logged it, not here: the step says so, not "tokens charged".
    assert "ran in the program whose Burr log this run was imported from" in page
    # htmx (a click on a step) gets the same section in the inspector fragment.
    fragment = signed_in.get(f"/runs/{run.pk}/nodes/0/", headers={"HX-Request": "true"})
    assert (
        "<html" not in fragment.content.decode() and "process_prompt" in fragment.content.decode()
    )
    assert '<span class="badge src-live">live</span> ran in the program whose Burr log' in (
        fragment.content.decode()
    )


def test_a_step_without_spans_shows_no_section(signed_in, research_run):
    assert (
        '<details class="spans"'
        not in signed_in.get(f"/runs/{research_run.pk}/nodes/0/").content.decode()
    )


# --- forking an imported run whose app is not registered ----------------------------------


@pytest.fixture
def unregistered_import(db) -> Run:
    import_path(COUNTER / "count-to-1")
    return imported("demo_counter", "count-to-1")


HINT = "To fork this run, register its app as &#x27;demo_counter&#x27; in REWIND_PIPELINES"


def test_the_run_and_step_pages_say_what_to_register(signed_in, unregistered_import):
    run = unregistered_import
    page = signed_in.get(f"/runs/{run.pk}/").content.decode()
    assert HINT in page
    assert "REWIND_PIPELINES=&quot;demo_counter=your.module.application&quot;" in page
    step = signed_in.get(f"/runs/{run.pk}/nodes/0/").content.decode()
    assert "Fork from here" not in step and "not forkable here" in step


@pytest.mark.parametrize("htmx", [False, True])
def test_the_fork_editor_says_what_to_register_and_a_post_is_a_400(
    signed_in, unregistered_import, htmx
):
    run = unregistered_import
    headers = {"HX-Request": "true"} if htmx else {}
    url = f"/runs/{run.pk}/nodes/0/fork/"
    editor = signed_in.get(url, headers=headers)
    assert editor.status_code == 200
    assert (
        HINT in editor.content.decode() and "Fork with this change" not in editor.content.decode()
    )
    before = counts()
    for data in ({"replay": "1"}, {"output": '{"counter": 7}'}):
        refused = signed_in.post(url, data, headers=headers)
        assert refused.status_code == 400 and HINT in refused.content.decode()
    assert signed_in.post(f"/runs/{run.pk}/replay/").status_code == 400
    assert counts() == before


def test_registered_under_its_name_the_hint_goes_away(signed_in, unregistered_import, settings):
    settings.REWIND_PIPELINES = {
        **settings.REWIND_PIPELINES, "demo_counter": "runs.bench.pipelines.loop.application",
    }  # fmt: skip
    page = signed_in.get(f"/runs/{unregistered_import.pk}/").content.decode()
    assert "To fork this run" not in page and "does not know the app" not in page
