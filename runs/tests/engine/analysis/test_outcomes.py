"""Outcomes (issue 17, item 1): checks of every kind, paths into a step's output (its last or
k-th visit) and into the final state, declared by a pipeline, by ``REWIND_OUTCOMES`` (a Burr
app's, which cannot be edited) and on the dashboard; missing leaves as values of their own.

Burr apps: ``runs/tests/helpers/burr_apps.py`` (``jitter``: numbers [1, 2, 3] → total 6 →
label "total=6" → summary "TOTAL=6") and ``runs/tests/helpers/route_apps.py`` (``counter`` loops
three times).
"""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ImproperlyConfigured

from rewind_site.env import env_json_object
from runs.engine.analysis.leaves import MISSING, flatten, leaf_at, parse_path
from runs.engine.analysis.outcomes import (
    Check,
    Outcome,
    between,
    check_from_text,
    contains,
    equals,
    json_schema,
    matches,
    one_of,
    parse_outcome_path,
)
from runs.engine.analysis.outcomes.dashboard import add_outcome, remove_outcome
from runs.engine.analysis.outcomes.values import evaluate, evaluate_runs, outcomes_for
from runs.engine.apps import registry
from runs.engine.apps.specs import Pipeline, ToolNode
from runs.engine.errors import OutcomeError, PipelineError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.models import Outcome as OutcomeRow
from runs.models import Run
from runs.system_checks import outcome_settings

APPS = {
    "jitter": "runs.tests.helpers.burr_apps.jitter_application",
    "routes": "runs.tests.helpers.route_apps.counter_application",
}


@pytest.fixture
def apps(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    rewind_settings.REWIND_OUTCOMES = {}
    registry._load.cache_clear()
    yield rewind_settings
    registry._load.cache_clear()


def completed(run: Run) -> Run:
    run = execute_run(run.pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def values(run: Run) -> dict[str, tuple]:
    return {v.name: (v.value, v.passed, v.missing, v.why) for v in evaluate(run)}


# --- checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "value", "passed"),
    [
        (equals("A"), "A", True),
        (equals("A"), "B", False),
        (equals(1), 1.0, True),  # numbers by value
        (equals(1), True, False),  # but true is not 1
        (equals({"a": [1, 2]}), {"a": [1, 2]}, True),
        (equals({"a": [1, 2]}), {"a": [2, 1]}, False),
        (one_of("A", "B"), "B", True),
        (one_of("A", "B"), "C", False),
        (one_of("A", "B"), None, False),
        (contains("ok"), "it is ok now", True),
        (contains("ok"), "it is fine", False),
        (contains(2), [1, 2, 3], True),
        (contains(4), [1, 2, 3], False),
        (contains("k"), {"k": 1}, True),
        (contains("k"), {"j": 1}, False),
        (contains("k"), 5, False),
        (matches(r"^TOTAL=\d+$"), "TOTAL=6", True),
        (matches(r"^TOTAL=\d+$"), "total=6", False),
        (matches("x"), 5, False),  # not text
        (between(0, 10), 10, True),
        (between(0, 10), 10.5, False),
        (between(0, 10), -1, False),
        (between(low=3), 1e9, True),
        (between(high=3), 4, False),
        (between(0, 10), "5", False),  # text is not a number
        (between(0, 10), True, False),  # nor is a boolean
        (json_schema({"type": "object", "required": ["a"]}), {"a": 1}, True),
        (json_schema({"type": "object", "required": ["a"]}), {"b": 1}, False),
        (json_schema({"type": "string", "pattern": "^[A-C]$"}), "B", True),
        (json_schema({"type": "string", "pattern": "^[A-C]$"}), "D", False),
    ],
)
def test_each_check_kind_passes_and_fails_as_it_says(check, value, passed):
    result, why = check.judge(value)
    assert result is passed
    assert bool(why) is not passed  # a failure says why; a pass says nothing


@pytest.mark.parametrize(
    ("kind", "argument", "message"),
    [
        ("regex", "(unclosed", "does not compile"),
        ("regex", "", "pattern"),
        ("between", ["a", 3], "bounds must be numbers"),
        ("between", [None, None], "at least one bound"),
        ("between", [5, 1], "above the high bound"),
        ("between", [0, float("inf")], "bounds must be numbers"),
        ("between", 3, "[low, high]"),
        ("json_schema", {"type": "no-such-type"}, "not a valid schema"),
        ("json_schema", "string", "a JSON schema"),
        ("one_of", [], "non-empty list"),
        ("one_of", "A", "non-empty list"),
        ("resembles", "A", "unknown check"),
    ],
)
def test_a_bad_check_is_refused_when_declared(kind, argument, message):
    with pytest.raises(OutcomeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Check.parse(kind, argument)


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("equals", "3", {"equals": 3}),
        ("equals", "A", {"equals": "A"}),
        ("equals", '"3"', {"equals": "3"}),
        ("one_of", "A, B, C", {"one_of": ["A", "B", "C"]}),
        ("one_of", '["A", 1]', {"one_of": ["A", 1]}),
        ("regex", '"quoted"', {"regex": '"quoted"'}),
        ("between", "0..10", {"between": [0, 10]}),
        ("between", "..2.5", {"between": [None, 2.5]}),
        ("between", "[1, null]", {"between": [1, None]}),
        ("json_schema", '{"type": "string"}', {"json_schema": {"type": "string"}}),
    ],
)
def test_a_check_typed_by_a_person_is_read_per_kind(kind, text, expected):
    assert check_from_text(kind, text).as_json() == expected


