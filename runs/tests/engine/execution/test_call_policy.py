"""How a run answers its calls is one value (issue 41, item 10; DESIGN.md, "Hermetic replays"):
``CallPolicy``, built once where the run is set up, carried on ``RunContext.policy`` and handed
to each step's capture, whose decisions — look up or not, refuse a miss, stop a preview, guard
the step — are the policy's. What each kind of run gets, what each policy decides, which
combinations are refused, and that the runner, the recorder and the preview pass it down.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.apps.versions import app_version
from runs.engine.calls.capture import StepCalls
from runs.engine.calls.policy import DEFAULT, LIVE, PREVIEW, Answering, CallPolicy
from runs.engine.execution import recorder as recorder_module
from runs.engine.execution import runner
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking import preview as preview_module
from runs.engine.forking.forks import create_fork, make_fork
from runs.engine.forking.replays import create_replay, regression_request
from runs.models import Run

REPLAY, FORK = Answering.REPLAY, Answering.FORK

# -- the policy each kind of run gets ---------------------------------------------------------

PARENT = Run(pk=1, pipeline="research")  # a root run, unsaved: nothing here is read back
CHANGE = {"node": "plan", "field": "prompt", "value": "x"}
A_FORK = Run(pk=2, pipeline="research", parent=PARENT, override=CHANGE, fork_sequence_id=1)


def a_run(**fields: Any) -> Run:
    """An unsaved run: ``CallPolicy.of_run`` reads its fields and, for a run with an override,
    its parent (whether it carries the same one: then it is a replay of that fork)."""
    return Run(pipeline="research", **fields)


RUN_KINDS = [
    # (what, the run's fields, REWIND_ALLOW_NETWORK, the policy it gets)
    ("a new run in cache mode", {}, False, CallPolicy(FORK)),
    ("a new live run", {"mode": "live"}, False, LIVE),
    ("an unchanged replay", {"parent": PARENT}, False, CallPolicy(REPLAY)),
    (
        "an unchanged replay with --allow-network",
        {"parent": PARENT, "allow_network": True},
        False,
        CallPolicy(REPLAY, allow_network=True),
    ),
    (
        "an unchanged replay under REWIND_ALLOW_NETWORK",
        {"parent": PARENT},
        True,
        CallPolicy(REPLAY, allow_network=True),
    ),
    (
        "a fork",
        {"parent": PARENT, "override": CHANGE},
        False,
        CallPolicy(FORK),
    ),
    (
        "a fork with --allow-network",
        {"parent": PARENT, "override": CHANGE, "allow_network": True},
        False,
        CallPolicy(FORK, allow_network=True),
    ),
    (
        "an unchanged replay of a fork (its override again)",
        {"parent": A_FORK, "override": CHANGE, "fork_sequence_id": 1},
        False,
        CallPolicy(REPLAY),
    ),
    ("a live replay", {"parent": PARENT, "mode": "live"}, False, LIVE),
    # allow_network lifts nothing on a live run: it is not carried.
    ("a live run with --allow-network", {"mode": "live", "allow_network": True}, False, LIVE),
    ("a live run under REWIND_ALLOW_NETWORK", {"mode": "live"}, True, LIVE),
    # A stability sample measures jitter: never held to the recording, whatever its mode.
    ("a sample", {"parent": PARENT, "sample_of": PARENT, "mode": "live"}, False, LIVE),
    (
        "a sample in cache mode",
        {"parent": PARENT, "sample_of": PARENT},
        False,
        CallPolicy(FORK),
    ),
    (
        "a regression run",
        {"parent": PARENT, "regression_code": "c0de"},
        False,
        CallPolicy(FORK, regression=True),
    ),
    (
        "a regression run with --allow-network",
        {"parent": PARENT, "regression_code": "c0de", "allow_network": True},
        False,
        CallPolicy(FORK, allow_network=True, regression=True),
    ),
    (
        "a regression's live sample (or full re-run)",
        {"parent": PARENT, "regression_code": "c0de", "mode": "live"},
        False,
        CallPolicy(Answering.LIVE, regression=True),
    ),
]


@pytest.mark.parametrize(
    ("fields", "setting", "expected"),
    [case[1:] for case in RUN_KINDS],
    ids=[case[0] for case in RUN_KINDS],
)
def test_each_kind_of_run_gets_its_policy(settings, fields, setting, expected):
    settings.REWIND_ALLOW_NETWORK = setting

    assert CallPolicy.of_run(a_run(**fields)) == expected


# -- what each policy decides -----------------------------------------------------------------

DECIDES = (
    "kind",
    "reads_cache",
    "refuses_misses",
    "stops_at_miss",
    "writes",
    "guards an unchanged step",
    "guards a changed step",
    "every_step_unchanged",
    "rekeys_changed_tools",
)
DECISIONS = [
    # policy: kind, reads cache, refuses misses, stops at miss, writes,
    #         guards(unchanged), guards(changed), every step unchanged, rekeys tools
    (CallPolicy(REPLAY), ("replay", 1, 1, 0, 1, 1, 1, 1, 0)),
    (CallPolicy(REPLAY, allow_network=True), ("replay", 1, 0, 0, 1, 0, 0, 1, 0)),
    (CallPolicy(FORK), ("fork", 1, 0, 0, 1, 1, 0, 0, 0)),
    (CallPolicy(FORK, allow_network=True), ("fork", 1, 0, 0, 1, 0, 0, 0, 0)),
    (CallPolicy(FORK, regression=True), ("regression", 1, 0, 0, 1, 1, 0, 0, 1)),
    (
        CallPolicy(FORK, allow_network=True, regression=True),
        ("regression", 1, 0, 0, 1, 0, 0, 0, 1),
    ),
    (LIVE, ("live", 0, 0, 0, 1, 0, 0, 0, 0)),
    (CallPolicy(Answering.LIVE, regression=True), ("live", 0, 0, 0, 1, 0, 0, 0, 1)),
    (PREVIEW, ("preview", 1, 0, 1, 0, 1, 1, 0, 0)),
]


def named(policy: CallPolicy) -> str:
    flags = [f for f in ("allow_network", "regression") if getattr(policy, f)]
    return "+".join([policy.mode.value, *flags])


def decisions(policy: CallPolicy) -> dict[str, Any]:
    return {
        "kind": policy.kind,
        "reads_cache": policy.reads_cache,
        "refuses_misses": policy.refuses_misses,
        "stops_at_miss": policy.stops_at_miss,
        "writes": policy.writes,
        "guards an unchanged step": policy.guards(unchanged=True),
        "guards a changed step": policy.guards(unchanged=False),
        "every_step_unchanged": policy.every_step_unchanged,
        "rekeys_changed_tools": policy.rekeys_changed_tools,
    }


@pytest.mark.parametrize(("policy", "row"), DECISIONS, ids=[named(p) for p, _ in DECISIONS])
def test_what_each_policy_decides(policy, row):
    pairs = zip(DECIDES, row, strict=True)
    expected = {name: value if name == "kind" else bool(value) for name, value in pairs}

    assert decisions(policy) == expected


@pytest.mark.parametrize(("policy", "row"), DECISIONS, ids=[named(p) for p, _ in DECISIONS])
def test_a_step_capture_decides_as_its_policy_does(policy, row):
    """``StepCalls`` keeps no flag of its own: what the guard and the process and MCP adapters
    read of it (``guarded``, ``live``, ``preview``) is its policy's decision."""
    for unchanged in (True, False):
        calls = StepCalls(sequence_id=0, action="a", policy=policy, unchanged=unchanged)

        assert calls.guarded is policy.guards(unchanged)
        assert calls.live is not policy.reads_cache
        assert calls.preview is policy.stops_at_miss


