"""What-if grids on the dashboard: ``/runs/<run>/nodes/<step>/grid/`` makes one (every value
checked before any fork is written; the forks go through the queue), ``/grids/<id>/`` shows
the matrix — a row per value plus the parent, a column per step, each cell coloured by its
output hash and linking to the diff against the parent — and ``/grids/`` lists them."""

from __future__ import annotations

import colorsys
import re

import pytest

from runs.models import Grid, GridRow, Node, Run
from runs.pages.grids import PALETTE, hash_colour, letter_outputs
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
ANALYSE = ORDER.index("analyse")


def new_url(run: Run, sequence_id: int = ANALYSE) -> str:
    return f"/runs/{run.pk}/nodes/{sequence_id}/grid/"


def grid_url(grid: Grid | int) -> str:
    return f"/grids/{getattr(grid, 'pk', grid)}/"


def counts() -> tuple[int, int, int]:
    return Run.objects.count(), Grid.objects.count(), GridRow.objects.count()


@pytest.fixture
def make_grid(signed_in, research_run, immediate_tasks, django_capture_on_commit_callbacks):
    """POST the "try several values" form; the forks run in-process as they are enqueued."""

    def make(field: str, values: list[str], run: Run = research_run) -> Grid:
        with django_capture_on_commit_callbacks(execute=True):
            response = signed_in.post(new_url(run), {"field": field, "values": "\n".join(values)})
        assert response.status_code == 302, response.content.decode()[:2000]
        grid = Grid.objects.get()
        assert response["Location"] == grid_url(grid)
        return grid

    return make


def rows_of(text: str) -> list[str]:
    body = text[text.index('<table class="matrix">') :]
    body = body[: body.index("</table>")]
    return re.findall(r'<tr class="(?:parent|fork)".*?</tr>', body, flags=re.S)


def cells_of(row: str) -> list[tuple[str, str]]:
    """``(state, fill colour or "")`` of each cell of a matrix row."""
    return [(state, colour) for state, _, colour in lettered(row)]


def lettered(row: str) -> list[tuple[str, str, str]]:
    """``(state, letter shown, fill colour or "")`` of each cell of a matrix row."""
    cells = re.findall(
        r'<td class="cell (\w+)"(?: data-letter="[^"]*")?>(.*?)</td>', row, flags=re.S
    )
    return [
        (
            state,
            re.search(r'<span class="label">([^<]*)</span>', body).group(1),
            (re.findall(r'fill="(#[0-9a-f]{6})"', body) or [""])[0],
        )
        for state, body in cells
    ]


# --- access ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/grids/", "/grids/1/", "/runs/1/nodes/0/grid/"])
def test_anonymous_user_is_sent_to_login(client, path):
    response = client.get(path)

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={path}"


def test_anonymous_post_writes_nothing(client, research_run):
    before = counts()

    response = client.post(new_url(research_run), {"field": "args.region", "values": "east"})

    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert counts() == before


def test_unknown_grid_and_step_are_404(signed_in, research_run):
    assert signed_in.get(grid_url(999)).status_code == 404
    assert signed_in.get(new_url(research_run, 99)).status_code == 404


# --- making a grid -----------------------------------------------------------------------------


def test_the_form_offers_the_fields_the_step_consumes_with_values_to_try(signed_in, research_run):
    text = signed_in.get(new_url(research_run) + "?field=args.region").content.decode()

    for name in ("args.region", "args.min_contacts", "args.cost_scale", "output"):
        assert f"<code>{name}</code>" in text
    assert '<input type="hidden" name="field" value="args.region">' in text
    values = re.search(r"<textarea[^>]*>(.*?)</textarea>", text, flags=re.S).group(1)
    assert values.split() == ["all", "east", "north", "south", "west"]  # the declared choices


def test_it_forks_once_per_value_through_the_queue_and_stores_the_grid(
    make_grid, research_run, dev_user
):
    grid = make_grid("args.region", ["all", "east"])

    assert (grid.source, grid.node, grid.sequence_id) == (research_run, "analyse", ANALYSE)
    assert (grid.field, grid.values, grid.created_by) == ("args.region", ["all", "east"], dev_user)
    forks = [row.run for row in grid.rows.order_by("position")]
    assert [f.parent_id for f in forks] == [research_run.pk] * 2
    assert [f.override["value"] for f in forks] == ["all", "east"]
    assert all(f.status == Run.Status.COMPLETED for f in forks)  # ran through the queue


