"""The step's own non-determinism is replayed (issue 31): what a step's code reads from the clock
and from randomness — ``datetime.now()`` taken as ``from datetime import datetime``, ``uuid4()``,
``random``, ``secrets``, ``time.time()`` — is recorded by the line that read it, per thread and
task, and a replay gives each line the same values: a prompt that embeds today's date and a
fresh id hits the cache with the provider gone, and a step that writes such values replays
identical instead of being named non-deterministic.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import random
import secrets
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from random import random as roll  # taken at import: the built-in, until a step adopts it
from uuid import uuid1, uuid4

import openai
import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action
from django.core.management import call_command

from runs.engine.analysis.report import run_json
from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Node, Run
from runs.recording import live_values
from runs.tests.conftest import LoopbackProvider, closed_port_url
from runs.tests.helpers.exported_tests import passes

pytestmark = pytest.mark.filterwarnings("ignore:datetime.datetime.utcnow:DeprecationWarning")
QUESTION = "Which region converts best?"
_shuffle = random.Random()  # made outside any step: its draws are live, so is the interleaving


@action(reads=[], writes=["prompt", "answer"])
def ask_dated(state: State) -> State:
    client = openai.OpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-0000", max_retries=0
    )
    prompt = f"Today is {datetime.now().isoformat()}. Message {uuid4()}. {QUESTION}"
    reply = client.chat.completions.create(
        model="rewind-sim-1", temperature=0, messages=[{"role": "user", "content": prompt}]
    )
    return state.update(prompt=prompt, answer=reply.choices[0].message.content)


def draws() -> dict:
    """What agent code stamps and samples: each of them a value no two runs share."""
    return {
        "stamped_at": time.time(),
        "nanos": time.time_ns(),
        "today": datetime.now().isoformat(),
        "day": datetime.today().isoformat(),
        "utc": datetime.utcnow().isoformat(),
        "roll": random.random(),
        "pick": random.choice(["north", "south", "east", "west", "centre"]),
        "order": random.sample(range(100), 5),
        "nonce": secrets.token_hex(8),
        "id": str(uuid4()),
        "time_id": str(uuid1()),
        "seeded": random.Random().random(),  # a Random() made in the step
        "rolled": roll(),  # ``from random import random``
        "system": random.SystemRandom().randint(0, 10**9),
        "bytes": os.urandom(4).hex(),
    }


@action(reads=[], writes=["drawn"])
def draw(state: State) -> State:
    return state.update(drawn=draws())


def _worker(item: int) -> dict:
    time.sleep(_shuffle.uniform(0, 0.03))  # a new interleaving every run
    return {"item": item, **draws()}


@action(reads=[], writes=["drawn"])
def draw_in_a_pool(state: State) -> State:
    with ThreadPoolExecutor(max_workers=3) as pool:
        drawn = list(pool.map(_worker, range(6)))
    return state.update(drawn=drawn)


async def _task(item: int) -> dict:
    await asyncio.sleep(_shuffle.uniform(0, 0.02))
    return {"item": item, "roll": random.random(), "id": str(uuid4()), "at": time.time()}


@action(reads=[], writes=["drawn"])
async def draw_in_tasks(state: State) -> State:
    drawn = await asyncio.gather(*(_task(i) for i in range(4)))
    return state.update(drawn=list(drawn))


def _library(tmp_path) -> str:
    """A library of the app's own, written where a package would be: it reads the clock for
    a deadline of its own, more often at each call (a cache warming up, a pool growing), so a
    replay reads it more often than the recording did."""
    (tmp_path / "deadline_lib.py").write_text(
        "import time\n"
        "\n"
        "calls = 0\n"
        "\n"
        "def wait_a_little():\n"
        "    global calls\n"
        "    calls += 1\n"
        "    deadline = time.time() + 60\n"
        "    for _ in range(calls):\n"
        "        if time.time() > deadline:\n"
        "            raise TimeoutError\n"
    )
    return "deadline_lib"


@action(reads=[], writes=["stamped_at", "fresh"])
def stamp_and_keep_one_live(state: State) -> State:
    logging.getLogger("rewind.tests.values").warning("stamping")  # logging reads the clock too
    with live_values():
        fresh = secrets.token_hex(8)
    return state.update(stamped_at=time.time(), fresh=fresh)


@action(reads=[], writes=["before", "after", "roll"])
def around_a_library(state: State) -> State:
    import deadline_lib

    before = time.time()
    deadline_lib.wait_a_little()
    after = time.time()
    return state.update(before=before, after=after, roll=random.random())


@action(reads=["drawn", "suffix"], writes=["echoed"])
def echo(state: State) -> State:
    return state.update(echoed=f"{state['drawn']['nonce']}{state['suffix']}-{uuid4()}")


def draw_and_echo():
    builder = ApplicationBuilder().with_actions(draw=draw, echo=echo)
    builder = builder.with_transitions(("draw", "echo")).with_state(suffix="")
    return builder.with_entrypoint("draw").build()


def app_of(**actions):
    def build():
        name = next(iter(actions))
        return ApplicationBuilder().with_actions(**actions).with_entrypoint(name).build()

    return build


dated_application = app_of(ask=ask_dated)
draw_application = app_of(draw=draw)
pool_application = app_of(draw=draw_in_a_pool)
tasks_application = app_of(draw=draw_in_tasks)
library_application = app_of(wrap=around_a_library)
live_application = app_of(stamp=stamp_and_keep_one_live)

APPS = {
    "values_dated": f"{__name__}.dated_application",
    "values_draw": f"{__name__}.draw_application",
    "values_pool": f"{__name__}.pool_application",
    "values_tasks": f"{__name__}.tasks_application",
    "values_library": f"{__name__}.library_application",
    "values_live": f"{__name__}.live_application",
    "values_echo": f"{__name__}.draw_and_echo",
}


@pytest.fixture
def apps(rewind_settings, transactional_db, monkeypatch):
    """Committed rows: a pool's threads read and write through connections of their own."""
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, **APPS}
    registry._load.cache_clear()
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    yield rewind_settings
    registry._load.cache_clear()


