"""A user's Burr app as a file on disk that a test edits, for ``rewind_regress`` (issue 32):
``commands/test_command_regress.py``.

The app (``APP``: four plain ``@action`` functions, the LLM called through the ``openai`` SDK at
``OPENAI_BASE_URL``, as a user writes it) takes a ``request``, has the model describe it, then
classify it with a prompt template kept inside ``classify`` — "respond with a single word, one
of: OPTIONS" — and ends with a code step. A test writes it with ``OLD`` options, records runs,
rewrites it with ``NEW`` (dropping ``poem``, adding ``greeting``) and runs ``rewind_regress`` in
a fresh process, which imports the edited file.

What each request is classified as under either template is the simulator's own rule
(``compose_text``: the listed option whose words the request shares, else the fallback
``other``), asked in this process (``expected_label``): the planted truth the command's answer
is checked against. The requests are chosen so that no seed changes the choice.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from runs.engine.apps import registry, versions
from runs.engine.providers.simulator import SIMULATOR_MODEL, Simulator, compose_text

PROJECT_ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 60  # seconds a manage.py subprocess may take before the test fails
BASE_URL = "https://rewind.example.test"  # REWIND_BASE_URL: the JUnit file links diffs there

NAME = "regress_app"  # the pipeline's name
MODULE = "rewind_regress_user_app"  # the module written to the test's folder
CHECKED = ("weather", "math", "poem", "greeting")  # what the outcome's check accepts
OUTCOMES = {NAME: [{"name": "category", "path": "classify.label", "check": {"one_of": CHECKED}}]}

OLD = "weather, math, poem, other"
NEW = "weather, math, greeting, other"  # poem dropped (its requests fall back to other)
TEMPLATE = "Request: {request}.\nRespond with a single word, one of: " + "{options}."
DESCRIBE = "Describe this request in one sentence: {request}"

# Twelve requests, each classified the same whatever the seed (checked by ``expected_label``):
# under OLD → NEW, three weather and three math keep their label, three poems fall back to
# "other" (pass → fail), two greetings move from "other" to "greeting" (fail → pass), and one
# stays "other" (fails both times).
REQUESTS = (
    "Will it rain tomorrow in Oslo",
    "What is the forecast for the snow storm",
    "Is it sunny and warm today",
    "Please multiply 12 by 7",
    "Calculate the sum of 3 and 4",
    "Divide 100 by 5",
    "Write a haiku about autumn leaves",
    "Compose a sonnet for my friend",
    "A limerick about a cat",
    "Say hello with a friendly greeting",
    "Send my greeting to the team",
    "Tell me about the stock market",
)

APP = textwrap.dedent(
    '''
    """A user's app: describe a request, then classify it (a test edits this file)."""

    import os

    import openai
    from burr.core import ApplicationBuilder, State
    from burr.core.action import action


    def ask(prompt: str) -> str:
        client = openai.OpenAI(
            base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-test-0000", max_retries=0,
            timeout=10,
        )
        reply = client.chat.completions.create(
            model="MODEL", temperature=0, messages=[{"role": "user", "content": prompt}]
        )
        return reply.choices[0].message.content


    @action(reads=[], writes=["request"])
    def receive(state: State, request: str) -> State:
        return state.update(request=request.strip())


    @action(reads=["request"], writes=["description"])
    def describe(state: State) -> State:
        return state.update(description=ask(DESCRIBE.format(request=state["request"])))


    @action(reads=["request"], writes=["label", "prompt"])
    def classify(state: State) -> State:
        template = TEMPLATE_LITERAL
        prompt = template.format(request=state["request"])
        return state.update(label=ask(prompt).strip(), prompt=prompt)


    @action(reads=["label", "description"], writes=["answer"])
    def finish(state: State) -> State:
        return state.update(answer=f"{state['label']}: {state['description']}")


    def application():
        return (
            ApplicationBuilder()
            .with_actions(receive=receive, describe=describe, classify=classify, finish=finish)
            .with_transitions(("receive", "describe"), ("describe", "classify"),
                              ("classify", "finish"))
            .with_entrypoint("receive")
            .build()
        )
    '''
)
STEPS = ("receive", "describe", "classify", "finish")  # in order: sequence ids 0..3


def app_text(options: str) -> str:
    literal = repr(TEMPLATE.replace("{options}", options))
    return (
        APP.replace("TEMPLATE_LITERAL", literal)
        .replace("DESCRIBE.format", f"{DESCRIBE!r}.format")
        .replace("MODEL", SIMULATOR_MODEL)
    )


def write_app(folder: Path, options: str) -> Path:
    """Write (or rewrite) the app with ``options`` in its template; no stale bytecode."""
    path = folder / f"{MODULE}.py"
    path.write_text(app_text(options))
    shutil.rmtree(folder / "__pycache__", ignore_errors=True)
    return path


def forget_app() -> None:
    """What a fresh process would know of the app: nothing (module, registry, loaded files)."""
    sys.modules.pop(MODULE, None)
    importlib.invalidate_caches()
    registry._load.cache_clear()
    versions._loaded.pop(NAME, None)


# --- the planted truth: the simulator's rule, asked in this process -------------------------


def messages(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]


def classify_prompt(request: str, options: str) -> str:
    return TEMPLATE.format(request=request, options=options)


def expected_label(request: str, options: str) -> str:
    """The one word the simulator answers ``classify``'s prompt with — the same under every
    seed (so at temperature 0 whatever the request's own seed is)."""
    answers = {
        compose_text(messages(classify_prompt(request, options)), random.Random(seed))
        for seed in range(16)
    }
    assert len(answers) == 1, f"{request!r} under {options!r} depends on the seed: {answers}"
    return answers.pop()


def expected_tokens(prompt: str) -> int:
    """The usage the simulator reports for ``prompt`` asked as the app asks it."""
    body = {"model": SIMULATOR_MODEL, "temperature": 0, "messages": messages(prompt)}
    status, reply = Simulator().dispatch("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200, reply
    return reply["usage"]["total_tokens"]


# --- running manage.py in a fresh process ---------------------------------------------------


@dataclass
class Result:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    def __str__(self) -> str:
        return (
            f"manage.py {' '.join(self.args)} → exit {self.returncode}\n"
            f"--- stderr ---\n{self.stderr[-3000:]}\n--- stdout ---\n{self.stdout[-3000:]}"
        )


def environment(folder: Path, base_url: str) -> dict[str, str]:
    """A shell's environment for the app in ``folder``: the test database and settings
    (``worker_environment``), the app registered with its outcome, the SDK at ``base_url``."""
    from runs.tests.conftest import worker_environment

    return worker_environment(
        REWIND_PIPELINES=f"{NAME}={MODULE}.application",
        REWIND_OUTCOMES=json.dumps(OUTCOMES),
        PYTHONPATH=os.pathsep.join([str(folder), str(PROJECT_ROOT)]),
        PYTHONDONTWRITEBYTECODE="1",
        OPENAI_BASE_URL=base_url,
        REWIND_BASE_URL=BASE_URL,
    )


def manage(env: dict[str, str], *args: str) -> Result:
    """``manage.py ARGS`` in a fresh process; one that hangs fails the test (SIGABRT first,
    so Python prints where it was)."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT,
        env={**env, "PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        try:
            stdout, stderr = process.communicate(timeout=10)
        finally:
            process.kill()
        pytest.fail(f"manage.py {' '.join(args)} hung for {TIMEOUT} s:\n{stderr}")
    return Result(args, process.returncode, stdout, stderr)
