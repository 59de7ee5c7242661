"""The judge (``runs.engine.judging``): a model, when ``REWIND_JUDGE_MODEL`` names one, decides
the text leaves the noise rule calls ``uncertain``. It is asked through the LLM cache, so the
same question a second time makes no provider request and spends 0 tokens; its answer is read
strictly; each live call is a ``JudgeCall`` (the budget counts it). Here against the offline
simulator on loopback, whose judge answers are a fixed comparison of words (reported, never a
measure of a model)."""

from __future__ import annotations

import json
import logging
from decimal import Decimal

import pytest

from runs.engine.analysis import noise
from runs.engine.analysis.diff import diff_runs
from runs.engine.judging import JUDGE_NODE, AnswerError, Judge, configured_judge, parse_answer
from runs.engine.judging.question import MAX_REASON_CHARS, messages
from runs.engine.providers.simulator import JUDGE_MARKER, Simulator
from runs.models import JudgeCall, LLMCacheEntry
from runs.tests.helpers.judged_runs import (
    BY,
    DIFFERENT_CANDIDATE,
    JUDGE_MODEL,
    PATH,
    REFERENCES,
    RULE_WHY,
    SAME_CANDIDATE,
    judge_requests,
    judged_runs,
    rule_says_uncertain,  # noqa: F401 — the fixture, shared
)

UNCERTAIN = noise.Judgement(noise.UNCERTAIN, RULE_WHY)


def ask(candidate: str, references: tuple[str, ...] = REFERENCES, **kwargs) -> noise.Judgement:
    return Judge(JUDGE_MODEL, **kwargs)(candidate, list(references), UNCERTAIN)


# --- the answer, read strictly ------------------------------------------------------------------


def test_an_answer_is_exactly_a_verdict_and_a_reason():
    answer = parse_answer(' {"verdict": "same", "reason": "the same   claim,\\nreworded"} \n')

    assert (answer.verdict, answer.reason) == ("same", "the same claim, reworded")


@pytest.mark.parametrize(
    "content",
    [
        "",
        "same",
        '```json\n{"verdict": "same", "reason": "r"}\n```',  # fenced: not one JSON object
        '["same", "r"]',
        '{"verdict": "same"}',
        '{"verdict": "same", "reason": "r", "confidence": 0.9}',
        '{"verdict": "Same", "reason": "r"}',
        '{"verdict": "probably same", "reason": "r"}',
        '{"verdict": "different", "reason": ""}',
        '{"verdict": "different", "reason": 3}',
        '{"verdict": "different", "reason": NaN}',
        "[" * 100 + "]" * 100,
    ],
)
def test_anything_else_is_no_verdict(content):
    with pytest.raises(AnswerError):
        parse_answer(content)


def test_a_long_reason_is_cut_to_one_shown_line():
    reason = parse_answer(json.dumps({"verdict": "different", "reason": "x " * 1000})).reason

    assert len(reason) == MAX_REASON_CHARS and reason.endswith("…")


# --- the simulator's stand-in -------------------------------------------------------------------


def simulated(candidate: str, references: tuple[str, ...]) -> dict:
    body = {"model": JUDGE_MODEL, "temperature": 0.0, "messages": messages(candidate, references)}
    status, answer = Simulator().respond(body)
    assert status == 200
    return json.loads(answer["choices"][0]["message"]["content"])


def test_the_simulator_answers_the_judge_by_the_candidates_words():
    assert simulated(SAME_CANDIDATE, REFERENCES) == {
        "verdict": "same",
        "reason": "every word of the candidate is in the references",
    }
    assert simulated(DIFFERENT_CANDIDATE, REFERENCES) == {
        "verdict": "different",
        "reason": "words in no reference: c",
    }
    # the same question, the same answer: deterministic
    assert simulated(DIFFERENT_CANDIDATE, REFERENCES) == simulated(DIFFERENT_CANDIDATE, REFERENCES)


def test_the_simulator_answers_other_prompts_as_before():
    body = {
        "model": "m",
        "temperature": 0.0,
        "messages": [
            {"role": "system", "content": "You summarise."},
            {"role": "user", "content": json.dumps({"candidate": "a b", "references": ["a b"]})},
        ],
    }
    content = Simulator().respond(body)[1]["choices"][0]["message"]["content"]

    assert '"verdict"' not in content


def test_the_question_carries_the_marker_and_each_reference_once():
    asked = messages("b c", ["a b", "a b", "c d"])

    assert JUDGE_MARKER in asked[0]["content"]
    assert json.loads(asked[1]["content"]) == {"candidate": "b c", "references": ["a b", "c d"]}


# --- off by default -----------------------------------------------------------------------------


def test_there_is_no_judge_by_default(settings):
    assert settings.REWIND_JUDGE_MODEL == ""
    assert configured_judge() is None

    settings.REWIND_JUDGE_MODEL = JUDGE_MODEL
    assert configured_judge().model == JUDGE_MODEL


# --- asked through the cache --------------------------------------------------------------------


@pytest.mark.django_db
def test_the_same_question_twice_is_one_request_and_the_second_costs_nothing(serve_simulator):
    simulator = serve_simulator()

    first = ask(SAME_CANDIDATE)
    second = ask(SAME_CANDIDATE)

    assert (
        first
        == second
        == noise.Judgement(
            noise.WITHIN,
            f"judge ({JUDGE_MODEL}): every word of the candidate is in the references",
            BY,
        )
    )
    assert len(judge_requests(simulator)) == 1
    sent = judge_requests(simulator)[0]
    assert (sent["model"], sent["temperature"]) == (JUDGE_MODEL, 0.0)
    # one live call recorded, with what it spent; the second read the cache (0 tokens)
    call = JudgeCall.objects.get()
    assert call.total_tokens > 0 and call.parsed and call.created_by is None
    entry = LLMCacheEntry.objects.get(node_name=JUDGE_NODE)
    assert (entry.key, entry.model_requested, entry.hit_count) == (call.key, JUDGE_MODEL, 1)


