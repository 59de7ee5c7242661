"""The noise rule on a Burr app nobody here wrote: Burr's multi-modal chatbot example, unchanged,
its openai client pointed at the simulator on loopback (``helpers/burr_examples``). Truth is
planted by construction: a stability sample is one more draw of the same run (never the
change), and a fork that asks another question changes the answer."""

from __future__ import annotations

import random
import types

import pytest

from runs.engine.analysis.diff import diff_runs
from runs.engine.analysis.noise import BEYOND, WITHIN
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.run_sets.samples import make_samples
from runs.models import Run
from runs.tests.helpers import burr_examples
from runs.tests.helpers.burr_examples import QUESTION, completed

_loopback, apps, provider, chat = (
    burr_examples._loopback,
    burr_examples.apps,
    burr_examples.provider,
    burr_examples.chat,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seeded_draws")]

OTHER_QUESTION = "What is the capital of Germany?"


@pytest.fixture
def seeded_draws(monkeypatch):
    """The simulator's draws above temperature 0 from a seeded generator instead of
    ``os.urandom``: the same draws on every machine. (Unseeded, about one run in sixteen gave
    the unchanged draw a verdict of beyond-noise — a false alarm at the rate the rule is
    measured to make them, not a flake to retry.)"""
    from runs.engine.providers.simulator import server

    draws = random.Random(43)
    monkeypatch.setattr(server, "os", types.SimpleNamespace(urandom=draws.randbytes))


def sampled(run: Run, k: int) -> Run:
    for sample in make_samples(run, k, None):
        completed(execute_run(sample.pk))
    run.refresh_from_db()
    return run


def test_an_unchanged_draw_of_a_burr_app_is_never_beyond_noise(chat):
    parent = sampled(chat(QUESTION), 3)
    extra = completed(execute_run(make_samples(parent, 1, None)[0].pk))
    extra.sample_of = None  # judged as a fork would be: against the three samples only
    extra.save(update_fields=["sample_of"])

    verdicts = diff_runs(parent, extra).verdicts or []

    assert {v["path"] for v in verdicts} >= {"response.content", "chat_history[1].content"}
    assert BEYOND not in {v["verdict"] for v in verdicts}
    assert all(v["why"] for v in verdicts)


def test_another_question_to_a_burr_app_is_not_within_noise(chat):
    parent = sampled(chat(QUESTION), 3)
    child = completed(execute_run(create_fork(parent, "prompt", "input.prompt", OTHER_QUESTION).pk))

    verdicts = diff_runs(parent, child).verdicts or []

    answers = [v for v in verdicts if v["path"] in {"response.content", "chat_history[1].content"}]
    assert answers, verdicts
    assert WITHIN not in {v["verdict"] for v in answers}
    asked = next(v for v in verdicts if v["node"] == "prompt" and v["path"] == "prompt")
    assert asked["verdict"] == BEYOND
