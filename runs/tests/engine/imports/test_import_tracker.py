"""rewind_import of Burr's tracker directories (issue 18): the logs Burr ships in the
``apache-burr`` package (``burr/tracking/server/demo_data``: 21 runs nobody here wrote), read
into runs with their steps, states, spans and LLM calls; imported again, nothing is added; a
corrupt or truncated line is named and leaves nothing of its run; nothing is followed out of
the path given."""

from __future__ import annotations

import io
import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import burr
import pytest
from django.core.management import CommandError, call_command

from runs.engine.errors import InputError
from runs.engine.imports.service import import_path
from runs.engine.imports.tracker import leads_out
from runs.engine.imports.writing import NO_CALLS
from runs.lib.hashing import FRAMEWORK_PREFIX
from runs.models import BurrState, Edge, Node, Run

DEMO = Path(burr.__file__).parent / "tracking" / "server" / "demo_data"
PROJECTS = {
    "demo_chatbot": 6,
    "demo_chatbot_with_traces": 6,
    "demo_conversational-rag": 4,
    "demo_counter": 5,
}


def log_entries(app_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (app_dir / "log.jsonl").read_text().splitlines()]


def imported(project: str, app_id: str) -> Run:
    return Run.objects.get(imported_from__project=project, imported_from__app_id=app_id)


@pytest.fixture
def demo(db) -> dict:
    report = import_path(DEMO)
    assert report.errors == []
    return report.as_json()


def test_every_demo_run_imports_with_its_steps_and_states(demo):
    assert len(demo["imported"]) == sum(PROJECTS.values()) == 21
    for project, count in PROJECTS.items():
        app_dirs = sorted(p for p in (DEMO / project).iterdir() if p.is_dir())
        assert len(app_dirs) == count
        for app_dir in app_dirs:
            run = imported(project, app_dir.name)
            ends = [e for e in log_entries(app_dir) if e["type"] == "end_entry"]
            steps = list(run.nodes.order_by("sequence_id"))
            # Burr's action names and sequence ids, one step per end_entry.
            assert [(n.sequence_id, n.name) for n in steps] == [
                (e["sequence_id"], e["action"]) for e in ends
            ]
            assert run.imported_from == {
                "path": str(DEMO.resolve()), "project": project, "app_id": app_dir.name,
            }  # fmt: skip
            assert run.pipeline == project and run.root_id == run.pk
            # Each state row is the end_entry's state, Burr's keys included.
            rows = {r.sequence_id: json.loads(r.state) for r in BurrState.objects.filter(
                app_id=str(run.pk))}  # fmt: skip
            assert rows == {e["sequence_id"]: e["state"] for e in ends}
            failed = [e for e in ends if e["exception"]]
            assert run.status == (Run.Status.FAILED if failed else Run.Status.COMPLETED)
            assert [n.status for n in steps].count(Node.Status.FAILED) == len(failed)
            assert Edge.objects.filter(run=run).count() == len(steps) - 1


def test_a_steps_output_is_what_it_wrote_hashed_like_a_recorded_step(demo):
    run = imported("demo_counter", "count-to-10")
    steps = list(run.nodes.order_by("sequence_id"))
    ends = [
        e for e in log_entries(DEMO / "demo_counter" / "count-to-10") if e["type"] == "end_entry"
    ]
    for node, end in zip(steps, ends, strict=True):
        state = {k: v for k, v in end["state"].items() if not k.startswith(FRAMEWORK_PREFIX)}
        graph = json.loads((DEMO / "demo_counter" / "count-to-10" / "graph.json").read_text())
        writes = next(a["writes"] for a in graph["actions"] if a["name"] == node.name)
        assert set(writes) <= set(node.output)
        assert {k: node.output[k] for k in writes} == {k: state.get(k) for k in writes}
    # The counter counts: each counter step's output differs from the one before.
    counts = [n.output["counter"] for n in steps if n.name == "counter"]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)


def test_spans_and_their_attributes_are_kept_on_the_step(demo):
    app_dir = DEMO / "demo_chatbot_with_traces" / "chat-1-giraffe"
    run = imported("demo_chatbot_with_traces", "chat-1-giraffe")
    begun: dict[int, list[str]] = {}
    for e in log_entries(app_dir):
        if e["type"] == "begin_span":
            begun.setdefault(e["action_sequence_id"], []).append(e["span_name"])
    for node in run.nodes.all():
        named = [s["name"] for s in node.spans if s["id"]]
        assert named == begun.get(node.sequence_id, [])
    first = run.nodes.get(sequence_id=0)
    assert first.spans[0]["attributes"] == {"prompt": "Please draw a giraffe."}
    assert first.spans[0]["end"]