def test_a_typed_check_refuses_what_it_cannot_read():
    with pytest.raises(OutcomeError, match="bounds must be numbers"):
        check_from_text("between", "low..10")
    with pytest.raises(OutcomeError, match="not valid JSON"):
        check_from_text("json_schema", "{type: string}")
    with pytest.raises(OutcomeError, match="without a check"):
        check_from_text("", "A")
    assert check_from_text("", "") is None


# --- paths ----------------------------------------------------------------------------------


def test_a_path_names_a_step_or_the_final_state_and_a_leaf():
    path = parse_outcome_path('analyse#2.groups.A["cost per"][0]')
    assert (path.step, path.visit, path.leaf) == ("analyse", 2, ("groups", "A", "cost per", 0))
    assert path.leaf_text == 'groups.A["cost per"][0]'
    state = parse_outcome_path("state.answer")
    assert (state.step, state.visit, state.leaf) == (None, None, ("answer",))
    whole = parse_outcome_path("summarise")
    assert (whole.step, whole.leaf) == ("summarise", ())


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "needs a path"),
        (".best_group", "must start with"),
        ("analyse.", "a key is missing"),
        ("analyse..x", "a path starts with a key"),
        ("analyse.a b", "cannot read"),
        ("analyse[x]", "cannot read"),
        ("analyse#0.x", "expected . or \\["),
        ("state", "name a key of the final state"),
        ("state#2.x", "has no visits"),
        ('analyse["unterminated]', "cannot read"),
    ],
)
def test_a_bad_path_is_refused_with_where_it_went_wrong(path, message):
    with pytest.raises(OutcomeError, match=message):
        Outcome("x", path)


def test_a_bad_name_is_refused():
    with pytest.raises(OutcomeError, match="outcome name"):
        Outcome("best group!", "analyse.best_group")


def test_every_path_the_diff_writes_reads_back_its_leaf():
    value = {
        "groups": {"A": {"cost": 1.5, "tags": ["x", {"deep": None}]}},
        "odd key": {"a.b": 1, "": 2, '"q"': 3},
        "empty": {},
        "list": [],
        "n": 0,
    }
    for path, leaf in flatten(value).items():
        found, why = leaf_at(value, parse_path(path))
        assert found == leaf and type(found) is type(leaf), (path, why)


def test_a_leaf_that_is_not_there_says_why():
    value = {"a": {"b": [1, 2]}}
    assert leaf_at(value, ("a", "c")) == (MISSING, "no a.c")
    assert leaf_at(value, ("a", "b", 5)) == (MISSING, "a.b has 2 item(s), no [5]")
    assert leaf_at(value, ("a", "b", "x")) == (MISSING, "a.b is not an object")
    assert leaf_at(value, ("a", 0)) == (MISSING, "a is not a list")


# --- declared by a pipeline -------------------------------------------------------------------


def test_the_demo_declares_best_group_from_the_analyse_step(research_run, run_fork):
    (value,) = evaluate(research_run)
    best = research_run.nodes.get(name="analyse").output["best_group"]
    assert (value.name, value.value, value.passed) == ("best_group", best, True)
    assert value.check.as_json() == {"one_of": ["A", "B", "C"]}
    # README: args.region=east changes the winning policy; the outcome follows the fork.
    fork = run_fork(research_run, "analyse", "args.region", "east")
    (forked,) = evaluate(fork)
    assert forked.value == fork.nodes.get(name="analyse").output["best_group"] != best


def test_an_overridden_output_that_names_no_group_fails_the_check(research_run, run_fork):
    output = dict(research_run.nodes.get(name="analyse").output, best_group=None)
    fork = run_fork(research_run, "analyse", "output", json.dumps(output))
    (value,) = evaluate(fork)
    assert (value.value, value.passed, value.missing) == (None, False, False)
    assert "is not" in value.why


