"""Imported runs of real Burr apps (issue 18): a run Burr's shipped multi-modal chatbot logged
(``demo_data``) forked through the chatbot registered unchanged; logs written during the test by
Burr apps with ``.with_tracker("local")`` — the chatbot recorded by Rewind at the same time (the
imported steps hash as the recorded ones), a forked app, a MapStates app — and a Burr
``SQLitePersister`` database."""

from __future__ import annotations

import json
from pathlib import Path

import burr
import pytest

from runs.engine.analysis.diff import diff_runs
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.imports.service import import_path
from runs.models import Node, Run
from runs.tests.helpers import burr_examples as burr_apps

# The shipped examples' fixtures (simulator on loopback, the apps registered; no connection
# beyond loopback), shared.
apps, provider, _loopback = burr_apps.apps, burr_apps.provider, burr_apps._loopback

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"


def test_a_shipped_chatbot_log_is_forked_through_the_registered_chatbot(provider):
    report = import_path(DEMO / "demo_chatbot" / "chat-2-geography", pipeline="chatbot")
    source = Run.objects.get(pk=report.imported[0])
    steps = list(source.nodes.order_by("sequence_id"))
    decide = [n for n in steps if n.name == "decide_mode"]
    assert len(decide) >= 2
    provider.start()
    fork = execute_run(create_fork(source, "decide_mode#2", "writes.mode", "answer_question").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    forked = list(fork.nodes.order_by("sequence_id"))
    at = decide[1].sequence_id
    # Steps before the fork point are the imported run's; the rest ran through the app.
    assert [n.name for n in forked[:at]] == [n.name for n in steps[:at]]
    assert all(n.cache_source == Node.CacheSource.INHERITED for n in forked[:at])
    assert forked[at].name == "decide_mode" and forked[at].output["mode"] == "answer_question"
    assert forked[at + 1].name == "answer_question"
    assert diff_runs(source, fork).first_divergence["node"] == "decide_mode"


CHATBOT = "burr.examples.multi-modal-chatbot.application"
PROGRAM = f"""
import importlib, sys

from burr.core import ApplicationBuilder
from burr.tracking.client import LocalTrackingClient

from runs.recording import rewind_hooks

chatbot = importlib.import_module("{CHATBOT}")
storage = sys.argv[1]
first = (
    ApplicationBuilder()
    .with_graph(chatbot.graph)
    .with_state(chat_history=[])
    .with_entrypoint("prompt")
    .with_hooks(*rewind_hooks("chatbot"))
    .with_tracker("local", project="chatbot", params={{"storage_dir": storage}})
    .with_identifiers(app_id="first")
    .build()
)
first.run(halt_after=["response"], inputs={{"prompt": "What is the capital of France?"}})
first.run(halt_after=["response"], inputs={{"prompt": "Write code to sort a list"}})
# A fork in Burr: a new app started from the first one's step 5 (its first response).
tracker = LocalTrackingClient(project="chatbot", storage_dir=storage)
forked = (
    ApplicationBuilder()
    .with_graph(chatbot.graph)
    .initialize_from(
        tracker, resume_at_next_action=True, default_state={{"chat_history": []}},
        default_entrypoint="prompt", fork_from_app_id="first", fork_from_sequence_id=5,
    )
    .with_tracker(tracker)
    .with_identifiers(app_id="forked")
    .build()
)
forked.run(halt_after=["response"], inputs={{"prompt": "Tell me a joke"}})
"""


def _program(tmp_path: Path, provider, text: str, *args: str) -> None:
    import os
    import subprocess
    import sys

    from runs.tests.conftest import PROJECT_ROOT, subprocess_database_url

    script = tmp_path / "my_agent.py"
    script.write_text(text)
    env = {
        **os.environ,
        "DATABASE_URL": subprocess_database_url(),
        "REWIND_PIPELINES": f"chatbot={CHATBOT}.application",
        "OPENAI_BASE_URL": provider.url,
        "OPENAI_API_KEY": "sk-test-imports-SECRET-0123456789",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    done = subprocess.run(
        [sys.executable, str(script), *args], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.django_db(transaction=True)
def test_a_tracked_program_imports_with_the_hashes_rewind_recorded_and_its_fork(provider, tmp_path):
    provider.start()
    storage = tmp_path / "burr"
    _program(tmp_path, provider, PROGRAM, str(storage))
    recorded = Run.objects.get(imported_from__isnull=True)  # by rewind_hooks, the same steps
    report = import_path(storage, pipeline="chatbot")
    assert report.errors == [] and len(report.imported) == 2
    first = Run.objects.get(imported_from__app_id="first")
    mine = list(recorded.nodes.order_by("sequence_id"))
    theirs = list(first.nodes.order_by("sequence_id"))
    # Burr's action names and sequence ids; each output hashed exactly as Rewind hashed it.
    assert [(n.sequence_id, n.name) for n in theirs] == [(n.sequence_id, n.name) for n in mine]
    assert [n.output_sha256 for n in theirs] == [n.output_sha256 for n in mine]
    assert first.trajectory_sha256 == recorded.trajectory_sha256
    # It diffs against the run Rewind recorded: the same trajectory, no divergence.
    assert diff_runs(recorded, first).first_divergence is None
    assert first.imported_from["project"] == "chatbot"

    # Burr's fork: its parent is the imported first app, steps 0–5 inherited from it.
    forked = Run.objects.get(imported_from__app_id="forked")
    assert forked.parent_id == first.pk and forked.root_id == first.pk
    assert forked.fork_sequence_id == 6
    steps = list(forked.nodes.order_by("sequence_id"))
    assert [n.sequence_id for n in steps] == list(range(len(steps)))
    assert all(n.cache_source == Node.CacheSource.INHERITED for n in steps[:6])
    assert [n.name for n in steps[6:]][0] == "prompt" and steps[-1].name == "response"
    assert diff_runs(first, forked).first_divergence["sequence_id"] == 6
    # No credential anywhere it was stored.
    stored = json.dumps([list(Run.objects.values()), list(Node.objects.values("calls",
                        "spans", "error", "raw_output"))], default=str)  # fmt: skip
    assert "SECRET-0123456789" not in stored


MAPSTATES = """
import sys

from burr.core import ApplicationBuilder, State, action
from burr.core.parallelism import MapStates


@action(reads=["x"], writes=["y"])
def double(state: State) -> State:
    return state.update(y=state["x"] * 2)


class Fan(MapStates):
    def action(self, state, inputs):
        return double

    def states(self, state, context, inputs):
        for x in state["xs"]:
            yield state.update(x=x)

    def reduce(self, state, states):
        return state.update(ys=[s["y"] for s in states])

    @property
    def reads(self):
        return ["xs"]

    @property
    def writes(self):
        return ["ys"]


@action(reads=["ys"], writes=["total"])
def add(state: State) -> State:
    return state.update(total=sum(state["ys"]))


app = (
    ApplicationBuilder()
    .with_actions(fan=Fan(), add=add)
    .with_transitions(("fan", "add"))
    .with_state(xs=[1, 2, 3])
    .with_entrypoint("fan")
    .with_tracker("local", project="fanout", params={"storage_dir": sys.argv[1]})
    .with_identifiers(app_id="parent")
    .build()
)
app.run(halt_after=["add"])
"""


@pytest.mark.django_db(transaction=True)
def test_a_mapstates_apps_children_are_runs_linked_to_the_step(provider, tmp_path):
    storage = tmp_path / "burr"
    _program(tmp_path, provider, MAPSTATES, str(storage))
    report = import_path(storage)
    assert report.errors == [] and len(report.imported) == 4
    parent = Run.objects.get(imported_from__app_id="parent")
    assert [n.name for n in parent.nodes.order_by("sequence_id")] == ["fan", "add"]
    assert parent.nodes.get(name="add").output == {"total": 12}
    children = Run.objects.filter(spawned_by=parent)
    assert children.count() == 3
    assert set(children.values_list("spawned_sequence_id", flat=True)) == {0}
    assert sorted(c.nodes.get().output["y"] for c in children) == [2, 4, 6]
    from runs.engine.analysis.report import run_json

    assert sorted(run_json(parent)["children"]) == sorted(c.pk for c in children)
    assert run_json(children[0])["spawned_by"] == {"run": parent.pk, "sequence_id": 0}