def test_a_bad_value_writes_nothing_and_names_the_value(signed_in, research_run):
    before = counts()

    response = signed_in.post(
        new_url(research_run), {"field": "args.cost_scale", "values": "2\nabc\n3"}
    )

    assert response.status_code == 400
    text = response.content.decode()
    assert "&#x27;abc&#x27;: args.cost_scale: expected float" in text
    assert counts() == before


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"field": "prompt", "values": "x"}, "Select a valid choice"),
        ({"field": "args.region", "values": "east\neast"}, "each value once"),
        ({"field": "args.region", "values": "\n \n"}, "give at least one value"),
        ({"field": "args.min_contacts", "values": "\n".join(map(str, range(51)))}, "at most 50"),
    ],
)
def test_a_refused_form_writes_nothing(signed_in, research_run, data, message):
    before = counts()

    response = signed_in.post(new_url(research_run), data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert counts() == before


def test_an_unfinished_run_cannot_be_gridded(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0, "plan")
    before = counts()

    response = signed_in.post(new_url(run, 0), {"field": "temperature", "values": "0.5"})

    assert response.status_code == 400
    assert "still running" in response.content.decode()
    assert counts() == before


# --- the matrix --------------------------------------------------------------------------------


def test_the_matrix_has_the_parent_and_a_row_per_value_and_a_column_per_step(
    make_grid, signed_in, research_run
):
    grid = make_grid("args.region", ["all", "east"])

    text = signed_in.get(grid_url(grid)).content.decode()

    head = text[text.index('<table class="matrix">') : text.index("</thead>")]
    assert re.findall(r'<th scope="col">(\w+)</th>', head) == [
        "value",
        "outcomes",
        *ORDER,
    ]  # outcomes: the demo declares best_group
    parent, same, east = rows_of(text)
    assert ">parent <code>all</code></a>" in parent  # the value the parent had
    assert "<code>all</code>" in same and "<code>east</code>" in east
    # The parent's outputs are the reference: "=", neutral (no colour).
    assert lettered(parent) == [("source", "=", "")] * len(ORDER)
    # "all" is the value the parent had: every step reproduces the parent's output
    assert lettered(same) == [("same", "=", "")] * len(ORDER)
    # "east": steps before analyse are inherited, analyse and after differ: letter A, coloured
    east_cells = lettered(east)
    assert east_cells[:ANALYSE] == [("same", "=", "")] * ANALYSE
    assert east_cells[ANALYSE] == ("changed", "A", PALETTE[0])


def test_a_cell_of_a_fork_opens_its_diff_against_the_parent(make_grid, signed_in, research_run):
    grid = make_grid("args.region", ["east"])
    fork = grid.rows.get().run

    text = signed_in.get(grid_url(grid)).content.decode()

    _, east = rows_of(text)
    assert east.count(f'href="/compare/{research_run.pk}/{fork.pk}/"') == len(ORDER)
    parent = rows_of(text)[0]
    assert f'href="/runs/{research_run.pk}/nodes/{ANALYSE}/"' in parent


def test_each_distinct_output_of_a_column_has_its_own_letter_and_colour(
    make_grid, signed_in, research_run
):
    grid = make_grid("args.region", ["east", "west", "all"])

    text = signed_in.get(grid_url(grid)).content.decode()

    _, east, west, *_ = rows_of(text)
    a, b = lettered(east)[ANALYSE], lettered(west)[ANALYSE]
    assert a == ("changed", "A", PALETTE[0]) and b == ("changed", "B", PALETTE[1])
    assert 'style="' not in text[text.index('<div id="grid-live">') :]  # CSP: fill attributes


def test_letters_follow_the_order_outputs_appear_in_and_equal_outputs_share_one():
    parent = "p" * 64
    shas = [parent, "b" * 64, "c" * 64, "b" * 64, None, parent, "d" * 64]

    marks = letter_outputs(parent, shas)

    assert [m for m, _ in marks] == ["=", "A", "B", "A", "", "=", "C"]
    assert [c for _, c in marks] == ["", PALETTE[0], PALETTE[1], PALETTE[0], "", "", PALETTE[2]]


def test_distinct_outputs_never_share_a_colour_within_the_palette_and_never_a_letter():
    many = [f"{i:064x}" for i in range(40)]

    marks = letter_outputs(None, many)

    colours = [c for _, c in marks]
    assert len(set(colours[: len(PALETTE)])) == len(PALETTE)  # up to the palette's size
    assert len({m for m, _ in marks}) == len(many)  # beyond it, the letters still differ
    assert [m for m, _ in marks][24:28] == ["Y", "Z", "AA", "AB"]
    assert "#d0d5dd" not in colours and all(c != "" for c in colours)  # never the neutral


def test_the_palette_is_clearly_distinct_and_light_enough_for_dark_text():
    def hls(colour: str) -> tuple[float, float, float]:
        return colorsys.rgb_to_hls(*(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)))

    for colour in PALETTE:
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert 0.2126 * r + 0.7152 * g + 0.0722 * b > 140  # dark letters stay readable
        assert hls(colour)[2] > 0.5  # a colour, not a grey ("=" is grey)
    hues = [hls(colour)[0] * 360 for colour in PALETTE]
    for i, one in enumerate(hues):
        for other in hues[i + 1 :]:
            apart = min(abs(one - other), 360 - abs(one - other))
            assert apart >= 44, (one, other)  # no two near-identical fills (issue 17)


