"""A fork of a Burr app's step may set the state keys the conditions after that step read, not
only the keys its action reads (issue 16, item 15): ``state.counter_limit`` at a counter whose
loop condition is ``counter < counter_limit`` changes how often it loops; ``state.mode`` at an
action that reads nothing changes which branch follows it. The fields are offered by the
fork editor and listed in ``--json``'s ``fields``; a key the step writes itself is refused,
naming ``writes.KEY`` (a value set before it runs would be overwritten: a silent no-op).

Own app: ``runs/tests/helpers/route_apps.py``; Burr's shipped chatbot for the refusal, run unchanged
against the simulator on loopback (``test_burr_apps``' fixtures).
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from runs.engine.apps import registry
from runs.engine.errors import OverrideError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork, resolve_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import BurrState, Node, Run
from runs.tests.helpers import burr_examples as burr_apps
from runs.tests.helpers.burr_examples import QUESTION, step

# The shipped examples' fixtures (simulator on loopback, the apps registered), shared.
apps, provider, chat = burr_apps.apps, burr_apps.provider, burr_apps.chat

APP = "runs.tests.helpers.route_apps.counter_application"


@pytest.fixture
def counter_app(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, "routes": APP}
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def completed(run: Run) -> Run:
    run.refresh_from_db()
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


def names(run: Run) -> list[str]:
    return list(run.nodes.order_by("sequence_id").values_list("name", flat=True))


def source() -> Run:
    return completed(execute_run(create_run("routes", {}).pk))


def fork(run: Run, node: str, field: str, value: str) -> Run:
    return completed(execute_run(create_fork(run, node, field, value).pk))


def test_the_counter_loops_while_counter_is_below_counter_limit(counter_app):
    assert names(source()) == ["start", "counter", "counter", "counter", "report"]


def test_a_key_only_a_condition_reads_is_a_field_of_the_step_with_its_value(counter_app):
    json_out = io.StringIO()
    call_command("rewind_run", "--pipeline", "routes", "--json", stdout=json_out)
    fields = [n["fields"] for n in json.loads(json_out.getvalue())["nodes"]]

    # start reads nothing; its condition reads mode. counter's reads counter_limit.
    assert fields[0] == {"state.mode": "count", "writes.started": True}
    assert fields[1] == {"state.counter": 0, "state.counter_limit": 3, "writes.counter": 1}
    assert fields[3]["state.counter_limit"] == 3
    # report has only a default transition after it: nothing more to set.
    assert set(fields[4]) == {"state.counter", "writes.report"}


def test_setting_counter_limit_at_a_counter_step_changes_how_often_it_loops(counter_app):
    run = source()

    longer = fork(run, "counter#2", "state.counter_limit", "5")
    shorter = fork(run, "counter#2", "state.counter_limit", "1")

    assert names(longer) == ["start"] + ["counter"] * 5 + ["report"]
    assert longer.nodes.get(name="report").output == {"report": "counted to 5"}
    # counter#2 counts to 2 whatever the limit; then 2 < 1 is false: straight to report.
    assert names(shorter) == ["start", "counter", "counter", "report"]
    assert shorter.override == {"node": "counter", "field": "state.counter_limit", "value": 1}


def test_a_state_override_changes_the_route_after_its_step_never_into_it(counter_app):
    # counter=10 before counter#2: Burr would route counter#1 → report on it; the fork still
    # runs counter#2 (on 10, so 11) and only then leaves the loop.
    run = source()

    jumped = fork(run, "counter#2", "state.counter", "10")

    assert names(jumped) == ["start", "counter", "counter", "report"]
    assert jumped.nodes.get(sequence_id=2).output == {"counter": 11}


def test_an_unchanged_replay_of_such_a_fork_reproduces_it(counter_app):
    longer = fork(source(), "counter#2", "state.counter_limit", "5")

    again = completed(execute_run(create_replay(longer).pk))

    assert names(again) == names(longer)
    assert replay_verdict(longer, again).verdict == "identical"
    states = [
        list(
            BurrState.objects.filter(app_id=str(r.pk))
            .order_by("sequence_id")
            .values_list("sequence_id", "state_blob_id")
        )
        for r in (longer, again)
    ]
    replayed = {seq for seq, _ in states[1]}
    assert [s for s in states[0] if s[0] in replayed] == states[1]  # byte-identical state rows


def test_setting_mode_at_an_action_that_reads_nothing_takes_the_other_branch(counter_app):
    run = source()

    skipped = fork(run, "start", "state.mode", "skip")

    assert names(skipped) == ["start", "report"]
    assert skipped.nodes.get(name="report").output == {"report": "counted to 0"}
    assert skipped.nodes.get(name="start").cache_source == Node.CacheSource.LIVE


def test_the_fork_editor_offers_the_condition_key_prefilled(counter_app, signed_in):
    run = source()

    page = signed_in.get(f"/runs/{run.pk}/nodes/1/fork/").content.decode()

    assert 'name="state.counter_limit"' in page
    assert 'name="state.counter_limit" value="3"' in page
    response = signed_in.post(f"/runs/{run.pk}/nodes/1/fork/", {"state.counter_limit": "4"})
    assert response.status_code == 302
    made = Run.objects.order_by("-pk").first()
    assert made.override == {"node": "counter", "field": "state.counter_limit", "value": 4}


def test_a_condition_key_override_is_typed_like_its_value(counter_app):
    run = source()

    with pytest.raises(OverrideError, match="state.counter_limit: expected int like 3"):
        resolve_fork(run, "counter", "state.counter_limit", "many")


def test_a_key_the_step_writes_itself_is_refused_naming_writes(apps, chat):
    # The shipped chatbot: the conditions after decide_mode read ``mode``, which decide_mode
    # writes — a value set before it runs would be overwritten, so writes.mode is the field.
    parent = chat(QUESTION)
    decide = step(parent, "decide_mode")
    spec = registry.get_pipeline("chatbot").node("decide_mode")
    assert spec.route_reads == ()

    with pytest.raises(OverrideError, match=r"decide_mode writes 'mode' itself.*writes\.mode"):
        resolve_fork(parent, str(decide.sequence_id), "state.mode", "generate_code")
