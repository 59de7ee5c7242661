"""``/compare/<a>/<b>/``: the verdict (first divergence, or "identical" for an unchanged
replay), the per-step table (output hashes, deltas) with its "different only" toggle, the
changed fields and the artifact diff; htmx gets the ``#diff`` fragment. Comparing any two
runs, word-level highlights and the side-by-side artifact are in ``test_compare_any.py``."""

from __future__ import annotations

import pytest

from runs.models import Run

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(a: Run | int, b: Run | int, query: str = "") -> str:
    return f"/compare/{getattr(a, 'pk', a)}/{getattr(b, 'pk', b)}/{query}"


@pytest.fixture
def cost_fork(research_run, run_fork) -> Run:
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    return fork


def hash_rows(text: str) -> list[tuple[str, str]]:
    """``[(node name, "same" | "different")]`` from the hash table."""
    start = text.index('<table class="hashes steps">')
    table = text[start : text.index("<tfoot>", start)]
    found = []
    for row in table.split('<tr class="')[1:]:
        kind = row.split('"', 1)[0]
        name = row.split("<td>", 1)[1].split("</td>", 1)[0]
        found.append((name, kind))
    return found


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, run_row):
    a, b = run_row(), run_row()

    response = client.get(url(a, b, "?only=different"))

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/compare/{a.pk}/{b.pk}/%3Fonly%3Ddifferent"


def test_an_unknown_run_is_404(signed_in, run_row):
    run = run_row()

    assert signed_in.get(url(run, run.pk + 1000)).status_code == 404
    assert signed_in.get(url(run.pk + 1000, run)).status_code == 404


@pytest.mark.parametrize("query", ["?only=x", "?only=same", "?only=" + "d" * 300])
def test_a_bad_parameter_is_400(signed_in, run_row, query):
    a, b = run_row(), run_row()

    response = signed_in.get(url(a, b, query))

    assert response.status_code == 400
    assert "bad parameter" in response.content.decode()


def test_post_is_not_allowed(signed_in, run_row):
    assert signed_in.post(url(run_row(), run_row())).status_code == 405


# --- a fork that changed something -----------------------------------------------------------


def test_it_names_the_first_divergence_and_its_fields(signed_in, research_run, cost_fork):
    response = signed_in.get(url(research_run, cost_fork))

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" in text
    assert (
        f"Run {cost_fork.pk} forked run {research_run.pk} at <strong>analyse</strong> with "
        "<code>args.cost_scale</code> = <code>3.0</code>"
    ) in text
    verdict = text[text.index('<p class="verdict diverged">') :]
    verdict = verdict[: verdict.index("</p>")]
    assert "First divergence: <strong>analyse</strong> (step 2)" in verdict
    assert "<code>groups.A.total_cost</code>" in verdict
    assert "<code>groups.A.cost_per_conversion</code>" in verdict


def test_the_hash_table_has_every_node(signed_in, research_run, cost_fork):
    text = signed_in.get(url(research_run, cost_fork)).content.decode()

    assert hash_rows(text) == [
        ("plan", "same"),
        ("research", "same"),
        ("analyse", "different"),
        ("critique", "different"),
        ("revise", "different"),
        ("compose", "different"),
        ("verify", "same"),  # verify's result does not carry the cost numbers it checked
        ("publish", "different"),
    ]
    analyse_a = research_run.nodes.get(name="analyse").output_sha256
    analyse_b = cost_fork.nodes.get(name="analyse").output_sha256
    assert f'<code class="sha" title="{analyse_a}">{analyse_a[:12]}</code>' in text
    assert f'<code class="sha" title="{analyse_b}">{analyse_b[:12]}</code>' in text


def test_different_only_hides_the_same_rows(signed_in, research_run, cost_fork):
    text = signed_in.get(url(research_run, cost_fork, "?only=different")).content.decode()

    rows = hash_rows(text)
    assert rows and all(kind == "different" for _, kind in rows)
    assert [name for name, _ in rows] == ["analyse", "critique", "revise", "compose", "publish"]
    assert f'href="/compare/{research_run.pk}/{cost_fork.pk}/"' in text  # "show all steps"
    assert ">show all steps</a>" in text


def test_the_changed_fields_show_old_and_new_values(signed_in, research_run, cost_fork):
    a = research_run.nodes.get(name="analyse").output["groups"]["A"]["total_cost"]
    b = cost_fork.nodes.get(name="analyse").output["groups"]["A"]["total_cost"]

    text = signed_in.get(url(research_run, cost_fork)).content.decode()

    item = text[text.index('<code class="path">groups.A.total_cost</code>') :]
    item = " ".join(item[: item.index("</li>")].split())
    assert f'<span class="old">{a}</span> → <span class="new">{b}</span>' in item
    assert f"({'+' if b > a else '−'}{abs(b - a):,.6g})" in item  # the number's change


def test_the_artifacts_are_compared_with_a_unified_diff(signed_in, research_run, cost_fork):
    text = signed_in.get(url(research_run, cost_fork)).content.decode()

    assert f"run {research_run.pk}: <code>{research_run.artifact_sha256}</code>" in text
    assert f"run {cost_fork.pk}: <code>{cost_fork.artifact_sha256}</code>" in text
    assert "<strong>differ</strong>" in text
    udiff = text[text.index('<pre class="udiff">') :]
    udiff = udiff[: udiff.index("</pre>")]
    # Labelled by run, never by a server path.
    assert f"--- run {research_run.pk}\n" in udiff and f"+++ run {cost_fork.pk}\n" in udiff
    assert "artifacts/" not in udiff
    assert "\n-| A |" in udiff and "\n+| A |" in udiff  # the results table row changed
    assert "@@ " in udiff


def test_htmx_gets_only_the_diff(signed_in, research_run, cost_fork):
    response = signed_in.get(url(research_run, cost_fork, "?only=different"), headers=HTMX)

    text = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in text
    assert "<h1>" not in text  # the heading is outside the fragment
    assert "First divergence" in text and '<table class="hashes steps">' in text


# --- an unchanged replay ---------------------------------------------------------------------


def test_an_unchanged_replay_is_declared_identical(signed_in, research_run, run_fork):
    replay = run_fork(research_run, "plan")

    text = signed_in.get(url(research_run, replay)).content.decode()

    assert (
        '<p class="verdict identical">identical: 8/8 nodes, trajectory hash equal, 0 tokens</p>'
        in text
    )
    assert "First divergence" not in text
    assert all(kind == "same" for _, kind in hash_rows(text))
    assert "identical bytes" in text
    assert '<pre class="udiff">' not in text
    changed = text[text.index("<h2>Changed fields</h2>") : text.index("<h2>Artifacts</h2>")]
    assert "<h3>" not in changed  # no step lists a changed field


def test_different_only_on_an_identical_replay_shows_no_rows(signed_in, research_run, run_fork):
    replay = run_fork(research_run, "plan")

    text = signed_in.get(url(research_run, replay, "?only=different")).content.decode()

    assert hash_rows(text) == []
    assert "No step differs." in text


def test_escaped_values_in_the_diff(signed_in, run_row, node_row):
    a, b = run_row(), run_row()
    node_row(a, 0, output={"answer": "fine"}, output_sha256="a" * 64)
    node_row(b, 0, output={"answer": "<script>alert(1)</script>"}, output_sha256="b" * 64)

    text = signed_in.get(url(a, b)).content.decode()

    assert "<script>alert(1)" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