def test_each_row_shows_its_outcomes_and_the_column_hides_without_any(
    make_grid, signed_in, research_run, monkeypatch
):
    grid = make_grid("args.region", ["east"])
    parent, east = research_run, grid.rows.get().run
    best = [run.nodes.get(name="analyse").output["best_group"] for run in (parent, east)]
    assert best[0] != best[1]  # the region changes the winner: the rows must say so

    text = signed_in.get(grid_url(grid)).content.decode()

    assert '<th scope="col">outcomes</th>' in text
    for row, value in zip(rows_of(text), best, strict=True):
        assert f"best_group: <code>{value}</code>" in row
    monkeypatch.setattr("runs.pages.grids.evaluate_runs", lambda runs: {})  # a pipeline with none
    text = signed_in.get(grid_url(grid)).content.decode()
    assert '<th scope="col">outcomes</th>' not in text


def test_hash_colour_is_deterministic_light_and_spreads():
    shas = [f"{i:02x}" * 32 for i in range(40)]

    colours = [hash_colour(s) for s in shas]

    assert colours == [hash_colour(s) for s in shas]
    assert len(set(colours)) > 30
    for colour in colours:
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert 0.2126 * r + 0.7152 * g + 0.0722 * b > 150  # dark text stays readable on it


def test_leaves_of_the_final_output_sit_side_by_side(make_grid, signed_in, research_run):
    grid = make_grid("args.region", ["all", "east"])

    text = signed_in.get(grid_url(grid) + "?leaf=analyse.best_group&leaf=analyse.params.region")

    page = text.content.decode()
    table = page[page.index('<table class="leaves-side">') :]
    table = table[: table.index("</table>")]
    assert (
        "<code>analyse.best_group</code>" in table and "<code>analyse.params.region</code>" in table
    )
    rows = re.findall(r'<tr><th scope="row">.*?</tr>', table, flags=re.S)
    assert len(rows) == 3
    assert re.findall(r'<span class="value">(\w+)</span>', rows[2])[1] == "east"
    assert '<td class="changed"><span class="value">east</span>' in rows[2]


def test_by_default_the_leaves_shown_are_ones_that_differ(make_grid, signed_in):
    grid = make_grid("args.region", ["east"])

    page = signed_in.get(grid_url(grid)).content.decode()

    start = page.index('<table class="leaves-side">')
    table = page[start : page.index("</table>", start)]
    assert 'class="changed"' in table


def test_an_unknown_leaf_is_a_400(make_grid, signed_in):
    grid = make_grid("args.region", ["east"])

    assert signed_in.get(grid_url(grid) + "?leaf=nope.nothing").status_code == 400


def test_while_forks_run_the_matrix_polls_and_stops_with_286_once_finished(
    signed_in, run_row, node_row
):
    parent = run_row()
    fork = run_row(parent=parent, status=Run.Status.QUEUED, override={"field": "f", "value": 1})
    for seq, name in enumerate(["plan", "analyse"]):
        node_row(parent, seq, name)
    node_row(fork, 0, "plan", cache_source=Node.CacheSource.INHERITED)
    grid = Grid.objects.create(
        source=parent, node="analyse", sequence_id=1, field="f", values=["1"]
    )
    GridRow.objects.create(grid=grid, position=0, run=fork)

    page = signed_in.get(grid_url(grid)).content.decode()
    fragment = signed_in.get(grid_url(grid), headers=HTMX)

    assert 'hx-trigger="every 2s"' in page and '<meta http-equiv="refresh"' in page
    assert fragment.status_code == 200
    assert "<html" not in fragment.content.decode()
    assert '<td class="cell pending">' in fragment.content.decode()
    Run.objects.filter(pk=fork.pk).update(status=Run.Status.COMPLETED)
    done = signed_in.get(grid_url(grid), headers=HTMX)
    assert done.status_code == 286
    assert "every 2s" not in done.content.decode()
    assert '<td class="cell missing">' in done.content.decode()


