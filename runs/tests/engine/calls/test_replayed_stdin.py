"""What a step reads from stdin is a recorded input: ``input()`` (an adventure game asking the
player what to do, as Burr's does) and reads of ``sys.stdin`` — a line, iteration, the rest, its
bytes, from the step's own thread or one it started — are recorded with the step, by the line
that read, and a replay (or a fork's re-executed steps) gives them back with no stdin attached,
the prompt still written to stdout. Outside a step stdin is untouched.
"""

from __future__ import annotations

import builtins
import io
import os
import sys
import threading

import openai
import pytest
from burr.core import ApplicationBuilder, State, expr
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Node, Run
from runs.tests.conftest import LoopbackProvider, closed_port_url

PROMPT = "What do you do? "
EXITS = {("cellar", "go north"): "hall", ("hall", "go up"): "tower"}


# -- a text adventure: the player types, a model narrates ---------------------------------------


@action(reads=[], writes=["command"])
def ask_player(state: State) -> State:
    try:
        command = input(PROMPT).strip()
    except EOFError:  # the player closed stdin: the game ends, as a terminal game does
        command = "quit"
    return state.update(command=command)


@action(reads=["command", "room", "voice", "story"], writes=["room", "story"])
def narrate(state: State) -> State:
    client = openai.OpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-0000", max_retries=0
    )
    room = EXITS.get((state["room"], state["command"]), state["room"])
    prompt = (
        f"You are {state['voice']} of a text adventure. The player is in the {state['room']} "
        f"and says: {state['command']!r}. They are now in the {room}. Say what happens."
    )
    reply = client.chat.completions.create(
        model="rewind-sim-1", temperature=0, messages=[{"role": "user", "content": prompt}]
    )
    return state.update(room=room, story=[*state["story"], reply.choices[0].message.content])


@action(reads=["room", "story"], writes=["ending"])
def game_over(state: State) -> State:
    return state.update(ending=f"You leave the {state['room']} after {len(state['story'])} turns.")


def adventure():
    return (
        ApplicationBuilder()
        .with_actions(ask=ask_player, narrate=narrate, end=game_over)
        .with_transitions(
            ("ask", "end", expr("command == 'quit'")),
            ("ask", "narrate"),
            ("narrate", "ask"),
        )
        .with_state(room="cellar", voice="the narrator", story=[])
        .with_entrypoint("ask")
        .build()
    )


# -- a step that reads a batch from stdin, as `cat batch | app` -------------------------------


@action(reads=[], writes=["title", "rows", "from_thread", "rest"])
def read_batch(state: State) -> State:
    title = sys.stdin.readline().strip()
    rows = []
    for line in sys.stdin:  # iteration, until the separator
        if line.strip() == "--":
            break
        rows.append(line.strip())
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(sys.stdin.readline().strip()))
    reader.start()  # a thread the step started: its read is the step's
    reader.join()
    rest = sys.stdin.read()
    return state.update(title=title, rows=rows, from_thread=got[0], rest=rest)


@action(reads=[], writes=["size", "head"])
def read_bytes(state: State) -> State:
    first = sys.stdin.buffer.readline()
    data = first + sys.stdin.buffer.read()
    return state.update(size=len(data), head=data[:4].hex())


def app_of(**actions):
    def build():
        name = next(iter(actions))
        return ApplicationBuilder().with_actions(**actions).with_entrypoint(name).build()

    return build


batch_application = app_of(read=read_batch)
bytes_application = app_of(read=read_bytes)

APPS = {
    "stdin_adventure": f"{__name__}.adventure",
    "stdin_batch": f"{__name__}.batch_application",
    "stdin_bytes": f"{__name__}.bytes_application",
}


@pytest.fixture
def apps(rewind_settings, transactional_db, monkeypatch):
    """Committed rows: a thread of the step reads and writes through a connection of its own."""
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    yield rewind_settings
    registry._load.cache_clear()


def typed(monkeypatch, text: str) -> io.StringIO:
    """``text`` as the process's stdin (what a person typed or piped)."""
    stdin = io.StringIO(text)
    monkeypatch.setattr(sys, "stdin", stdin)
    return stdin


