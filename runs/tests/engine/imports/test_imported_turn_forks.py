"""Forks of imported multi-turn runs (issue 34, item 7): the turns of a run imported from Burr's
log are the calls the program made, each begun by the step that received its runtime inputs,
so a fork whose route changes the length of a turn still crosses into the later turns, each fed
the inputs the log recorded for it, and ends where the source ended — whatever step it forks
at. Burr's shipped ``demo_chatbot/chat-2-geography`` log, forked through Burr's multi-modal
chatbot registered unchanged and answered by the simulator on loopback."""

from __future__ import annotations

from pathlib import Path

import burr
import pytest
from burr.core import ApplicationBuilder, State, action

from runs.engine.apps import registry
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.imports.service import import_path
from runs.models import Node, Run
from runs.tests.helpers import burr_examples as burr_apps

apps, provider, _loopback = burr_apps.apps, burr_apps.provider, burr_apps._loopback

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"
GEOGRAPHY = DEMO / "demo_chatbot" / "chat-2-geography"
PROMPTS = [
    "What is the capital of France?",
    "Please draw a map of the world",
    "Please write code to compute the circumpherence of the earth",
    "Geography! Geography! Geography!",
]
UNSAFE = "an unsafe question"  # check_safety says no: the turn goes straight to its response


@pytest.fixture
def geography(apps) -> Run:
    report = import_path(GEOGRAPHY, pipeline="chatbot")
    assert report.errors == []
    return Run.objects.get(pk=report.imported[0])


def steps(run: Run) -> list[Node]:
    return list(run.nodes.order_by("sequence_id"))


def prompts_fed(run: Run) -> list[str]:
    """The runtime input each ``prompt`` step of ``run`` received, in order."""
    return [n.inputs["inputs"]["prompt"] for n in steps(run) if n.name == "prompt"]


def forked(source: Run, node: str, field: str, value: str) -> Run:
    fork = execute_run(create_fork(source, node, field, value).pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    return fork


def test_an_imported_run_has_one_turn_per_call_of_the_program(geography):
    assert geography.turns == [{"inputs": {"prompt": p}} for p in PROMPTS]
    # A turn begins before the step that takes the runtime input, ends after the response.
    assert geography.halt == {"after": ["response"], "before": ["prompt"]}
    turn_of = [(n.name, n.inputs["turn"]) for n in steps(geography)]
    assert turn_of[:7] == [
        ("prompt", 0), ("check_openai_key", 0), ("check_safety", 0), ("decide_mode", 0),
        ("answer_question", 0), ("response", 0), ("prompt", 1),
    ]  # fmt: skip
    assert turn_of[-1] == ("response", 3)


def test_a_shorter_first_turn_crosses_into_the_later_turns_with_their_inputs(geography, provider):
    provider.start()
    fork = forked(geography, "check_safety", "state.prompt", UNSAFE)
    names = [n.name for n in steps(fork)]
    # The first turn: inherited up to check_safety, which now says no, then its response.
    assert names[:4] == ["prompt", "check_openai_key", "check_safety", "response"]
    assert steps(fork)[2].output == {"safe": False}
    # Every later turn ran, with the prompt the log recorded for it, and the fork ended
    # after the last turn's response (two steps shorter than its source).
    assert prompts_fed(fork) == PROMPTS
    assert names[4:] == [n.name for n in steps(geography)[6:]][: len(names) - 4]
    assert names[-1] == "response" and len(names) == geography.nodes.count() - 2
    assert [n.inputs["turn"] for n in steps(fork) if n.name == "prompt"] == [0, 1, 2, 3]


def test_a_fork_at_a_later_turns_first_step_feeds_the_turns_after_it(geography, provider):
    provider.start()
    fork = forked(geography, "prompt#2", "input.prompt", f"Please draw {UNSAFE}")
    assert prompts_fed(fork) == [PROMPTS[0], f"Please draw {UNSAFE}", *PROMPTS[2:]]
    turn = [n.name for n in steps(fork)][6:10]
    assert turn == ["prompt", "check_openai_key", "check_safety", "response"]
    assert [n.name for n in steps(fork)][-1] == "response"


def test_a_fork_in_the_last_turn_ends_where_its_source_ended(geography, provider):
    provider.start()
    fork = forked(geography, "check_safety#4", "state.prompt", UNSAFE)
    names = [n.name for n in steps(fork)]
    # No fifth turn: the log recorded none, so the fork stops after this turn's response.
    assert names[-3:] == ["check_openai_key", "check_safety", "response"]
    assert prompts_fed(fork) == PROMPTS


def test_a_fork_of_a_run_that_failed_goes_on_past_the_step_that_raised(apps, provider):
    report = import_path(DEMO / "demo_chatbot" / "chat-6-demonstrate-errors", pipeline="chatbot")
    source = Run.objects.get(pk=report.imported[0])
    assert source.status == Run.Status.FAILED and steps(source)[-1].name == "decide_mode"
    # The program did not stop after decide_mode: it raised there. No halt after it.
    assert source.halt == {"after": [], "before": ["prompt"]}
    provider.start()
    fork = forked(source, "decide_mode", "state.prompt", PROMPTS[0])
    assert [n.name for n in steps(fork)] == [
        "prompt", "check_openai_key", "check_safety", "decide_mode", "answer_question",
        "response",
    ]  # fmt: skip


# --- a loop the program stepped itself (``app.step()`` n times): no turn boundary ----------


@action(reads=["n"], writes=["n"])
def tick(state: State) -> State:
    return state.update(n=state["n"] + 1)


def ticker():
    """A graph that never ends by itself: its program stops stepping it."""
    return (
        ApplicationBuilder()
        .with_actions(tick=tick)
        .with_transitions(("tick", "tick"))
        .with_state(n=0)
        .with_entrypoint("tick")
    )


def test_a_fork_of_a_stepped_loop_stops_after_as_many_steps_as_its_source(apps, tmp_path):
    storage = tmp_path / "burr"
    app = (
        ticker()
        .with_tracker("local", project="ticks", params={"storage_dir": str(storage)})
        .with_identifiers(app_id="six")
        .build()
    )
    for _ in range(6):
        app.step()
    apps.REWIND_PIPELINES = {**apps.REWIND_PIPELINES, "ticks": f"{__name__}.ticker"}
    registry._load.cache_clear()
    report = import_path(storage)
    source = Run.objects.get(pk=report.imported[0])
    assert source.turns == [{"inputs": {}}] and source.halt["steps"] == 6
    fork = execute_run(create_fork(source, "tick#3", "state.n", "100").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert [n.output["n"] for n in steps(fork)] == [1, 2, 101, 102, 103, 104]