def record(name: str) -> Run:
    source = execute_run(create_run(name, {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    return source


def replayed(source: Run) -> tuple[Run, dict]:
    replay = execute_run(create_replay(source).pk)
    return replay, replay_verdict(source, replay)


def test_a_prompt_with_todays_date_and_a_fresh_id_replays_at_zero_tokens_five_times(
    apps, monkeypatch
):
    provider = LoopbackProvider()
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = record("values_dated")
    assert len(provider.chat_calls()) == 1
    step = source.nodes.get()
    assert step.kind == Node.Kind.LLM and step.total_tokens > 0

    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())  # the simulator is gone
    time.sleep(0.01)  # the clock has moved on
    current = source
    for _ in range(5):
        replay, verdict = replayed(current)
        assert replay.status == Run.Status.COMPLETED, replay.error
        assert verdict.verdict == "identical", verdict
        assert verdict.total_tokens == 0 and verdict.nondeterministic == []
        again = replay.nodes.get()
        assert again.cache_source == Node.CacheSource.CACHE
        assert again.output["prompt"] == step.output["prompt"]
        assert "not_replayed" not in again.values_read
        current = replay  # the next replays the replay: the values travel with each step
    assert len(provider.chat_calls()) == 1
    # What was read: the clock (datetime.now) and uuid4's random bytes, by the line of the step.
    kinds = {key.split("|")[1] for key in step.values_read["reads"]}
    assert kinds == {"clock", "urandom"}, step.values_read


def test_a_code_steps_clock_random_and_ids_replay_identical(apps):
    source = record("values_draw")
    drawn = source.nodes.get().output["drawn"]
    time.sleep(0.01)

    for _ in range(2):
        replay, verdict = replayed(source)
        assert verdict.verdict == "identical", verdict
        assert verdict.nondeterministic == []
        assert replay.nodes.get().output["drawn"] == drawn
    # A fresh run of the same app draws afresh: the values were replayed, never frozen.
    fresh = record("values_draw").nodes.get().output["drawn"]
    assert all(drawn[k] != fresh[k] for k in ("nanos", "roll", "nonce", "id", "seeded", "bytes"))


def test_values_drawn_in_a_three_worker_pool_replay_identical_however_it_interleaves(apps):
    source = record("values_pool")
    drawn = source.nodes.get().output["drawn"]
    assert len({d["nonce"] for d in drawn}) == 6

    for _ in range(3):
        replay, verdict = replayed(source)
        assert verdict.verdict == "identical", verdict
        assert verdict.nondeterministic == []
        assert replay.nodes.get().output["drawn"] == drawn
    threads = {key.partition("|")[0] for key in source.nodes.get().values_read["reads"]}
    assert threads == {"0", "1", "2", "3", "4", "5"}  # each piece of work its own branch


def test_values_drawn_in_gathered_tasks_replay_identical(apps):
    source = record("values_tasks")
    drawn = source.nodes.get().output["drawn"]

    for _ in range(3):
        replay, verdict = replayed(source)
        assert verdict.verdict == "identical", verdict
        assert replay.nodes.get().output["drawn"] == drawn
    tasks = {key.partition("|")[0] for key in source.nodes.get().values_read["reads"]}
    assert tasks == {"/0", "/1", "/2", "/3"}  # each task its own, named in creation order


def test_a_library_polling_the_clock_between_the_users_reads_does_not_shift_them(
    apps, tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, _library(tmp_path), raising=False)
    source = record("values_library")
    wrote = source.nodes.get().output

    for _ in range(3):
        replay, verdict = replayed(source)
        assert verdict.verdict == "identical", verdict
        assert replay.nodes.get().output == wrote
    # The library read more often than recorded: its own line got live values, never the
    # user's (keyed by their own lines, in order), and it is named for it.
    missed = replay.nodes.get().values_read.get("not_replayed", [])
    assert missed and {m["line"].partition(":")[0] for m in missed} == {"deadline_lib"}


def test_machinery_reads_and_values_kept_live_are_neither_recorded_nor_replayed(apps, caplog):
    """Logging (the standard library) stamps its record with the clock in the step: live, not
    recorded, so it takes none of the user's values; a nonce read inside ``live_values()`` is
    fresh on every replay, and the step is then named non-deterministic by that key alone."""
    with caplog.at_level(logging.WARNING, logger="rewind.tests.values"):
        source = record("values_live")
        recorded_at = caplog.records[-1].created
        time.sleep(0.01)
        replay, verdict = replayed(source)
        replayed_at = caplog.records[-1].created
    assert replayed_at > recorded_at  # logging's clock stayed live
    assert replay.nodes.get().output["stamped_at"] == source.nodes.get().output["stamped_at"]
    assert verdict.verdict == "diverged"
    assert [(n["node"], n["keys"]) for n in verdict.nondeterministic] == [("stamp", ["fresh"])]
    lines = {key.split("|")[2] for key in source.nodes.get().values_read["reads"]}
    assert lines == {f"{__name__}:{stamp_and_keep_one_live.__code__.co_firstlineno + 5}"}


def test_a_line_the_recording_has_no_value_for_is_named_not_replayed(apps):
    source = record("values_draw")
    step = source.nodes.get()
    kept = dict(step.values_read["reads"])
    nonce = next(key for key in kept if key.startswith("|urandom|") and len(kept[key][0]) == 16)
    del kept[nonce]  # as if that line had not read when recorded
    step.values_read = {"reads": kept}
    step.save(update_fields=["values_read"])

    replay, verdict = replayed(source)

    assert verdict.nondeterministic[0]["not_replayed"] == [nonce.rpartition("|")[2]]
    [node] = run_json(replay)["nodes"]
    assert node["not_replayed"] == [
        {"line": nonce.rpartition("|")[2], "what": "urandom", "thread": "", "reads": 1}
    ]
    drawn, again = step.output["drawn"], replay.nodes.get().output["drawn"]
    assert {k for k in drawn if drawn[k] != again[k]} == {"nonce"}  # the rest replayed


def test_an_exported_run_replays_its_values_offline(apps, tmp_path):
    source = record("values_draw")
    out = tmp_path / "exported"
    call_command("rewind_export", str(source.pk), "--out", str(out), stdout=io.StringIO())
    home = tmp_path / "home"
    home.mkdir()
    passes(out, home, tests=1)


def test_a_program_recorded_with_rewind_hooks_replays_its_values(apps):
    from runs.recording import rewind_hooks

    builder = ApplicationBuilder().with_actions(draw=draw).with_entrypoint("draw")
    builder.with_hooks(*rewind_hooks("values_draw")).build().step()
    source = Run.objects.get(pipeline="values_draw")
    drawn = source.nodes.get().output["drawn"]

    replay, verdict = replayed(source)
    assert verdict.verdict == "identical", verdict
    assert replay.nodes.get().output["drawn"] == drawn


def test_a_forks_steps_read_their_sources_values_and_its_inherited_steps_carry_them(apps):
    source = record("values_echo")
    drawn = source.nodes.get(name="draw").output["drawn"]
    echoed = source.nodes.get(name="echo").output["echoed"]

    # A fork at echo with another suffix: draw is inherited, echo re-executes with its change
    # and the same values (the difference is the change, never which id was drawn).
    fork = execute_run(create_fork(source, "echo", "state.suffix", "!").pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.nodes.get(name="draw").cache_source == Node.CacheSource.INHERITED
    nonce, _, fresh_id = fork.nodes.get(name="echo").output["echoed"].partition("-")
    assert nonce == f"{drawn['nonce']}!" and fresh_id == echoed.partition("-")[2]

    # A fork of that fork at its first step re-executes draw, whose source is the inherited
    # copy: its values came with it.
    again = execute_run(create_fork(fork, "draw").pk)
    assert again.status == Run.Status.COMPLETED, again.error
    assert again.nodes.get(name="draw").output["drawn"] == drawn
    assert again.nodes.get(name="echo").output == fork.nodes.get(name="echo").output


def test_a_regression_replay_gives_unchanged_lines_their_recorded_values(apps, monkeypatch):
    """A regression run (issue 32) re-executes every step with the code as it is now: a line
    that reads the clock and a fresh id gets what it read when recorded, so the prompt that
    embeds them is unchanged and answered from the cache — with the provider gone."""
    from runs.engine.analysis.batches import batch_run_ids
    from runs.engine.analysis.batches.regression import regression_result
    from runs.engine.run_sets.batches import make_batch, plan_regression
    from runs.engine.run_sets.requests import RegressionRequest, Selection

    provider = LoopbackProvider()
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        source = record("values_dated")
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url())
    time.sleep(0.01)

    batch = make_batch(plan_regression(RegressionRequest(Selection(runs=(source.pk,)))))
    (pk,) = batch_run_ids(batch)
    run = execute_run(pk)

    assert run.status == Run.Status.COMPLETED, run.error
    assert run.regression_code == batch.code_version
    step, recorded = run.nodes.get(), source.nodes.get()
    assert step.cache_source == Node.CacheSource.CACHE and step.total_tokens == 0
    assert step.output["prompt"] == recorded.output["prompt"]
    ((result),) = regression_result(batch).runs
    assert result.first_divergence is None and result.source.tokens == 0
    assert len(provider.chat_calls()) == 1  # the recording's only