def test_a_pipeline_refuses_an_outcome_of_a_step_it_lacks_or_a_name_twice():
    node = ToolNode(name="only", reads=(), args=lambda v: {}, run=lambda args, data_dir: 1)
    with pytest.raises(PipelineError, match="reads step 'other'"):
        Pipeline("p", "", (node,), (), "only", outcomes=(Outcome("x", "other.y"),))
    with pytest.raises(PipelineError, match="declares an outcome twice"):
        Pipeline(
            "p", "", (node,), (), "only", outcomes=(Outcome("x", "only"), Outcome("x", "only"))
        )


# --- a Burr app's outcomes, from REWIND_OUTCOMES ------------------------------------------


def test_a_burr_apps_outcomes_read_its_final_state_and_its_steps(apps):
    apps.REWIND_OUTCOMES = {
        "jitter": [
            {"name": "summary", "path": "state.summary", "check": {"regex": "^TOTAL=\\d+$"}},
            {"name": "total", "path": "add_up.total", "check": {"equals": 6}},
            {"name": "in_range", "path": "state.total", "check": {"between": [0, 5]}},
            {"name": "label", "path": "state.label", "check": {"contains": "total"}},
            {
                "name": "numbers",
                "path": "state.numbers",
                "check": {
                    "json_schema": {"type": "array", "items": {"type": "integer"}, "minItems": 3}
                },
            },
            {"name": "first", "path": "state.numbers[0]", "check": {"one_of": [1, 2]}},
            {"name": "plain", "path": "summarise.summary"},
        ]
    }
    run = completed(create_run("jitter", {}))
    assert values(run) == {
        "summary": ("TOTAL=6", True, False, ""),
        "total": (6, True, False, ""),
        "in_range": (6, False, False, "is above 5"),
        "label": ("total=6", True, False, ""),
        "numbers": ([1, 2, 3], True, False, ""),
        "first": (1, True, False, ""),
        "plain": ("TOTAL=6", None, False, ""),  # no check: pass is null
    }


def test_the_final_state_of_a_fork_is_read_where_its_steps_were_executed(apps):
    """A fork at the last step inherits the others: its final state is its own last row."""
    apps.REWIND_OUTCOMES = {"jitter": [{"name": "s", "path": "state.summary"}]}
    run = completed(create_run("jitter", {}))
    from runs.engine.forking.forks import create_fork

    fork = completed(create_fork(run, "summarise", "writes.summary", "changed"))
    assert values(fork)["s"][0] == "changed"
    assert values(run)["s"][0] == "TOTAL=6"


def test_a_step_path_reads_the_last_visit_and_step_k_the_kth(apps):
    apps.REWIND_OUTCOMES = {
        "routes": [
            {"name": "last", "path": "counter.counter"},
            {"name": "first", "path": "counter#1.counter"},
            {"name": "fourth", "path": "counter#4.counter", "check": {"equals": 4}},
            {"name": "never", "path": "start.nothing", "check": {"equals": 1}},
            {"name": "report", "path": "state.report"},
        ]
    }
    run = completed(create_run("routes", {}))
    got = values(run)
    assert got["last"][0] == 3 and got["first"][0] == 1
    assert got["fourth"] == (None, False, True, "missing: step counter ran 3 time(s), not 4")
    assert got["never"] == (None, False, True, "missing: start: no nothing")
    assert got["report"][0] == "counted to 3"


def test_a_missing_leaf_without_a_check_has_no_verdict_and_a_running_run_none_yet(apps, run_row):
    apps.REWIND_OUTCOMES = {
        "jitter": [
            {"name": "checked", "path": "summarise.summary", "check": {"equals": "x"}},
            {"name": "free", "path": "state.summary"},
        ]
    }
    queued = run_row(pipeline="jitter", status=Run.Status.QUEUED)
    got = values(queued)
    assert got["checked"] == (None, None, True, "missing: step summarise did not run")
    assert got["free"] == (None, None, True, "missing: no state yet")
    failed = run_row(pipeline="jitter", status=Run.Status.FAILED)
    assert values(failed)["checked"][1] is False  # finished without it: the check fails


def test_the_setting_wins_over_the_pipelines_own_declaration(apps, research_run):
    apps.REWIND_OUTCOMES = {
        "research": [{"name": "best_group", "path": "analyse.best_group", "check": {"equals": "Z"}}]
    }
    (value,) = evaluate(research_run)
    assert (value.passed, value.outcome.source) == (False, "settings")


def test_a_bad_setting_is_a_system_check_error(settings):
    settings.REWIND_OUTCOMES = {
        "jitter": [{"name": "x", "path": "state.y", "check": {"regex": "("}}]
    }
    (error,) = outcome_settings()
    assert error.id == "rewind.E003" and "does not compile" in error.msg
    settings.REWIND_OUTCOMES = {"jitter": [{"name": "x", "path": "state.y", "extra": 1}]}
    assert "unknown field" in outcome_settings()[0].msg
    settings.REWIND_OUTCOMES = {
        "jitter": [{"name": "x", "path": "s.y"}, {"name": "x", "path": "s.z"}]
    }
    assert "twice" in outcome_settings()[0].msg
    settings.REWIND_OUTCOMES = {"jitter": [{"name": "x", "path": "state.y"}]}
    assert outcome_settings() == []


