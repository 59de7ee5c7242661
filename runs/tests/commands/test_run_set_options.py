"""One option vocabulary for the commands that run many runs (``runs/management/run_sets.py``).

Each command is run with the new spelling (``--runs``, ``--samples``) and the old one (a
positional run, ``-k``) and gives the same outcome; ``--help`` names the old spelling; what the
vocabulary adds (``--where``/``--limit`` on ``rewind_replay``, ``--workers``/``--enqueue`` on
``rewind_stability``) does what it says; and a request that cannot be asked is one line, exit
status 2, and writes nothing.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

import pytest
from django.core.management import call_command, load_command_class
from django.core.management.base import CommandError

from runs.models import Batch, Grid, Run
from runs.tests.helpers import pid_apps
from runs.tests.helpers.bisect_runs import apps, relay_runs  # noqa: F401 — the fixture, shared
from runs.tests.helpers.pid_apps import completed, recorded_pids

pids = pid_apps.pids  # the fixture (helpers/pid_apps.py): the step records the pid executing it

pytestmark = pytest.mark.django_db

OLD = "kept until the next release"


def command(name: str, *args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command(name, *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def refused(name: str, *args: str) -> str:
    """``name args`` refused as bad input: exit status 2, one line, nothing written."""
    before = (Run.objects.count(), Batch.objects.count(), Grid.objects.count())
    with pytest.raises(CommandError) as caught:
        call_command(name, *args, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert caught.value.returncode == 2, message
    assert message and "\n" not in message
    assert (Run.objects.count(), Batch.objects.count(), Grid.objects.count()) == before
    return message


def help_text(name: str) -> str:
    return load_command_class("runs", name).create_parser("manage.py", name).format_help()


def verdicts(data: dict[str, Any]) -> list[tuple[int, str]]:
    return [(r["run"], r["verdict"]) for r in data["results"]]


# --- the new spelling and the old one: the same outcome -----------------------------------------


def test_replay_runs_and_the_positional_run_replay_the_same_runs(research_run):
    pk = str(research_run.pk)

    new, old = command("rewind_replay", "--runs", pk), command("rewind_replay", pk)

    assert verdicts(new) == verdicts(old) == [(research_run.pk, "identical")]
    assert command("rewind_replay", pk, "--runs", pk)["requested"] == 1  # the same run twice


def test_grid_runs_and_the_positional_run_make_the_same_grid(research_run):
    change = ("--node", "analyse", "--field", "args.region", "--values", "all", "east")

    new = command("rewind_grid", "--runs", str(research_run.pk), *change)
    old = command("rewind_grid", str(research_run.pk), *change)

    assert new["grid"] != old["grid"] and new["run"] == old["run"] == research_run.pk

    def shape(data: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [
            (r["value"], r["status"], r["letters"], r["changed_nodes"], r["artifact_sha256"])
            for r in data["rows"]
        ]

    assert shape(new) == shape(old)
    assert [r[0] for r in shape(new)] == ["all", "east"] and shape(new)[1][3]  # east changes


def test_stability_samples_and_k_take_the_same_samples(research_run):
    pk = str(research_run.pk)

    new = command("rewind_stability", "--runs", pk, "--node", "critique", "--samples", "2")
    old = command("rewind_stability", pk, "--node", "critique", "-k", "2")

    assert new["k"] == old["k"] == 2
    assert len(new["replays"]) == len(old["replays"]) == 2
    assert new["steps"] == old["steps"]
    assert {s["name"] for s in new["steps"]} == {
        "critique",
        "revise",
        "compose",
        "verify",
        "publish",
    }
    research_run.refresh_from_db()
    assert research_run.sample_count == 4


def test_bisect_runs_and_the_positional_pair_name_the_same_step(apps):  # noqa: F811
    good, bad = relay_runs("relay12", 7)
    pair = (str(good.pk), str(bad.pk))

    new = command("rewind_bisect", "--runs", *pair, "--outcome", "verdict")
    old = command("rewind_bisect", *pair, "--outcome", "verdict")

    assert new["step"] == old["step"] == {"node": "s07", "sequence_id": 6}
    # The default budget (⌈log₂ 12⌉ + 2) leaves steps untried: monotone unknown, the same forks.
    assert new["monotone"] is old["monotone"] is None and new["forks"] == old["forks"]
    assert new["leaves"] == old["leaves"] and new["good"] == good.pk and new["bad"] == bad.pk


@pytest.mark.parametrize(
    ("name", "old", "says"),
    [
        ("rewind_stability", "-k K", "the old spelling of --samples, " + OLD),
        ("rewind_stability", "RUN", "the old spelling of --runs RUN, " + OLD),
        ("rewind_grid", "RUN", "the old spelling of --runs RUN, " + OLD),
        ("rewind_bisect", "GOOD", "the old spelling of --runs GOOD BAD, " + OLD),
        ("rewind_replay", "RUN", "the old spelling of --runs, " + OLD),
    ],
)
def test_help_names_the_old_spelling(name, old, says):
    text = " ".join(help_text(name).split())  # argparse wraps the help

    assert f"{old} {says}" in text


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("rewind_replay", {"--runs", "--where", "--limit", "--workers", "--enqueue", "--json"}),
        (
            "rewind_batch",
            {"--runs", "--where", "--limit", "--samples", "--workers", "--enqueue", "--json"},
        ),
        (
            "rewind_regress",
            {"--runs", "--where", "--limit", "--samples", "--workers", "--enqueue", "--json"}
            | {"--junit"},
        ),
        ("rewind_stability", {"--runs", "--samples", "--workers", "--enqueue", "--json"}),
        ("rewind_grid", {"--runs", "--json"}),
        ("rewind_bisect", {"--runs", "--json"}),
    ],
)
def test_each_command_has_the_groups_it_supports_and_no_other(name, options):
    vocabulary = {"--runs", "--where", "--limit", "--samples", "--workers", "--enqueue"}
    vocabulary |= {"--json", "--junit"}
    parser = load_command_class("runs", name).create_parser("manage.py", name)
    spelled = {s for action in parser._actions for s in action.option_strings}

    assert spelled & vocabulary == options


# --- what the vocabulary adds ----------------------------------------------------------------


def test_replay_where_narrows_the_pipeline_to_runs_of_that_input(run_pipeline):
    east = [run_pipeline("research", {"region": "east"}) for _ in range(2)]
    run_pipeline("research", {"region": "west"})

    data = command("rewind_replay", "--pipeline", "research", "--where", "input.region=east")

    assert verdicts(data) == [(run.pk, "identical") for run in east]


def test_replay_limit_takes_the_newest_runs_of_the_selection(run_pipeline):
    runs = [run_pipeline("research") for _ in range(3)]

    data = command("rewind_replay", "--all", "--limit", "2")

    assert [pk for pk, _ in verdicts(data)] == [runs[1].pk, runs[2].pk]


def test_batch_limit_takes_the_newest_runs_of_the_pipeline(run_pipeline):
    runs = [run_pipeline("research") for _ in range(3)]

    data = command(
        "rewind_batch", "--pipeline", "research", "--limit", "2",
        "--node", "analyse", "--set", "args.cost_scale=2",
    )  # fmt: skip

    assert [row["run"] for row in data["sources"]] == [runs[1].pk, runs[2].pk]


def test_stability_enqueue_queues_the_samples_and_judges_nothing(
    research_run, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        data = command(
            "rewind_stability", "--runs", str(research_run.pk), "--samples", "2", "--enqueue"
        )

    assert data["queued"] is True and data["steps"] == []
    samples = Run.objects.filter(sample_of=research_run)
    assert sorted(data["replays"]) == sorted(s.pk for s in samples)
    assert {s.status for s in samples} == {Run.Status.QUEUED}
    assert len(callbacks) == 2  # each sample, enqueued once its rows commit


@pytest.mark.django_db(transaction=True)  # worker processes see committed rows
def test_stability_workers_execute_the_samples_in_other_processes(pids):
    source = completed("pids")
    recorded_pids(pids)  # the source's own step ran here

    here = command("rewind_stability", "--runs", str(source.pk), "--samples", "3")
    in_here = recorded_pids(pids)
    there = command(
        "rewind_stability", "--runs", str(source.pk), "--samples", "3", "--workers", "2"
    )
    in_there = recorded_pids(pids)

    assert set(in_here) == {os.getpid()} and sum(in_here.values()) == 3
    assert in_there and os.getpid() not in in_there and sum(in_there.values()) == 3
    assert there["steps"] == here["steps"]
    assert {s["name"]: s["same_as_source"] for s in there["steps"]} == {"count": 3, "finish": 3}
    assert {r.status for r in Run.objects.filter(pk__in=there["replays"])} == {"completed"}


# --- requests that cannot be asked: exit 2, nothing written ------------------------------------


def test_a_positional_run_and_runs_naming_different_runs_are_refused(run_pipeline):
    a, b = (str(run_pipeline("research").pk) for _ in range(2))
    grid = ("--node", "analyse", "--field", "args.region", "--values", "east")

    assert "name different runs" in refused("rewind_grid", a, "--runs", b, *grid)
    assert "name different runs" in refused("rewind_stability", a, "--runs", b, "-k", "1")
    assert "name different runs" in refused("rewind_replay", a, "--runs", b)
    assert "name different runs" in refused("rewind_bisect", a, b, "--runs", b, a, "--outcome", "x")


@pytest.mark.parametrize(
    ("name", "args", "says"),
    [
        ("rewind_replay", ("--all", "--limit", "0"), "--limit must be at least 1, got 0"),
        ("rewind_replay", ("{run}", "--limit", "1"), "--runs names every run"),
        ("rewind_replay", ("--all", "--where", "input.region=east"), "--where narrows a --pipeline"),
        ("rewind_replay", ("--pipeline", "research", "--where", "region"), "input.NAME=VALUE"),
        ("rewind_replay", ("{run}", "--workers", "0"), "--workers must be between 1 and 32"),
        ("rewind_replay", ("{run}", "--workers", "2", "--enqueue"), "--workers or --enqueue"),
        ("rewind_replay", ("{run}", "--all"), "give run ids or --all, not both"),
        ("rewind_replay", (), "give --runs RUN ..., --all, --pipeline or --since"),
        ("rewind_stability", ("{run}", "--samples", "2", "-k", "3"), "differ; give it once"),
        ("rewind_stability", ("{run}", "-k", "0"), "-k must be between 1 and 50, got 0"),
        ("rewind_stability", ("{run}", "--samples", "51"), "--samples must be between 1 and 50"),
        ("rewind_stability", ("{run}",), "give the number of samples: --samples K"),
        ("rewind_stability", ("--runs", "{run}", "{run}", "-k", "1"), "give one run"),
        ("rewind_stability", ("{run}", "-k", "2", "--workers", "2", "--enqueue"), "not both"),
        ("rewind_grid", ("--node", "analyse", "--field", "args.x", "--values", "1"), "one run"),
        ("rewind_bisect", ("--runs", "{run}", "--outcome", "x"), "give 2 runs: --runs GOOD BAD"),
        ("rewind_bisect", ("{run}", "--outcome", "x"), "give 2 runs"),
        ("rewind_batch", ("--pipeline", "research", "--where", "x", "--node", "analyse")
         + ("--set", "args.region=east"), "--where takes input.NAME=VALUE"),
        ("rewind_batch", ("--runs", "{run}", "--node", "analyse", "--set", "args.region=east")
         + ("--samples", "51"), "--samples must be between 0 and 50, got 51"),
        ("rewind_batch", ("--runs", "{run}", "--node", "analyse", "--set", "args.region=east")
         + ("--workers", "99"), "--workers must be between 1 and 32, got 99"),
        ("rewind_batch", ("--pipeline", "research", "--limit", "0", "--node", "analyse")
         + ("--set", "args.region=east"), "--limit must be at least 1, got 0"),
        ("rewind_batch", ("--runs", "{run}", "--limit", "1", "--node", "analyse")
         + ("--set", "args.region=east"), "--runs names every run"),
        ("rewind_regress", ("--pipeline", "research", "--limit", "0"), "--limit must be at least 1"),
        ("rewind_regress", ("--runs", "{run}", "--samples", "-1"), "--samples must be between 0"),
    ],
)  # fmt: skip
def test_a_request_that_cannot_be_asked_exits_2_and_writes_nothing(research_run, name, args, says):
    message = refused(name, *(a.replace("{run}", str(research_run.pk)) for a in args))

    assert says in message