@pytest.mark.django_db
def test_a_candidate_in_other_words_is_beyond_noise_by_the_judge(serve_simulator):
    serve_simulator()

    judged = ask(DIFFERENT_CANDIDATE)

    assert judged == noise.Judgement(
        noise.BEYOND, f"judge ({JUDGE_MODEL}): words in no reference: c", BY
    )


@pytest.mark.django_db
def test_other_references_are_another_question(serve_simulator):
    simulator = serve_simulator()

    ask(SAME_CANDIDATE)
    ask(SAME_CANDIDATE, REFERENCES[:2])

    assert len(judge_requests(simulator)) == 2


@pytest.mark.django_db
def test_an_unparseable_answer_stays_uncertain_is_logged_and_not_kept(serve_simulator, caplog):
    simulator = serve_simulator(garbage=True)

    with caplog.at_level(logging.WARNING, logger="rewind.judge"):
        assert ask(SAME_CANDIDATE) is None
    assert "gave no verdict" in caplog.text and "not valid JSON" in caplog.text
    # never stored as an answer (errors are never cached), but its tokens were spent
    assert not LLMCacheEntry.objects.filter(node_name=JUDGE_NODE).exists()
    call = JudgeCall.objects.get()
    assert not call.parsed and call.total_tokens > 0
    assert len(judge_requests(simulator)) == 1


@pytest.mark.django_db
def test_a_provider_that_fails_leaves_it_uncertain(serve_simulator, settings, caplog):
    settings.REWIND_LLM_RETRIES = 0
    serve_simulator(status=500)

    with caplog.at_level(logging.WARNING, logger="rewind.judge"):
        assert ask(SAME_CANDIDATE) is None
    assert "not answered" in caplog.text and "HTTP 500" in caplog.text
    assert not JudgeCall.objects.exists()


@pytest.mark.django_db
def test_a_gate_that_refuses_asks_nothing_and_says_why(serve_simulator):
    simulator = serve_simulator()
    asked: list[tuple[int, Decimal | None]] = []

    def gate(tokens: int, usd: Decimal | None) -> str:
        asked.append((tokens, usd))
        return "0 of your 10 daily tokens are left"

    judged = ask(SAME_CANDIDATE, gate=gate)

    assert judged == noise.Judgement(
        noise.UNCERTAIN,
        f"{RULE_WHY}; the judge ({JUDGE_MODEL}) was not asked: 0 of your 10 daily tokens are left",
    )
    assert judged.by == noise.RULE
    assert simulator.requests == [] and not JudgeCall.objects.exists()
    [(tokens, usd)] = asked
    assert tokens > 300 and usd is None  # the answer's most and the prompt; no price for it


@pytest.mark.django_db
def test_an_answer_already_kept_is_read_whatever_the_gate(serve_simulator):
    serve_simulator()
    ask(SAME_CANDIDATE)

    def gate(tokens: int, usd: Decimal | None) -> str:
        raise AssertionError("a cached answer costs nothing: the budget is not asked")

    assert ask(SAME_CANDIDATE, gate=gate).verdict == noise.WITHIN


@pytest.mark.django_db
def test_no_references_is_nothing_to_ask(serve_simulator):
    simulator = serve_simulator()

    assert ask(SAME_CANDIDATE, ()) is None
    assert simulator.requests == []


# --- as the noise rule's referee ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("rule_says_uncertain")
def test_without_a_referee_the_rule_decides(run_row, node_row, serve_simulator):
    simulator = serve_simulator()
    a, b = judged_runs(run_row, node_row, SAME_CANDIDATE)

    [verdict] = diff_runs(a, b).verdicts

    assert (verdict["path"], verdict["verdict"], verdict["why"], verdict["by"]) == (
        PATH,
        noise.UNCERTAIN,
        RULE_WHY,
        noise.RULE,
    )
    assert simulator.requests == []


@pytest.mark.django_db
@pytest.mark.usefixtures("rule_says_uncertain")
def test_an_uncertain_text_leaf_is_decided_by_the_judge_and_named_as_its(
    run_row, node_row, serve_simulator
):
    simulator = serve_simulator()
    a, b = judged_runs(run_row, node_row, DIFFERENT_CANDIDATE)

    first = diff_runs(a, b, referee=Judge(JUDGE_MODEL)).verdicts
    second = diff_runs(a, b, referee=Judge(JUDGE_MODEL)).verdicts

    [verdict] = first
    assert verdict["verdict"] == noise.BEYOND and verdict["by"] == BY
    assert verdict["why"] == f"judge ({JUDGE_MODEL}): words in no reference: c"
    assert second == first
    [question] = judge_requests(simulator)
    assert json.loads(question["messages"][1]["content"]) == {
        "candidate": DIFFERENT_CANDIDATE,
        "references": list(REFERENCES),
    }
    assert JudgeCall.objects.count() == 1


@pytest.mark.django_db
def test_the_in_process_simulator_answers_too_and_is_kept_as_its(rewind_settings):
    first, second = ask(DIFFERENT_CANDIDATE), ask(DIFFERENT_CANDIDATE)

    assert first == second and first.verdict == noise.BEYOND
    entry = LLMCacheEntry.objects.get(node_name=JUDGE_NODE)
    assert entry.provider == LLMCacheEntry.Provider.SIMULATOR  # never served as an endpoint's
    assert JudgeCall.objects.count() == 1