def test_the_setting_is_read_inline_or_from_a_file(monkeypatch, tmp_path):
    monkeypatch.setenv("REWIND_OUTCOMES", '{"a": []}')
    assert env_json_object("REWIND_OUTCOMES") == {"a": []}
    path = tmp_path / "outcomes.json"
    path.write_text('{"b": [{"name": "x", "path": "state.y"}]}')
    monkeypatch.setenv("REWIND_OUTCOMES", str(path))
    assert env_json_object("REWIND_OUTCOMES")["b"][0]["name"] == "x"
    monkeypatch.setenv("REWIND_OUTCOMES", str(tmp_path / "nope.json"))
    with pytest.raises(ImproperlyConfigured, match="cannot read"):
        env_json_object("REWIND_OUTCOMES")
    monkeypatch.setenv("REWIND_OUTCOMES", "{not json")
    with pytest.raises(ImproperlyConfigured, match="not JSON"):
        env_json_object("REWIND_OUTCOMES")
    monkeypatch.setenv("REWIND_OUTCOMES", "[1]")
    with pytest.raises(ImproperlyConfigured, match="cannot read|JSON object"):
        env_json_object("REWIND_OUTCOMES")


# --- added on the dashboard -------------------------------------------------------------------


def test_a_dashboard_outcome_is_kept_evaluated_and_removed(apps, django_user_model):
    user = django_user_model.objects.create_user("dash")
    run = completed(create_run("jitter", {}))
    row = add_outcome("jitter", Outcome("sum", "state.total", between(6, 6), "dashboard"), user)
    assert (row.check_kind, row.check_argument, row.created_by) == ("between", [6, 6], user)
    (value,) = evaluate(run)
    assert (value.name, value.value, value.passed, value.outcome.row) == ("sum", 6, True, row.pk)
    assert remove_outcome("jitter", row.pk) is True
    assert evaluate(run) == []
    assert remove_outcome("jitter", row.pk) is False


def test_the_dashboard_refuses_a_declared_name_and_a_step_the_pipeline_lacks(apps):
    with pytest.raises(OutcomeError, match="declared by the pipeline's code"):
        add_outcome("research", Outcome("best_group", "state.analyse"))
    apps.REWIND_OUTCOMES = {"jitter": [{"name": "s", "path": "state.summary"}]}
    with pytest.raises(OutcomeError, match="set in REWIND_OUTCOMES"):
        add_outcome("jitter", Outcome("s", "state.total"))
    with pytest.raises(OutcomeError, match="no action 'add_upp'; its actions are add_up"):
        add_outcome("jitter", Outcome("t", "add_upp.total"))
    add_outcome("jitter", Outcome("t", "add_up.total"))
    with pytest.raises(OutcomeError, match="was added on the dashboard"):
        add_outcome("jitter", Outcome("t", "state.total"))
    assert OutcomeRow.objects.count() == 1


def test_a_declaration_shadows_a_dashboard_row_added_before_it(apps):
    add_outcome("jitter", Outcome("s", "state.total"))
    apps.REWIND_OUTCOMES = {"jitter": [{"name": "s", "path": "state.summary"}]}
    (outcome,) = outcomes_for("jitter")
    assert (outcome.path, outcome.source) == ("state.summary", "settings")


def test_outcomes_of_many_runs_take_the_same_queries_as_of_one(apps, django_assert_num_queries):
    apps.REWIND_OUTCOMES = {
        "jitter": [
            {"name": "s", "path": "state.summary"},
            {"name": "t", "path": "add_up.total", "check": {"equals": 6}},
        ]
    }
    runs = [completed(create_run("jitter", {})) for _ in range(3)]
    # 1. the dashboard's outcomes  2. the named steps and each run's last step, with the
    # outputs of the visits read  3. the final states
    with django_assert_num_queries(3):
        one = evaluate_runs(runs[:1])
    with django_assert_num_queries(3):
        many = evaluate_runs(runs)
    assert [v.value for v in one[runs[0].pk]] == ["TOTAL=6", 6]
    assert all([v.value for v in many[r.pk]] == ["TOTAL=6", 6] for r in runs)


def test_a_declared_pipelines_final_state_holds_each_nodes_output(research_run):
    outcome = Outcome("best", "state.analyse.best_group")
    (value,) = evaluate(research_run, outcomes=[outcome])
    assert value.value == research_run.nodes.get(name="analyse").output["best_group"]