def test_genai_spans_become_the_steps_llm_calls_with_tokens(demo):
    app_dir = DEMO / "demo_chatbot_with_traces" / "chat-1-giraffe"
    usage: dict[int, list[tuple[int, int]]] = {}
    first_prompt: dict[int, dict] = {}
    spans: dict[tuple[int, str], dict] = {}
    for e in log_entries(app_dir):
        if e["type"] == "attribute" and e["key"].startswith("gen_ai."):
            spans.setdefault((e["action_sequence_id"], e["span_id"]), {})[e["key"]] = e["value"]
    for (seq, _), attrs in spans.items():
        if "gen_ai.usage.prompt_tokens" in attrs:
            usage.setdefault(seq, []).append(
                (attrs["gen_ai.usage.prompt_tokens"], attrs["gen_ai.usage.completion_tokens"])
            )
            first_prompt.setdefault(seq, {
                "role": attrs["gen_ai.prompt.0.role"],
                "content": attrs["gen_ai.prompt.0.content"],
            })  # fmt: skip
    run = imported("demo_chatbot_with_traces", "chat-1-giraffe")
    llm = {n.sequence_id: n for n in run.nodes.filter(kind=Node.Kind.LLM)}
    assert set(llm) == set(usage) and len(llm) >= 4
    for seq, calls in usage.items():
        node = llm[seq]
        assert node.total_tokens == sum(p + c for p, c in calls)
        assert node.prompt_tokens == sum(p for p, _ in calls)
        assert len(node.calls) == len(calls)
        assert node.model_requested.startswith("gpt-") and node.model_answered.startswith("gpt-")
        assert node.prompt[0] == first_prompt[seq] and node.raw_output
    assert NO_CALLS not in run.warnings
    # No credential-named attribute is kept (the log's llm.headers).
    kept = {k for n in run.nodes.all() for s in n.spans for k in s["attributes"]}
    assert "llm.headers" not in kept and "gen_ai.request.model" in kept


def test_a_run_whose_log_has_no_call_bodies_says_so(demo):
    run = imported("demo_counter", "count-to-1")
    assert NO_CALLS in run.warnings
    assert not run.nodes.filter(kind=Node.Kind.LLM).exists()


def test_a_failed_step_keeps_burrs_error_without_a_key(demo):
    run = imported("demo_chatbot_with_traces", "chat-6-demonstrate-errors")
    assert run.status == Run.Status.FAILED
    assert run.error.startswith("decide_mode: openai.AuthenticationError")
    failed = run.nodes.get(status=Node.Status.FAILED)
    assert failed.name == "decide_mode" and "Traceback" in failed.error
    assert failed.output is None and failed.output_sha256 == ""


def test_importing_again_adds_nothing(demo):
    counts = (Run.objects.count(), Node.objects.count(), BurrState.objects.count())
    again = import_path(DEMO).as_json()
    assert again == {"imported": [], "updated": [], "skipped": 21, "errors": []}
    assert (Run.objects.count(), Node.objects.count(), BurrState.objects.count()) == counts


def test_the_command_prints_the_contract_and_a_second_import_is_empty(db):
    out = io.StringIO()
    call_command("rewind_import", str(DEMO / "demo_counter"), "--json", stdout=out)
    first = json.loads(out.getvalue())
    assert len(first["imported"]) == 5 and first["errors"] == [] and first["skipped"] == 0
    out = io.StringIO()
    call_command("rewind_import", str(DEMO / "demo_counter"), "--json", stdout=out)
    assert json.loads(out.getvalue())["imported"] == []
    # One app of a project, by its directory or by --app-id: already there.
    out = io.StringIO()
    call_command("rewind_import", str(DEMO / "demo_counter" / "count-to-1"), stdout=out)
    assert "1 already imported" in out.getvalue()


def test_show_and_the_api_name_where_a_run_came_from(demo, client, django_user_model):
    run = imported("demo_counter", "count-to-42")
    out = io.StringIO()
    call_command("rewind_show", str(run.pk), "--json", stdout=out)
    shown = json.loads(out.getvalue())
    assert shown["imported_from"] == {
        "path": str(DEMO.resolve()), "project": "demo_counter", "app_id": "count-to-42",
    }  # fmt: skip
    assert len(shown["nodes"]) == 43 and shown["children"] == []
    client.force_login(django_user_model.objects.create_user("u", password="p"))
    assert client.get(f"/api/runs/{run.pk}").json()["imported_from"] == shown["imported_from"]