# --- the list ----------------------------------------------------------------------------------


def test_the_list_shows_each_grid_with_its_run_field_values_and_progress(
    make_grid, signed_in, research_run
):
    grid = make_grid("args.region", ["all", "east"])

    text = signed_in.get("/grids/").content.decode()

    assert f'<a href="/grids/{grid.pk}/">grid {grid.pk}</a>' in text
    assert f'href="/runs/{research_run.pk}/"' in text
    assert "<code>args.region</code>" in text and "<code>all</code>, <code>east</code>" in text
    assert "2 finished" in text and "by dev" in text


def test_the_list_is_a_400_for_a_bad_page(signed_in):
    assert signed_in.get("/grids/?page=zero").status_code == 400


# --- constant queries ----------------------------------------------------------------------------


def _wide_grid(run_row, node_row, steps: int, forks: int = 3) -> Grid:
    parent = run_row()
    for seq in range(steps):
        node_row(parent, seq, f"step{seq}", output={"n": seq})
    grid = Grid.objects.create(
        source=parent, node="step1", sequence_id=1, field="temperature",
        values=[str(i) for i in range(forks)],
    )  # fmt: skip
    for i in range(forks):
        fork = run_row(parent=parent, override={"field": "temperature", "value": i})
        for seq in range(steps):
            node_row(fork, seq, f"step{seq}", output={"n": seq + (i if seq else 0)})
        GridRow.objects.create(grid=grid, position=i, run=fork)
    return grid


@pytest.mark.parametrize("steps", [10, 500])
def test_the_grid_page_makes_the_same_queries_at_any_size(
    signed_in, run_row, node_row, django_assert_num_queries, steps
):
    grid = _wide_grid(run_row, node_row, steps)

    with django_assert_num_queries(7):
        # 1. the session  2. the user
        # 3. the grid with its source run and creator (one join)
        # 4. its rows with their runs (one join)
        # 5. every step of the parent and of every fork, in one query
        # 6. the dashboard's outcomes of the pipeline  7. the steps the outcomes read, for
        # every row at once (runs.engine.analysis.outcomes.evaluate_runs)
        response = signed_in.get(grid_url(grid))
    assert response.status_code == 200
    assert response.content.decode().count('<td class="cell ') == steps * 4


@pytest.mark.parametrize("grids", [2, 30])
def test_the_list_makes_the_same_queries_at_any_size(
    signed_in, run_row, django_assert_num_queries, grids
):
    source = run_row()
    for i in range(grids):
        Grid.objects.create(source=source, node="plan", sequence_id=0, field="f", values=[str(i)])

    with django_assert_num_queries(4):
        # 1. the session  2. the user  3. the count for the pager
        # 4. one page of grids with their run, creator and row counts
        assert signed_in.get("/grids/").status_code == 200


# --- the admin ---------------------------------------------------------------------------------


def test_the_admin_lists_grids_and_shows_their_forks_read_only(admin_client, make_grid):
    grid = make_grid("args.region", ["east"])
    fork = grid.rows.get().run

    listing = admin_client.get("/admin/runs/grid/")
    page = admin_client.get(f"/admin/runs/grid/{grid.pk}/change/")

    assert listing.status_code == 200 and f"run {grid.source_id}" in listing.content.decode()
    text = page.content.decode()
    assert page.status_code == 200
    assert f'href="/admin/runs/run/{fork.pk}/change/">run {fork.pk}</a>' in text
    assert f'href="/grids/{grid.pk}/"' in text
    assert 'name="_save"' not in text  # a view page: nothing to change


def test_without_a_choice_the_form_varies_a_declared_choice(signed_in, research_run):
    text = signed_in.get(new_url(research_run)).content.decode()

    assert '<input type="hidden" name="field" value="args.region">' in text
    assert '<a href="?field=args.region" aria-current="true">' in text


# --- a crossed grid ------------------------------------------------------------------------------


def crossed_form(**extra: str) -> dict[str, str]:
    return {
        "field": "args.region",
        "values": "east\nwest",
        "cross_field": "args.min_contacts",
        "cross_values": "2\n3",
        **extra,
    }


