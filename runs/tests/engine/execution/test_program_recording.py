"""Issue 8, item 6: one line added to a user's own ``ApplicationBuilder`` records every run of
their program — run their way, in their own process, not through ``manage.py`` — as a Rewind
run with every step, its tokens and its cache entries; the run is then forked through the
factory registered under the same name."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from runs.engine.analysis.diff import diff_runs
from runs.engine.apps.registry import _load
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.providers.simulator import Simulator
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import PROJECT_ROOT, subprocess_database_url
from runs.tests.helpers.chatbot_program import CHATBOT, PROGRAM

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def chatbot(rewind_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recording")
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "chatbot": f"{CHATBOT}.application",
    }
    _load.cache_clear()
    with Simulator().serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield url
    _load.cache_clear()


def run_program(tmp_path, url: str) -> subprocess.CompletedProcess:
    script = tmp_path / "my_agent.py"
    script.write_text(PROGRAM)
    env = {
        **os.environ,
        "DATABASE_URL": subprocess_database_url(),
        "REWIND_PIPELINES": f"chatbot={CHATBOT}.application",
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": "sk-test-recording",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_program_with_the_one_line_hook_is_recorded_and_forkable(chatbot, tmp_path):
    done = run_program(tmp_path, chatbot)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "code"  # the program ran its own way, to its own end

    run = Run.objects.get()
    assert run.pipeline == "chatbot" and run.status == Run.Status.COMPLETED
    steps = list(run.nodes.order_by("sequence_id"))
    assert [n.name for n in steps] == [
        "prompt", "check_openai_key", "check_safety", "decide_mode", "answer_question",
        "response", "prompt", "check_openai_key", "check_safety", "decide_mode",
        "generate_code", "response",
    ]  # fmt: skip
    llm = [n for n in steps if n.kind == Node.Kind.LLM]
    assert [n.name for n in llm] == [
        "decide_mode",
        "answer_question",
        "decide_mode",
        "generate_code",
    ]
    assert all(n.total_tokens > 0 and n.cache_entries for n in llm)
    assert LLMCacheEntry.objects.count() == 4
    # Each app.run was a turn, with its runtime input and the action it halted after.
    assert run.turns == [
        {"inputs": {"prompt": "What is the capital of France?"}},
        {"inputs": {"prompt": "Write code to sort a list"}},
    ]
    assert run.halt == {"after": ["response"], "before": []}
    assert run.trajectory_sha256

    # Forked through the registered factory: the second turn's route is flipped.
    fork = execute_run(create_fork(run, "decide_mode#2", "writes.mode", "answer_question").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert [n.name for n in fork.nodes.order_by("sequence_id")][-2:] == [
        "answer_question",
        "response",
    ]
    assert diff_runs(run, fork).first_divergence["node"] == "decide_mode"


def test_an_unregistered_name_fails_at_build_time_and_records_nothing(chatbot, tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(PROGRAM.replace('rewind_hooks("chatbot")', 'rewind_hooks("nope")'))
    env = {
        **os.environ,
        "DATABASE_URL": subprocess_database_url(),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip

    assert done.returncode != 0
    assert "unknown pipeline 'nope'" in done.stderr
    assert not Run.objects.exists()


STREAMING = "burr.examples.streaming-fastapi.application"

ASYNC_PROGRAM = textwrap.dedent(
    f"""
    import asyncio
    import importlib

    from burr.core import ApplicationBuilder

    from runs.recording import rewind_hooks

    streaming = importlib.import_module("{STREAMING}")


    async def main():
        app = (
            ApplicationBuilder()
            .with_graph(streaming.graph)
            .with_state(chat_history=[])
            .with_entrypoint("prompt")
            .with_hooks(*rewind_hooks("streaming"))  # the one line
            .build()
        )
        action, result, state = await app.arun(
            halt_after=streaming.TERMINAL_ACTIONS,
            inputs={{"prompt": "Please write a poem about the sea"}},
        )
        print(action.name)


    asyncio.run(main())
    """
)


def test_an_async_program_is_recorded_with_its_calls_and_replays_without_the_provider(
    rewind_settings, monkeypatch, tmp_path
):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "streaming": f"{STREAMING}.application",
    }
    _load.cache_clear()
    script = tmp_path / "my_async_agent.py"
    script.write_text(ASYNC_PROGRAM)
    with Simulator().serve() as url:
        env = {
            **os.environ,
            "DATABASE_URL": subprocess_database_url(),
            "REWIND_PIPELINES": f"streaming={STREAMING}.application",
            "OPENAI_BASE_URL": url,
            "OPENAI_API_KEY": "sk-test-recording",
            "HOME": str(tmp_path),
            "PYTHONPATH": str(PROJECT_ROOT),
        }
        done = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "generate_poem"

    run = Run.objects.get()
    steps = list(run.nodes.order_by("sequence_id"))
    assert [n.name for n in steps] == ["prompt", "check_safety", "decide_mode", "generate_poem"]
    assert [n.kind for n in steps] == ["code", "code", "llm", "llm"]
    # The state each step left, not the one before it (Burr hands hooks a stale one there).
    assert steps[1].output == {"safe": True}
    assert steps[2].output == {"mode": "generate_poem"}
    assert steps[3].output["response"]["content"]

    # The provider is gone: a replay reads what the program's calls received. (The app's
    # client still wants a key to be built; nothing is sent with it.)
    from runs.engine.forking.replays import create_replay, replay_verdict

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recording")

    replay = execute_run(create_replay(run).pk)
    verdict = replay_verdict(run, replay)
    assert verdict.verdict == "identical", verdict
    assert verdict.total_tokens == 0
    _load.cache_clear()


BREAKING_APP = textwrap.dedent(
    """
    from burr.core import ApplicationBuilder, State
    from burr.core.action import action


    @action(reads=[], writes=["count"])
    def first(state: State) -> State:
        return state.update(count=1)


    @action(reads=["count"], writes=["tags"])
    def tag(state: State) -> State:
        return state.update(tags={"b", "a"})  # a set: nothing can store it


    @action(reads=["tags"], writes=["total"])
    def last(state: State) -> State:
        return state.update(total=len(state["tags"]))


    def builder():
        return (
            ApplicationBuilder()
            .with_actions(first=first, tag=tag, last=last)
            .with_transitions(("first", "tag"), ("tag", "last"))
            .with_entrypoint("first")
        )
    """
)
BREAKING = textwrap.dedent(
    """
    from breaking_app import builder

    from runs.recording import rewind_hooks

    app = builder().with_hooks(*rewind_hooks("breaking")).build()
    app.run(halt_after=["last"])
    print("the program finished with", app.state["total"])
    """
)


def test_a_value_the_hook_cannot_store_fails_the_run_not_the_program(tmp_path, rewind_settings):
    (tmp_path / "breaking_app.py").write_text(BREAKING_APP)
    script = tmp_path / "my_program.py"
    script.write_text(BREAKING)
    env = {
        **os.environ,
        "DATABASE_URL": subprocess_database_url(),
        "REWIND_PIPELINES": "breaking=breaking_app.builder",
        "HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), str(tmp_path)]),
    }
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr  # plain Burr finishes, and so does the program
    assert "the program finished with 2" in done.stdout
    assert done.stderr.count("recording of this run stopped") == 1, done.stderr
    run = Run.objects.get(pipeline="breaking")
    assert run.status == Run.Status.FAILED
    assert run.error.startswith("tag: state key 'tags' holds a builtins.set"), run.error
    steps = {n.name: n.status for n in run.nodes.all()}
    assert steps == {"first": Node.Status.COMPLETED, "tag": Node.Status.FAILED}
