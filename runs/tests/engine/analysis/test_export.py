"""``rewind_export`` and the export download: a run becomes a self-contained pytest file and a
fixture of its recorded responses (issue 9, item 6).

The exported tests are run for real, with plain ``pytest DIR`` in a subprocess whose
environment has none of Rewind's settings (no database URL, no settings module, no key): they
build their own throwaway database, replay offline and pass — and fail, naming the step, once
a recorded answer in the fixture is edited.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from runs.engine.analysis.export import build_export
from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.providers.simulator import Simulator
from runs.models import LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.tests.helpers.exported_tests import (
    export_error,
    fails,
    fixture_of,
    passes,
    rewrite,
)

CHATBOT = "burr.examples.multi-modal-chatbot.application"


# --- helpers ---------------------------------------------------------------------------------


def export(tmp_path: Path, *args: str) -> Path:
    """``rewind_export ARGS --out <tmp>/exported``; the folder."""
    out = tmp_path / "exported"
    call_command("rewind_export", *args, "--out", str(out), stdout=io.StringIO())
    return out


def edit_llm_answer(data: dict[str, Any], run: Run, node: str) -> None:
    """Change one value in the answer step ``node`` of ``run`` read (a JSON object, as the
    demo's llm nodes answer)."""
    (step,) = [n for n in data["nodes"] if n["run_id"] == run.pk and n["name"] == node]
    (pin,) = step["cache_entries"]
    (entry,) = [e for e in data["llm_cache"] if f"llm:{e['id']}" == pin]
    answer = json.loads(entry["response"]["content"])
    first = next(iter(answer))
    if isinstance(answer[first], list):
        answer[first][0] = "an answer edited by hand"
    else:
        answer[first] = "an answer edited by hand"
    entry["response"]["content"] = json.dumps(answer)


def completed(run: Run) -> Run:
    assert run.status == Run.Status.COMPLETED, f"run {run.pk} {run.status}: {run.error}"
    return run


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def fork_of_research(research_run, run_fork) -> Run:
    return completed(run_fork(research_run, "analyse", "args.cost_scale", "3"))


# --- the exported test runs offline: passes, then fails naming the step -------------------------


def test_exported_fork_passes_offline_and_fails_naming_the_step_once_an_answer_is_edited(
    research_run, fork_of_research, tmp_path, home
):
    out = export(tmp_path, str(fork_of_research.pk), "--against", str(research_run.pk))
    name = f"rewind_run_{fork_of_research.pk}_against_{research_run.pk}"
    assert sorted(p.name for p in out.iterdir()) == [f"{name}.json", f"test_{name}.py"]

    passes(out, home, tests=3)  # the fork replayed, the parent replayed, the diff between them

    path, data = fixture_of(out)
    edit_llm_answer(data, fork_of_research, "critique")  # an answer only the fork read
    rewrite(path, data)
    output = fails(out, home)
    assert (
        f"run {fork_of_research.pk} did not replay as recorded: step critique (sequence 3) "
        "wrote a different output"
    ) in output
    assert '"an answer edited by hand"' in output  # the leaf that changed, old -> new
    assert f"test_run_{research_run.pk}_replays_offline_as_recorded PASSED" not in output
    assert "1 passed" in output  # the parent's own replay does not read that answer


def test_exported_root_run_fails_naming_the_tool_step_whose_result_was_edited(
    research_run, tmp_path, home
):
    out = export(tmp_path, str(research_run.pk))
    passes(out, home, tests=1)

    path, data = fixture_of(out)
    (analysis,) = [e for e in data["tool_cache"] if e["tool"] == "analyse"]
    analysis["result"]["groups"]["A"]["total_cost"] += 1
    rewrite(path, data)
    output = fails(out, home)
    assert f"run {research_run.pk} did not replay as recorded: step analyse (sequence 2)" in output
    assert "groups.A.total_cost" in output


def test_exported_diff_fails_when_the_recorded_change_is_not_the_one_replayed(
    research_run, fork_of_research, tmp_path, home
):
    out = export(tmp_path, str(fork_of_research.pk), "--against", str(research_run.pk))
    test_file = next(out.glob("test_*.py"))
    source = test_file.read_text()
    assert '"path": "groups.A.total_cost"' in source  # the counterfactual, readable in the test
    test_file.write_text(source.replace('"path": "groups.A.total_cost"', '"path": "elsewhere"', 1))
    output = fails(out, home)
    assert "the diff of the replays is not the recorded one" in output
    assert "step analyse: recorded" in output
    assert "2 passed" in output  # both replays still reproduce their runs


def test_a_fork_of_a_fork_replays_with_its_ancestors_overrides(
    research_run, fork_of_research, run_fork, tmp_path, home
):
    grandchild = completed(run_fork(fork_of_research, "revise", "temperature", "0.7"))
    out = export(tmp_path, str(grandchild.pk))
    _, data = fixture_of(out)
    # The whole lineage travels (overrides apply again), and the state row the replay starts
    # from: critique's, in the run that executed it.
    assert [r["id"] for r in data["runs"]] == [
        research_run.pk,
        fork_of_research.pk,
        grandchild.pk,
    ]
    assert [(s["app_id"], s["sequence_id"]) for s in data["burr_state"]] == [
        (str(fork_of_research.pk), 3)
    ]
    passes(out, home, tests=1)


# --- a Burr app, registered by dotted path -------------------------------------------------------


@pytest.fixture
def chatbot(rewind_settings, db, monkeypatch, tmp_path, home) -> Iterator[Callable[..., Run]]:
    """Burr's multi-modal chatbot, unchanged, answered by the simulator on loopback."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rewind-export")
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "chatbot": f"{CHATBOT}.application",
    }
    registry._load.cache_clear()
    with ExitStack() as stack:
        monkeypatch.setenv("OPENAI_BASE_URL", stack.enter_context(Simulator().serve()))

        def chat(*prompts: str) -> Run:
            first, *more = prompts
            run = create_run(
                "chatbot",
                {"prompt": first},
                halt_after=["response"],
                turns=[{"prompt": p} for p in more],
            )
            return completed(execute_run(run.pk))

        yield chat
    registry._load.cache_clear()


def test_a_burr_app_fork_exports_with_its_registry_path_and_replays_offline(
    chatbot, tmp_path, home
):
    parent = chatbot("What is the capital of France?", "Write code to sort a list in Python")
    fork = completed(
        execute_run(create_fork(parent, "decide_mode#2", "writes.mode", "answer_question").pk)
    )
    out = export(tmp_path, str(fork.pk), "--against", str(parent.pk))
    _, data = fixture_of(out)
    assert data["pipelines"] == {"chatbot": f"{CHATBOT}.application"}
    source = next(out.glob("test_*.py")).read_text()
    assert '"node": "decide_mode"' in source
    passes(out, home, tests=3)


# --- what the fixture holds, and what it never holds -----------------------------------------


def test_the_fixture_holds_only_what_the_replay_reads_and_never_a_key(
    research_run, fork_of_research, run_fork, tmp_path, monkeypatch
):
    other = completed(run_fork(research_run, "analyse", "args.region", "east"))
    monkeypatch.setenv("REWIND_API_KEY", "sk-secret-never-exported")
    out = export(tmp_path, str(fork_of_research.pk))
    _, data = fixture_of(out)

    executed = fork_of_research.nodes.exclude(cache_source=Node.CacheSource.INHERITED)
    pinned = {pin for node in executed for pin in node.cache_entries}
    assert {f"llm:{e['id']}" for e in data["llm_cache"]} | {
        f"tool:{e['id']}" for e in data["tool_cache"]
    } == pinned
    assert len(pinned) < LLMCacheEntry.objects.count() + ToolCacheEntry.objects.count()
    assert other.pk not in {r["id"] for r in data["runs"]}
    assert {n["run_id"] for n in data["nodes"]} == {fork_of_research.pk}
    assert data["pipelines"] == {"research": "runs.pipelines.research.pipeline"}
    for path in out.iterdir():
        assert "sk-secret-never-exported" not in path.read_text()


def test_exporting_twice_gives_the_same_bytes(research_run, fork_of_research):
    first = build_export(fork_of_research, research_run).files()
    assert build_export(fork_of_research, research_run).files() == first


# --- the command's errors: one line ---------------------------------------------------------------


def test_only_a_completed_run_can_be_exported(run_row, tmp_path):
    failed = run_row(status=Run.Status.FAILED, error="critique: boom")
    message = export_error(str(failed.pk), "--out", str(tmp_path))
    assert message == (
        f"run {failed.pk} is failed; only a completed run has a trajectory to assert, so only "
        "a completed run can be exported"
    )
    assert list(tmp_path.iterdir()) == []


def test_unknown_runs_and_a_run_against_itself_are_refused(research_run, tmp_path):
    assert export_error("999999", "--out", str(tmp_path)) == "no run 999999"
    assert export_error(str(research_run.pk), "--against", "x", "--out", str(tmp_path)) == (
        "run ids are numbers, got 'x'"
    )
    message = export_error(
        str(research_run.pk), "--against", str(research_run.pk), "--out", str(tmp_path)
    )
    assert "names run" in message and "itself" in message


def test_an_out_that_is_a_file_is_one_line(research_run, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    message = export_error(str(research_run.pk), "--out", str(blocker))
    assert message.startswith(f"cannot write the export into {blocker}")


def test_a_deleted_cache_entry_is_named(research_run, tmp_path):
    critique = research_run.nodes.get(name="critique")
    pin = critique.cache_entries[0]
    LLMCacheEntry.objects.filter(pk=int(pin.split(":")[1])).delete()
    message = export_error(str(research_run.pk), "--out", str(tmp_path))
    assert message.startswith(
        f"step critique (sequence 3) of run {research_run.pk} read cache entry {pin}, which "
        "was deleted"
    )


# --- the download --------------------------------------------------------------------------------


def test_anonymous_users_are_sent_to_sign_in(client, research_run):
    response = client.get(f"/runs/{research_run.pk}/export/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_download_is_a_zip_of_the_commands_files(
    signed_in, research_run, fork_of_research, tmp_path
):
    response = signed_in.get(f"/runs/{fork_of_research.pk}/export/", {"against": research_run.pk})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    folder = f"rewind-run-{fork_of_research.pk}-against-{research_run.pk}"
    assert response["Content-Disposition"] == f'attachment; filename="{folder}.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    out = export(tmp_path, str(fork_of_research.pk), "--against", str(research_run.pk))
    assert {name: archive.read(name) for name in archive.namelist()} == {
        f"{folder}/{path.name}": path.read_bytes() for path in out.iterdir()
    }


def test_the_download_refuses_a_run_that_did_not_complete_and_a_bad_parameter(
    signed_in, run_row, research_run
):
    failed = run_row(status=Run.Status.FAILED)
    response = signed_in.get(f"/runs/{failed.pk}/export/")
    assert response.status_code == 409
    assert b"only a completed run can be exported" in response.content
    for bad in ("x", "0", "999999"):
        response = signed_in.get(f"/runs/{research_run.pk}/export/", {"against": bad})
        assert response.status_code == 400, bad
    assert signed_in.get("/runs/999999/export/").status_code == 404


def test_an_exported_diff_whose_recorded_field_was_nan_passes(rewind_settings, db, tmp_path, home):
    """The diff test compares the replayed change with the recorded one as Rewind compares
    values (canonical JSON), so a step that wrote NaN (``mean: NaN -> 1.5``) is equal to
    itself — with ``==`` it never was."""
    app = "runs.tests.helpers.nan_apps.application"
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, "nan_mean": app}
    registry._load.cache_clear()
    parent = completed(execute_run(create_run("nan_mean", {}).pk))
    fork = completed(execute_run(create_fork(parent, "average", "writes.mean", "1.5").pk))
    out = export(tmp_path, str(fork.pk), "--against", str(parent.pk))
    source = next(out.glob("test_*.py")).read_text()
    assert 'float("nan")' in source  # the recorded change, written so it loads back
    passes(out, home, tests=3)
    registry._load.cache_clear()