def test_the_form_offers_a_second_field_to_cross_with(signed_in, research_run):
    text = signed_in.get(new_url(research_run) + "?field=args.region&cross=args.cost_scale")
    page = text.content.decode()

    assert '<select name="cross_field"' in page
    assert '<option value="args.min_contacts">args.min_contacts</option>' in page
    assert '<option value="args.cost_scale" selected>args.cost_scale</option>' in page
    cross = re.search(r'<textarea name="cross_values"[^>]*>(.*?)</textarea>', page, flags=re.S)
    assert cross.group(1).split()  # values suggested for the second field


def test_a_crossed_grid_forks_each_value_s_fork_once_per_cross_value(
    signed_in, research_run, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(new_url(research_run), crossed_form())
    assert response.status_code == 302, response.content.decode()[:2000]
    grid = Grid.objects.get()

    assert (grid.field, grid.cross_field, grid.cross_values) == (
        "args.region", "args.min_contacts", ["2", "3"],
    )  # fmt: skip
    rows = list(grid.rows.select_related("run"))
    assert [(r.position, r.cross_position) for r in rows] == [
        (0, None), (0, 0), (0, 1), (1, None), (1, 0), (1, 1),
    ]  # fmt: skip
    east, west = rows[0].run, rows[3].run
    assert [r.run.parent_id for r in rows] == [research_run.pk, east.pk, east.pk] + [
        research_run.pk, west.pk, west.pk,
    ]  # fmt: skip
    assert all(r.run.status == Run.Status.COMPLETED for r in rows)  # every fork ran (queue)
    west_3 = rows[5].run.nodes.get(sequence_id=ANALYSE).inputs["args"]
    assert (west_3["region"], west_3["min_contacts"]) == ("west", 3)


def test_the_crossed_matrix_labels_each_row_by_both_values(
    signed_in, research_run, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        signed_in.post(new_url(research_run), crossed_form())
    grid = Grid.objects.get()
    parent_contacts = research_run.nodes.get(sequence_id=ANALYSE).inputs["args"]["min_contacts"]

    text = signed_in.get(grid_url(grid)).content.decode()

    assert "<code>args.region</code> × <code>args.min_contacts</code>" in text
    rows = rows_of(text)
    assert len(rows) == 1 + 2 * 3
    labels = [re.sub(r"<[^>]+>|\s+", " ", r[: r.index("</a>")]).split() for r in rows]
    assert [label[-3:] if "(as" not in label else label[-6:-3] for label in labels] == [
        ["all", "×", str(parent_contacts)],
        ["east", "×", str(parent_contacts)], ["east", "×", "2"], ["east", "×", "3"],
        ["west", "×", str(parent_contacts)], ["west", "×", "2"], ["west", "×", "3"],
    ]  # fmt: skip
    assert "(as the parent)" in rows[1] and "(as the parent)" not in rows[2]
    # one letter per distinct output of a column, across every row of both fields
    column = [lettered(row)[ANALYSE][1] for row in rows]
    assert column[0] == "=" and len(set(column[1:])) == len(column) - 1  # six outputs
    side = text[text.index('<table class="leaves-side">') :]
    assert side.count('<span class="cross-by"') == len(rows)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"cross_values": "2\n99"}, "&#x27;99&#x27;: args.min_contacts: must be"),
        ({"cross_field": "args.region"}, "not with itself"),
        ({"cross_values": ""}, "give the values of args.min_contacts"),
        ({"cross_field": ""}, "choose the field these values are for"),
        (
            {
                "field": "args.min_contacts",
                "values": "\n".join(map(str, range(1, 7))),
                "cross_field": "args.cost_scale",
                "cross_values": "\n".join(map(str, range(1, 10))),
            },
            "6 × (1 + 9) = 60 forks; a grid makes at most 50",
        ),
    ],
)
def test_a_refused_crossed_grid_writes_nothing(signed_in, research_run, extra, message):
    before = counts()

    response = signed_in.post(new_url(research_run), crossed_form(**extra))

    assert response.status_code == 400
    assert message in response.content.decode()
    assert counts() == before


def test_the_admin_shows_a_crossed_grid_s_second_field_and_each_cell_s_value(
    admin_client, research_run
):
    from runs.engine.run_sets.grids import make_grid, resolve_grid

    grid, _ = make_grid(
        resolve_grid(research_run, "analyse", "args.region", ["east"], "args.min_contacts", ["3"])
    )

    text = admin_client.get(f"/admin/runs/grid/{grid.pk}/change/").content.decode()

    assert "args.min_contacts = 3" in text  # the cell's row
    assert text.count("args.min_contacts") >= 2  # the grid's second field too