def test_a_capture_on_its_own_reads_the_cache_and_live_is_a_shorthand():
    assert StepCalls(sequence_id=0, action="a").policy == DEFAULT == CallPolicy(FORK)
    assert StepCalls(sequence_id=0, action="a", live=True).policy == LIVE
    assert StepCalls(sequence_id=0, action="a", live=True, policy=LIVE).live
    with pytest.raises(ValueError, match="live=True and a replay policy"):
        StepCalls(sequence_id=0, action="a", live=True, policy=CallPolicy(REPLAY))


# -- combinations refused ---------------------------------------------------------------------

REFUSED = [
    # A preview lets nothing out, a live run everything: neither has a refusal to lift.
    ("a preview with the network allowed", {"mode": Answering.PREVIEW, "allow_network": True}),
    ("a live run with the network allowed", {"mode": Answering.LIVE, "allow_network": True}),
    # A regression run re-runs new code: never an unchanged replay, never a fork's plan.
    ("a regression that is an unchanged replay", {"mode": REPLAY, "regression": True}),
    ("a regression preview", {"mode": Answering.PREVIEW, "regression": True}),
]


@pytest.mark.parametrize("fields", [f for _, f in REFUSED], ids=[what for what, _ in REFUSED])
def test_a_combination_that_means_nothing_is_refused(fields):
    with pytest.raises(ValueError, match="means nothing|never a"):
        CallPolicy(**fields)


