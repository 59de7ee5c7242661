"""``rewind_show RUN [--json]``: the run object of ``rewind_run --json`` and ``GET
/api/runs/<run>`` (DESIGN.md: plus outcomes, imported_from, children), and its text form."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run


def show(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_show", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def show_json(run: Run | int) -> dict[str, Any]:
    return json.loads(show(str(getattr(run, "pk", run)), "--json"))


def test_json_is_the_object_rewind_run_printed_with_outcomes(rewind_settings, db):
    out = io.StringIO()
    call_command("rewind_run", "--json", stdout=out, stderr=io.StringIO())
    printed = json.loads(out.getvalue())
    shown = show_json(printed["run"])
    assert shown == printed
    (outcome,) = shown["outcomes"]
    assert {"name", "value", "pass"} <= set(outcome)
    assert outcome["name"] == "best_group" and outcome["pass"] is True
    assert outcome["value"] in {"A", "B", "C"}
    assert (shown["imported_from"], shown["children"]) == (None, [])


def test_json_is_the_object_the_api_answers(research_run, signed_in):
    assert signed_in.get(f"/api/runs/{research_run.pk}").json() == show_json(research_run)


def test_children_are_the_runs_direct_forks_oldest_first(research_run, run_fork):
    first = run_fork(research_run, "analyse", "args.region", "east")
    second = run_fork(research_run, "critique")
    run_fork(first, "critique")  # a grandchild is not a child
    assert show_json(research_run)["children"] == [first.pk, second.pk]
    assert (
        show_json(first)["outcomes"][0]["value"]
        == (first.nodes.get(name="analyse").output["best_group"])
    )


def test_the_fork_json_carries_outcomes_too(research_run, rewind_settings):
    out = io.StringIO()
    call_command(
        "rewind_fork",
        str(research_run.pk),
        "--node",
        "analyse",
        "--set",
        "args.region=east",
        "--json",
        stdout=out,
        stderr=io.StringIO(),
    )
    forked = json.loads(out.getvalue())
    assert forked["outcomes"][0]["name"] == "best_group"
    assert show_json(research_run)["children"] == [forked["run"]]


def test_text_shows_the_steps_outcomes_and_forks(research_run, run_fork):
    fork = run_fork(research_run, "critique")
    text = show(str(research_run.pk))
    best = research_run.nodes.get(name="analyse").output["best_group"]
    assert f"run {research_run.pk}  research  completed" in text
    assert f'outcome   best_group = "{best}"  pass' in text
    assert f"forks     run {fork.pk}" in text


@pytest.mark.parametrize(
    ("arg", "message"), [("999999", "no run 999999"), ("x", "run ids are numbers")]
)
def test_an_unknown_run_is_one_line(db, arg, message):
    with pytest.raises(CommandError, match=message):
        show(arg)