def _copy(tmp_path: Path, project: str, *apps: str) -> Path:
    root = tmp_path / "burr"
    for app in apps:
        shutil.copytree(DEMO / project / app, root / project / app)
    return root


def test_a_corrupt_line_is_named_and_leaves_nothing_of_its_run(db, tmp_path):
    root = _copy(tmp_path, "demo_counter", "count-to-10", "count-to-42")
    log = root / "demo_counter" / "count-to-10" / "log.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    lines[6] = lines[6][: len(lines[6]) // 2] + "\n"  # line 7 cut in half
    log.write_text("".join(lines))
    report = import_path(root)
    assert [e.as_json() for e in report.errors] == [
        {"file": str(log.resolve()), "line": 7, "error": report.errors[0].error}
    ]
    assert "not a JSON object" in report.errors[0].error
    # Nothing of the broken app; its sibling imported whole.
    assert not Run.objects.filter(imported_from__app_id="count-to-10").exists()
    assert imported("demo_counter", "count-to-42").nodes.count() == 43
    assert BurrState.objects.count() == 43 and Node.objects.count() == 43


def test_a_truncated_last_line_is_named(db, tmp_path):
    root = _copy(tmp_path, "demo_counter", "count-to-1")
    log = root / "demo_counter" / "count-to-1" / "log.jsonl"
    text = log.read_text()
    log.write_text(text[: len(text) - 20])  # the last line loses its end and its newline
    report = import_path(root)
    assert report.errors and report.errors[0].line == len(text.splitlines())
    assert Run.objects.count() == 0


def test_nothing_is_followed_out_of_the_path(db, tmp_path):
    outside = _copy(tmp_path / "elsewhere", "demo_counter", "count-to-1")
    root = _copy(tmp_path, "demo_counter", "count-to-10")
    (root / "demo_counter" / "escape").symlink_to(outside / "demo_counter" / "count-to-1")
    report = import_path(root)
    # Not followed, and said (issue 34: the same message for a file or a directory).
    assert [(e.file, e.error) for e in report.errors] == [
        (str(root.resolve() / "demo_counter" / "escape"), leads_out(root.resolve()))
    ]
    assert len(report.imported) == 1
    assert Run.objects.get().imported_from["app_id"] == "count-to-10"


def test_bad_paths_are_one_line_errors_and_change_nothing(db, tmp_path):
    with pytest.raises(InputError, match="no such directory"):
        import_path(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no Burr tracker log here"):
        import_path(tmp_path / "empty")
    with pytest.raises(CommandError, match="one of them"):
        call_command("rewind_import")
    assert Run.objects.count() == 0


def test_the_same_app_id_in_two_projects_is_two_runs(db, tmp_path):
    root = _copy(tmp_path, "demo_counter", "count-to-1")
    shutil.copytree(root / "demo_counter", root / "other_project")
    report = import_path(root)
    assert len(report.imported) == 2
    assert sorted(r.imported_from["project"] for r in Run.objects.all()) == [
        "demo_counter", "other_project",
    ]  # fmt: skip
    assert os.path.exists(root)


def test_a_step_keeps_burrs_times_and_a_renamed_pipeline_sticks(demo):
    run = imported("demo_counter", "count-to-10")
    ends = [
        e for e in log_entries(DEMO / "demo_counter" / "count-to-10") if e["type"] == "end_entry"
    ]
    steps = list(run.nodes.order_by("sequence_id"))
    # Each step's row time is its end in Burr's log (the timeline places it there).
    assert [n.created_at.replace(tzinfo=None).isoformat() for n in steps] == [
        datetime.fromisoformat(e["end_time"]).isoformat() for e in ends
    ]
    assert run.started_at <= steps[0].created_at <= steps[-1].created_at == run.finished_at
    # Imported again under the name of a registered app: the run is renamed, nothing added.
    again = import_path(DEMO / "demo_counter" / "count-to-10", pipeline="counter")
    assert again.imported == [] and again.updated == [run.pk]
    run.refresh_from_db()
    assert run.pipeline == "counter" and run.nodes.count() == len(ends)