def test_the_policy_is_one_frozen_value():
    policy = CallPolicy(REPLAY)

    with pytest.raises(TypeError, match="an Answering"):
        CallPolicy("replay")  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.allow_network = True  # type: ignore[misc]
    assert policy == CallPolicy(REPLAY) and hash(policy) == hash(CallPolicy(REPLAY))


# -- passed down: the runner builds it, the recorder hands it to each step's capture -----------


@action(reads=["n"], writes=["n"])
def bump(state: State) -> State:
    return state.update(n=state["n"] + 1)


def bump_application():
    return (
        ApplicationBuilder().with_actions(bump=bump).with_state(n=1).with_entrypoint("bump").build()
    )


@pytest.fixture
def seen(rewind_settings, monkeypatch, db) -> Iterator[dict[str, list]]:
    """Registers ``bump``; records the policy of every context the runner builds and what each
    step's capture was handed."""
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "bump": "runs.tests.engine.execution.test_call_policy.bump_application",
    }
    registry._load.cache_clear()
    found: dict[str, list] = {"contexts": [], "steps": []}
    built = runner._context

    def context(*args: Any) -> Any:
        ctx = built(*args)
        found["contexts"].append(ctx.policy)
        return ctx

    def step_calls(**kwargs: Any) -> StepCalls:
        calls = StepCalls(**kwargs)
        found["steps"].append((calls.policy, calls.unchanged))
        return calls

    monkeypatch.setattr(runner, "_context", context)
    monkeypatch.setattr(recorder_module, "StepCalls", step_calls)
    yield found
    registry._load.cache_clear()


def test_the_runner_builds_the_policy_once_and_each_step_is_handed_it(seen):
    source = execute_run(create_run("bump", {}).pk)
    replay = execute_run(create_replay(source).pk)
    allowed = execute_run(create_replay(source, allow_network=True).pk)
    live = execute_run(create_replay(source, live=True).pk)
    fork = execute_run(create_fork(source, "bump", "state.n", "5").pk)
    code = app_version(registry.get_pipeline("bump")).version
    regression = execute_run(make_fork(regression_request(source, code)).pk)

    runs = [source, replay, allowed, live, fork, regression]
    assert [r.status for r in runs] == [Run.Status.COMPLETED] * len(runs), [r.error for r in runs]
    assert seen["contexts"] == [
        CallPolicy(FORK),
        CallPolicy(REPLAY),
        CallPolicy(REPLAY, allow_network=True),
        LIVE,
        CallPolicy(FORK),
        CallPolicy(FORK, regression=True),
    ]
    # One step each, handed the run's policy and whether it re-executes its source's step
    # unchanged: a replay's by definition; a live replay's too (guarded all the same: not at
    # all); a fork's overridden step not; a regression's step whose code did not change, yes.
    assert seen["steps"] == [
        (CallPolicy(FORK), False),
        (CallPolicy(REPLAY), True),
        (CallPolicy(REPLAY, allow_network=True), True),
        (LIVE, True),
        (CallPolicy(FORK), False),
        (CallPolicy(FORK, regression=True), True),
    ]
    guarded = [policy.guards(unchanged) for policy, unchanged in seen["steps"]]
    assert guarded == [False, True, False, False, False, True]


def test_a_preview_walks_under_the_preview_policy(research_run, monkeypatch):
    from runs.engine.apps.registry import get_pipeline

    policies: list[CallPolicy] = []
    made = preview_module.make_context

    def context(**kwargs: Any) -> Any:
        ctx = made(**kwargs)
        policies.append(ctx.policy)
        return ctx

    monkeypatch.setattr(preview_module, "make_context", context)
    target = research_run.nodes.order_by("sequence_id")[1]

    plan = preview_module.preview(research_run, target, None, get_pipeline("research"))

    assert policies == [PREVIEW]
    assert plan["first_miss"] is None and not plan["live"]  # the whole run, from the cache
