"""Noise-aware verdicts: when the first run of a diff has stability samples, each changed leaf
is judged against what that run produced across them — ``beyond-noise`` (the change did it),
``within-noise`` (the samples show such variation on their own), ``uncertain`` (too few samples
to tell) or ``no-samples`` — and says why, in ``rewind_diff --json`` and on the compare page."""

from __future__ import annotations

import dataclasses
import html
import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from runs.engine.analysis.diff import diff_runs
from runs.engine.analysis.noise import (
    BEYOND,
    NO_SAMPLES,
    UNCERTAIN,
    WITHIN,
    judge,
)
from runs.engine.errors import ForkError
from runs.engine.execution.runner import execute_run
from runs.engine.run_sets.samples import make_samples
from runs.models import Run
from runs.pipelines.research import ORDER

pytestmark = pytest.mark.django_db


def sampled(run: Run, k: int, node: str | None = None) -> Run:
    """``run`` with ``k`` executed samples (from ``node``), reloaded."""
    for replay in make_samples(run, k, node):
        assert execute_run(replay.pk).status == Run.Status.COMPLETED
    run.refresh_from_db()
    return run


@pytest.fixture
def warm_run(run_pipeline) -> Run:
    """A completed demo run at temperature 0.8: its llm steps jitter."""
    run = run_pipeline("research", temperature="0.8")
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def by_node(verdicts: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for verdict in verdicts:
        out.setdefault(verdict["node"], []).append(verdict)
    return out


def rewind_diff(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_diff", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


# --- the demo pipeline, both ways ----------------------------------------------------------------


def test_a_deterministic_tool_change_on_a_sampled_warm_run_is_beyond_noise(warm_run, run_fork):
    parent = sampled(warm_run, 4)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")

    verdicts = by_node(diff_runs(parent, fork).verdicts)

    analyse = {v["path"]: v for v in verdicts["analyse"]}
    assert analyse["params.cost_scale"] == {
        "node": "analyse",
        "sequence_id": ORDER.index("analyse"),
        "path": "params.cost_scale",
        "verdict": BEYOND,
        "samples": 4,
        "distinct": 1,  # every sample computed the same value
        "why": "every reference gave 1: the step never varied here, so any other value is the "
        "change",
        "by": "rule",
    }
    assert {v["verdict"] for v in analyse.values()} == {BEYOND}


def test_a_sample_against_its_run_is_all_within_noise(warm_run):
    parent = sampled(warm_run, 3)
    replay = parent.samples.order_by("pk").first()

    verdicts = diff_runs(parent, replay).verdicts

    assert verdicts  # the llm steps jittered
    assert {v["verdict"] for v in verdicts} == {WITHIN}


def test_rewind_diff_json_carries_the_verdicts(warm_run, run_fork):
    parent = sampled(warm_run, 3)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")

    data = json.loads(rewind_diff(str(parent.pk), str(fork.pk), "--json"))

    assert {"a", "b", "first_divergence", "nodes", "artifact", "verdicts"} <= set(data)
    for verdict in data["verdicts"]:
        assert {"node", "path", "verdict", "samples", "why"} <= set(verdict)
        assert verdict["verdict"] in {BEYOND, WITHIN, UNCERTAIN, NO_SAMPLES}
        assert verdict["why"]
    assert any(v["verdict"] == BEYOND and v["node"] == "analyse" for v in data["verdicts"])
    text = rewind_diff(str(parent.pk), str(fork.pk))
    assert "noise (judged against 3 sample(s) of the first run)" in text
    assert (
        "beyond-noise  analyse  params.cost_scale  (every reference gave 1: the step never "
        "varied here, so any other value is the change)"
    ) in text


def test_without_samples_there_are_no_verdicts_and_no_extra_query(
    research_run, run_fork, django_assert_num_queries
):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")

    with django_assert_num_queries(2):  # each run's nodes, as before
        result = diff_runs(research_run, fork)

    assert result.verdicts is None and "verdicts" not in result.as_json()
    assert "verdicts" not in json.loads(rewind_diff(str(research_run.pk), str(fork.pk), "--json"))


def test_with_samples_the_verdicts_cost_one_query(warm_run, run_fork, django_assert_num_queries):
    parent = sampled(warm_run, 2)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")

    with django_assert_num_queries(3):  # each run's nodes, and the samples' steps
        diff_runs(parent, fork)


def test_steps_no_sample_re_executed_have_no_samples(research_run, run_fork):
    compose = str(ORDER.index("compose"))
    parent = sampled(research_run, 2, compose)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")

    verdicts = by_node(diff_runs(parent, fork).verdicts)

    assert {v["verdict"] for v in verdicts["analyse"]} == {NO_SAMPLES}
    assert {v["samples"] for v in verdicts["analyse"]} == {0}
    # compose was re-run by both samples: at temperature 0 they agree with the parent
    assert {v["verdict"] for v in verdicts["compose"]} == {BEYOND}
    assert {v["samples"] for v in verdicts["compose"]} == {2}


def test_samples_still_running_do_not_count(research_run, run_fork):
    make_samples(research_run, 2)  # queued, never executed
    research_run.refresh_from_db()
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")

    verdicts = diff_runs(research_run, fork).verdicts

    assert verdicts and {v["verdict"] for v in verdicts} == {NO_SAMPLES}


def test_the_compare_page_shows_the_verdicts(signed_in, warm_run, run_fork):
    parent = sampled(warm_run, 2)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")

    text = signed_in.get(f"/compare/{parent.pk}/{fork.pk}/").content.decode()

    section = text[text.index('<section class="noise-verdicts"') :]
    section = section[: section.index("</section>")]
    assert "Your change, or the model's jitter?" in section
    assert f'href="/runs/{parent.pk}/stability/"' in section
    assert '<span class="badge noise-beyond-noise live">beyond-noise</span>' in section
    assert ">params.cost_scale</code>" in section
    # A within-noise badge, without depending on the draws: a sample against its run is one
    # of the references, leaf for leaf.
    sample = parent.samples.order_by("pk").first()
    text = signed_in.get(f"/compare/{parent.pk}/{sample.pk}/").content.decode()
    assert '<span class="badge noise-within-noise">within-noise</span>' in text


def test_the_compare_page_shows_why_next_to_each_verdict(signed_in, warm_run, run_fork):
    """Issue 30: each field's reason beside it — what made it beyond (a figure, a name, a
    negation, a range), or why the samples are too few to tell."""
    parent = sampled(warm_run, 2)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")
    judged = {(v["node"], v["path"]): v for v in diff_runs(parent, fork).verdicts}

    text = signed_in.get(f"/compare/{parent.pk}/{fork.pk}/").content.decode()

    section = text[text.index('<section class="noise-verdicts"') :]
    section = section[: section.index("</section>")]
    assert (
        '>params.cost_scale</code> <span class="why">every reference gave 1: the step never '
        "varied here, so any other value is the change</span>"
    ) in section
    # A changed text's reason names what is new in it: the figures the new costs put there.
    text_verdict = next(v for (node, _), v in judged.items() if node == "compose")
    assert text_verdict["why"] and text_verdict["why"] in html.unescape(section)
    assert "<strong>uncertain</strong>" in section  # the legend explains every verdict


def test_the_reason_is_escaped_on_the_compare_page(signed_in, warm_run, run_fork, monkeypatch):
    from runs.views import compare

    parent = sampled(warm_run, 2)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")
    real = compare.diff_runs

    def with_markup(a, b, **kwargs):
        result = real(a, b)
        verdicts = [
            {**v, "why": "names <script>alert(1)</script>, which no reference names"}
            for v in result.verdicts
        ]
        return dataclasses.replace(result, verdicts=verdicts)

    monkeypatch.setattr(compare, "diff_runs", with_markup)
    text = signed_in.get(f"/compare/{parent.pk}/{fork.pk}/").content.decode()

    assert "<script>alert(1)" not in text
    assert "names &lt;script&gt;alert(1)&lt;/script&gt;, which no reference names" in text


def test_an_uncertain_verdict_is_shown_with_its_badge(signed_in, warm_run, run_fork, monkeypatch):
    from runs.views import compare

    parent = sampled(warm_run, 2)
    fork = run_fork(parent, "analyse", "args.cost_scale", "3")
    real = compare.diff_runs

    def one_uncertain(a, b, **kwargs):
        result = real(a, b)
        # One field alone (the warm run's own draws may make others uncertain too).
        first = {**result.verdicts[0], "verdict": UNCERTAIN, "why": "too few samples to tell"}
        return dataclasses.replace(result, verdicts=[first])

    monkeypatch.setattr(compare, "diff_runs", one_uncertain)
    text = signed_in.get(f"/compare/{parent.pk}/{fork.pk}/").content.decode()

    assert '<span class="badge noise-uncertain">1 uncertain</span>' in text
    assert '<span class="badge noise-uncertain">uncertain</span>' in text
    assert '<span class="why">too few samples to tell</span>' in text


# --- sampling and the rule -----------------------------------------------------------------------


def test_make_samples_records_live_unchanged_forks(research_run):
    samples = make_samples(research_run, 3, "critique")

    research_run.refresh_from_db()
    assert research_run.sample_count == 3
    for replay in samples:
        replay.refresh_from_db()
        assert replay.sample_of_id == replay.parent_id == research_run.pk
        assert replay.mode == Run.Mode.LIVE and replay.override is None
        assert replay.fork_node == "critique" and replay.status == Run.Status.QUEUED


@pytest.mark.parametrize("k", [0, 51])
def test_make_samples_refuses_k_out_of_range_and_writes_nothing(research_run, k):
    before = Run.objects.count()

    with pytest.raises(ForkError, match="k must be between 1 and 50"):
        make_samples(research_run, k)

    assert Run.objects.count() == before


def test_make_samples_refuses_an_unfinished_run_and_writes_nothing(run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0)
    before = Run.objects.count()

    with pytest.raises(ForkError, match="still running"):
        make_samples(run, 2)

    assert Run.objects.count() == before
    run.refresh_from_db()
    assert run.sample_count == 0


@pytest.mark.parametrize(
    ("fork", "observed", "verdict"),
    [
        (2, [1, 1, 1], BEYOND),  # never varied
        (1, [1, 1, 1], WITHIN),  # a value the parent produced
        ("b", ["a", "a"], BEYOND),
        ("c", ["a", "b", "a", "b"], BEYOND),  # a category that varied, but never to "c"
        ("c", ["a", "b", "a"], UNCERTAIN),  # ... and "b" once in 3: new values are common
        (1.5, [1, 2, 1.2], WITHIN),  # inside the range the samples gave
        (3, [1, 2, 1.2], BEYOND),  # outside it
        ("2", [1, 2], BEYOND),  # a number became text
        ("<absent>", ["<absent>", "x"], WITHIN),  # the parent sometimes lacked the leaf too
        (5, [5], NO_SAMPLES),  # the parent alone
    ],
)
def test_the_rule(fork, observed, verdict):
    assert judge(fork, observed) == verdict
