"""``/runs/<run>/stability/``: "sample k times" makes k live, unchanged forks recorded as the
run's samples and runs them through the queue; the page shows per step an SVG histogram of
the output hashes they gave and, per leaf, the values seen with counts."""

from __future__ import annotations

import re

import pytest

from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Node, Run
from runs.pages.grids import hash_colour
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(run: Run | int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/stability/"


@pytest.fixture
def sample(signed_in, immediate_tasks, django_capture_on_commit_callbacks):
    """POST "sample k times"; the samples run in-process as they are enqueued."""

    def post(run: Run, k: int, node: int = 0):
        with django_capture_on_commit_callbacks(execute=True):
            return signed_in.post(url(run), {"k": str(k), "node": str(node)})

    return post


@pytest.fixture
def warm_run(run_pipeline) -> Run:
    run = run_pipeline("research", temperature="0.8")
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def step_row(text: str, name: str) -> str:
    start = text.index(f">{name}</a></td>")
    return text[start : text.index("</tr>", start)]


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, research_run):
    response = client.get(url(research_run))

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{research_run.pk}/stability/"


def test_anonymous_post_writes_nothing(client, research_run):
    before = Run.objects.count()

    response = client.post(url(research_run), {"k": "3", "node": "0"})

    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert Run.objects.count() == before


def test_unknown_run_is_404(signed_in):
    assert signed_in.get(url(999)).status_code == 404


# --- sampling ------------------------------------------------------------------------------------


def test_a_run_without_samples_offers_the_form(signed_in, research_run):
    text = signed_in.get(url(research_run)).content.decode()

    assert "No samples yet" in text
    assert f'action="/runs/{research_run.pk}/stability/"' in text
    assert 'name="k"' in text and 'value="5"' in text
    for seq, name in enumerate(ORDER):
        assert f'<option value="{seq}"' in text and f"{name} (step {seq})" in text


def test_sampling_makes_k_live_replays_recorded_as_samples_and_runs_them(sample, research_run):
    response = sample(research_run, 3)

    assert response.status_code == 302
    assert response["Location"] == f"{url(research_run)}?k=3&node=0"  # the form as it was sent
    samples = list(Run.objects.filter(sample_of=research_run))
    assert len(samples) == 3
    assert all(s.parent_id == research_run.pk and s.override is None for s in samples)
    assert all(s.mode == Run.Mode.LIVE for s in samples)
    assert all(s.status == Run.Status.COMPLETED for s in samples)  # through the queue
    research_run.refresh_from_db()
    assert research_run.sample_count == 3


def test_sampling_from_a_step_inherits_the_steps_before_it(sample, research_run):
    critique = ORDER.index("critique")

    sample(research_run, 1, critique)

    replay = Run.objects.get(sample_of=research_run)
    assert replay.fork_sequence_id == critique
    inherited = replay.nodes.filter(cache_source=Node.CacheSource.INHERITED).count()
    assert inherited == critique


@pytest.mark.parametrize(
    ("k", "message"), [(0, "greater than or equal to 1"), (51, "less than or equal to 50")]
)
def test_k_out_of_range_is_a_400_and_writes_nothing(sample, research_run, k, message):
    before = Run.objects.count()

    response = sample(research_run, k)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert Run.objects.count() == before


def test_an_unfinished_run_cannot_be_sampled(sample, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0, "plan")
    before = Run.objects.count()

    response = sample(run, 2)

    assert response.status_code == 400
    assert "still running" in response.content.decode()
    assert Run.objects.count() == before


# --- what the page shows -----------------------------------------------------------------------


def test_a_deterministic_run_gives_one_hash_per_step(sample, signed_in, research_run):
    sample(research_run, 3)

    text = signed_in.get(url(research_run)).content.decode()

    assert "3 samples" in text
    assert "Every step gave one output in every sample" in text
    for node in research_run.nodes.all():
        row = step_row(text, node.name)
        assert (
            '<td class="num samples">3</td><td class="num">1</td><td class="num">3/3</td>'
            in re.sub(r"\s+<", "<", row)
        )
        bars = re.findall(r'<rect class="bar( source)?', row)
        assert bars == [" source"]  # one bar, and it is the run's own output
        assert f'fill="{hash_colour(node.output_sha256)}"' in row


def test_a_jittering_run_shows_a_histogram_and_the_values_of_each_leaf(sample, signed_in, warm_run):
    sample(warm_run, 4)

    text = signed_in.get(url(warm_run)).content.decode()

    critique = step_row(text, "critique")
    bars = re.findall(
        r'<rect class="bar[^"]*" x="\d+" y="(\d+)" width="22" height="(\d+)"', critique
    )
    assert len(bars) > 1  # the llm step answered differently across samples
    heights = sorted((int(h) for _, h in bars), reverse=True)
    assert heights[0] == 48  # the tallest bar is the most frequent hash
    analyse = step_row(text, "analyse")
    assert len(re.findall(r"<rect ", analyse)) == 1  # the tool step: one output
    # per leaf: each value with how many samples gave it
    leaves = text[text.index("Values per leaf") :]
    assert "<strong>critique</strong>" in leaves
    assert "<code>issues[0]</code>" in leaves
    assert re.search(r'<span class="count">×\d+</span><span class="value">', leaves)
    assert "<strong>analyse</strong>" not in leaves  # nothing varied there


