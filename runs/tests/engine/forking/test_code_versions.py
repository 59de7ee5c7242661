"""Each step knows its code version (issue 31, item 4): a hash of its action's source as Burr holds
it. The app's module edited after recording — the action's body rewritten, the module imported
again — makes its replay report that step "code changed" (run JSON, replay verdict, step page,
compare page), never "non-deterministic"; and the line the edit added, which the recording has
no value for, is named as not replayed.
"""

from __future__ import annotations

import importlib
import shutil
import sys
import textwrap

import pytest
from django.urls import reverse

from runs.engine.analysis.diff import diff_runs
from runs.engine.analysis.report import run_json
from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Run

MODULE = "rewind_edited_app"
APP = textwrap.dedent(
    """
    import time

    from burr.core import ApplicationBuilder, State
    from burr.core.action import action


    @action(reads=[], writes=["total", "stamp"])
    def tally(state: State) -> State:
        stamp = time.time()
        return state.update(total=BODY, stamp=stamp)


    @action(reads=["total"], writes=["label"])
    def label(state: State) -> State:
        return state.update(label=f"total={state['total']}")


    def application():
        return (
            ApplicationBuilder()
            .with_actions(tally=tally, label=label)
            .with_transitions(("tally", "label"))
            .with_entrypoint("tally")
            .build()
        )
    """
)
EDIT = "sum(range(10))"
EDITED = "sum(range(20)) + int(random.random() * 0)"  # and a new read, on a line of its own


def write_app(path, body: str) -> None:
    text = APP.replace("BODY", body)
    if "random" in body:  # on the same line: the lines below it do not move
        text = text.replace("import time", "import random, time")
    (path / f"{MODULE}.py").write_text(text)
    shutil.rmtree(path / "__pycache__", ignore_errors=True)


def reimport() -> None:
    """What a person does after editing the app: the registry and Python's import caches
    forget the old module, so the next run imports the new source."""
    sys.modules.pop(MODULE, None)
    importlib.invalidate_caches()
    registry._load.cache_clear()


@pytest.fixture
def edited_app(rewind_settings, db, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    write_app(tmp_path, EDIT)
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "edited": f"{MODULE}.application",
    }
    reimport()
    yield tmp_path
    reimport()


def record() -> Run:
    source = execute_run(create_run("edited", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    return source


def test_an_edited_action_is_reported_code_changed_not_nondeterministic(edited_app):
    source = record()
    write_app(edited_app, EDITED)
    reimport()

    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)

    assert replay.status == Run.Status.COMPLETED, replay.error
    assert verdict.verdict == "diverged"
    assert verdict.nondeterministic == []  # the edit, not chance
    assert verdict.code_changed == [
        {"node": "tally", "sequence_id": 0, "why": ["the action's source changed"]}
    ]
    nodes = {n["name"]: n for n in run_json(replay)["nodes"]}
    before = {n["name"]: n for n in run_json(source)["nodes"]}
    assert nodes["tally"]["code_changed"] is True
    assert nodes["label"]["code_changed"] is False
    assert nodes["tally"]["code_version"] != before["tally"]["code_version"]
    assert nodes["label"]["code_version"] == before["label"]["code_version"]
    # The stamp replayed (its line did not move); the new random read had nothing recorded.
    stamps = [run.nodes.get(name="tally").output["stamp"] for run in (source, replay)]
    assert stamps[0] == stamps[1]
    [missed] = nodes["tally"]["not_replayed"]
    assert missed["line"].startswith(f"{MODULE}:") and missed["what"] == "random"

    diff = diff_runs(source, replay)
    assert diff.nondeterministic == []
    assert [(c["node"], c["why"]) for c in diff.code_changed] == [
        ("tally", ["the action's source changed"])
    ]


def test_the_step_and_compare_pages_say_code_changed(edited_app, signed_in):
    source = record()
    write_app(edited_app, EDITED)
    reimport()
    replay = execute_run(create_replay(source).pk)

    page = signed_in.get(reverse("node-detail", args=[replay.pk, 0])).content.decode()
    assert "code changed since the step this one re-executed" in page
    assert "the action&#x27;s source changed" in page
    assert "Not replayed: 1 line" in page
    untouched = signed_in.get(reverse("node-detail", args=[replay.pk, 1])).content.decode()
    assert "code changed" not in untouched

    compare = signed_in.get(reverse("compare", args=[source.pk, replay.pk])).content.decode()
    assert "Code changed: <strong>tally</strong>" in compare
    assert "Non-deterministic code" not in compare


def test_an_unchanged_action_keeps_its_code_version_and_replays_identical(edited_app):
    source = record()
    reimport()  # imported again, not edited: the same source, the same version

    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)

    assert verdict.verdict == "identical", verdict
    assert verdict.code_changed == []
    versions = [(n.name, n.code_version) for n in source.nodes.order_by("sequence_id")]
    assert [(n.name, n.code_version) for n in replay.nodes.order_by("sequence_id")] == versions
    assert all(len(version) == 64 for _, version in versions)
    assert not replay.nodes.filter(code_changed=True).exists()