def record(name: str) -> Run:
    source = execute_run(create_run(name, {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    return source


def replayed(source: Run) -> tuple[Run, dict]:
    replay = execute_run(create_replay(source).pk)
    return replay, replay_verdict(source, replay)


@pytest.fixture
def played(apps, monkeypatch):
    """A game played with three commands typed, then stdin closed, the model on loopback."""
    provider = LoopbackProvider()
    typed(monkeypatch, "look around\ngo north\ngo up\n")
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = record("stdin_adventure")
    assert len(provider.chat_calls()) == 3
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())  # the model is gone
    return source


def test_an_adventure_game_replays_with_no_stdin_attached(played, monkeypatch, capsys):
    source = played
    asked = [n.output["command"] for n in source.nodes.filter(name="ask").order_by("sequence_id")]
    assert asked == ["look around", "go north", "go up", "quit"]  # the last: stdin ran out
    assert source.nodes.get(name="end").output["ending"] == "You leave the tower after 3 turns."
    capsys.readouterr()

    typed(monkeypatch, "")  # nothing attached: input() raises EOFError here
    for _ in range(2):
        replay, verdict = replayed(source)
        assert replay.status == Run.Status.COMPLETED, replay.error
        assert verdict.verdict == "identical", verdict
        assert verdict.total_tokens == 0
        steps = replay.nodes.order_by("sequence_id")
        assert [n.output.get("command") for n in steps if n.name == "ask"] == asked
        assert all("not_replayed" not in n.values_read for n in steps)
        # input(prompt) still writes its prompt, once per read, as Python does.
        assert capsys.readouterr().out.count(PROMPT) == 4
        source = replay  # a replay of the replay: what was typed travels with each step


def test_what_the_player_typed_is_recorded_with_the_step_by_the_line_that_asked(played):
    first = played.nodes.filter(name="ask").order_by("sequence_id").first()
    line = f"{__name__}:{ask_player.__code__.co_firstlineno + 3}"
    assert first.values_read["reads"] == {f"|input|{line}": ["look around"]}
    last = played.nodes.filter(name="ask").order_by("sequence_id").last()
    assert last.values_read["reads"] == {f"|input|{line}": [None]}  # end of input, recorded


def test_a_forks_re_executed_steps_get_what_was_typed(played, monkeypatch):
    typed(monkeypatch, "")
    provider = LoopbackProvider()
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        fork = execute_run(create_fork(played, "narrate", "state.voice", "a pirate").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    asks = fork.nodes.filter(name="ask").order_by("sequence_id")
    assert [n.output["command"] for n in asks] == ["look around", "go north", "go up", "quit"]
    assert [n.cache_source for n in asks][:1] == [Node.CacheSource.INHERITED]
    assert fork.nodes.get(name="end").output["ending"] == "You leave the tower after 3 turns."


def test_lines_iteration_a_threads_read_and_the_rest_of_stdin_replay(apps, monkeypatch):
    typed(monkeypatch, "Q3 leads\nacme\nglobex\n--\ninitech\nnotes: call back\nfriday\n")
    source = record("stdin_batch")
    wrote = source.nodes.get().output
    assert wrote == {
        "title": "Q3 leads",
        "rows": ["acme", "globex"],
        "from_thread": "initech",
        "rest": "notes: call back\nfriday\n",
    }
    threads = {key.partition("|")[0] for key in source.nodes.get().values_read["reads"]}
    assert threads == {"", "0"}  # the reader thread is the step's first branch

    stdin = typed(monkeypatch, "")
    replay, verdict = replayed(source)
    assert verdict.verdict == "identical", verdict
    assert replay.nodes.get().output == wrote
    assert sys.stdin is stdin  # the process's stdin is its own again once the step ended


def test_bytes_read_from_stdins_buffer_replay(apps, monkeypatch):
    data = b"\x89PNG\r\n" + bytes(range(256))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    source = record("stdin_bytes")
    assert source.nodes.get().output == {"size": len(data), "head": "89504e47"}

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    replay, verdict = replayed(source)
    assert verdict.verdict == "identical", verdict


def test_outside_a_step_stdin_is_read_as_ever(apps, monkeypatch, capsys):
    typed(monkeypatch, "Q3 leads\n--\nx\n")
    record("stdin_batch")  # the capture is in place from the first step on
    stdin = typed(monkeypatch, "hello\nworld\n")
    assert input("> ") == "hello"
    assert sys.stdin.readline() == "world\n"
    assert sys.stdin is stdin
    assert capsys.readouterr().out == "> "
    with pytest.raises(EOFError):
        builtins.input()