def test_htmx_polls_while_samples_run_and_stops_with_286(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0, "plan")
    queued = run_row(parent=run, sample_of=run, status=Run.Status.QUEUED, mode="live")
    Run.objects.filter(pk=run.pk).update(sample_count=1)

    page = signed_in.get(url(run)).content.decode()
    fragment = signed_in.get(url(run), headers=HTMX)

    assert 'hx-trigger="every 2s"' in page and '<meta http-equiv="refresh"' in page
    assert fragment.status_code == 200 and "<html" not in fragment.content.decode()
    assert "1 of 1 sample still running" in fragment.content.decode()
    Run.objects.filter(pk=queued.pk).update(status=Run.Status.COMPLETED)
    done = signed_in.get(url(run), headers=HTMX)
    assert done.status_code == 286
    assert "every 2s" not in done.content.decode()


def test_a_sample_links_to_its_diff_against_the_run(sample, signed_in, research_run):
    sample(research_run, 1)
    replay = Run.objects.get(sample_of=research_run)

    text = signed_in.get(url(research_run)).content.decode()

    assert f'href="/compare/{research_run.pk}/{replay.pk}/"' in text


def test_the_page_of_a_sample_names_the_run_it_samples(sample, signed_in, research_run):
    sample(research_run, 1)
    replay = Run.objects.get(sample_of=research_run)

    text = signed_in.get(url(replay)).content.decode()

    assert (
        f'a sample of <a href="/runs/{research_run.pk}/stability/">run {research_run.pk}</a>'
        in text
    )


# --- constant queries ----------------------------------------------------------------------------


@pytest.mark.parametrize("steps", [10, 500])
def test_the_page_makes_the_same_queries_at_any_size(
    signed_in, run_row, node_row, django_assert_num_queries, steps
):
    run = run_row()
    for seq in range(steps):
        node_row(run, seq, f"step{seq}", output={"n": seq, "text": "a"})
    for i in range(3):
        replay = run_row(parent=run, sample_of=run, mode="live")
        for seq in range(steps):
            node_row(replay, seq, f"step{seq}", output={"n": seq, "text": "ab"[i % 2]},
                     output_sha256=f"{seq * 10 + i % 2:064x}")  # fmt: skip
    Run.objects.filter(pk=run.pk).update(sample_count=3)

    with django_assert_num_queries(5):
        # 1. the session  2. the user  3. the run (with its parent)
        # 4. its samples
        # 5. every step of the run and of its samples, in one query
        response = signed_in.get(url(run))
    assert response.status_code == 200
    assert response.content.decode().count('<svg class="histogram"') == steps


def test_a_sampled_run_sampled_again_shows_every_sample(rewind_settings, sample, signed_in):
    run = execute_run(create_run("research").pk)
    sample(run, 1)
    sample(run, 2)

    assert "3 samples" in signed_in.get(url(run)).content.decode()
    run.refresh_from_db()
    assert run.sample_count == 3


def test_forks_that_are_not_samples_are_not_counted(sample, signed_in, research_run, run_fork):
    run_fork(research_run, "analyse", "args.cost_scale", "3")  # a fork, not a sample
    sample(research_run, 2)

    text = signed_in.get(url(research_run)).content.decode()

    assert "2 samples" in text
    row = re.sub(r"\s+<", "<", step_row(text, "analyse"))
    assert '<td class="num samples">2</td><td class="num">1</td><td class="num">2/2</td>' in row


def test_after_sampling_the_form_keeps_k_and_the_step(signed_in, research_run, settings):
    """The form came back with k reset to 5 after every submit (issue 16, also noticed)."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    analyse = research_run.nodes.get(name="analyse").sequence_id

    response = signed_in.post(url(research_run), {"k": "3", "node": str(analyse)})

    assert response.status_code == 302
    assert response["Location"] == f"{url(research_run)}?k=3&node={analyse}"
    page = signed_in.get(response["Location"]).content.decode()
    assert 'name="k" value="3"' in page
    assert f'<option value="{analyse}" selected>' in page
    bad = signed_in.get(f"{url(research_run)}?k=99999&node=1").content.decode()
    assert 'name="k" value="5"' in bad  # a value the form refuses is not offered back


def test_no_sample_finished_yet_says_so_not_that_every_step_gave_one_output(
    signed_in, run_row, node_row
):
    run = run_row()
    node_row(run, 0, "plan")
    run_row(parent=run, sample_of=run, status=Run.Status.QUEUED, mode="live")
    Run.objects.filter(pk=run.pk).update(sample_count=1)

    page = signed_in.get(url(run)).content.decode()

    assert "No sample has finished yet" in page
    assert "Every step gave one output" not in page
