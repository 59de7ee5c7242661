"""``rewind_bench``'s regression-replay figures (``rewind_regress``): what re-running recorded
runs with edited code costs, against re-running them in full.

The app is a plain Burr app written to a temporary folder put on ``sys.path``: a code step
takes a ``topic``, then four LLM steps (``facts``, ``risks``, ``examples``, ``summary``) each
ask the simulator one question about it, at temperature 0, with a prompt template written
inside the action. ``N`` runs are recorded of it (topics never asked before: every call pays).
The edit rewrites ``summary``'s template only, so the fraction of calls it alters is planted:
1 of the 4 calls of every run (``altered_fraction`` counts the templates that differ).

An edited app is another module file registered under the same pipeline name, as a user's
``rewind_regress`` after an edit imports the edited file in a fresh process: this process
switches ``settings.REWIND_PIPELINES`` (the registry loads by name and dotted path), and the
queue workers it starts get the same settings and ``sys.path`` (``workers.worker_config``).

- **tokens**: the regression replay executed here (``plan_regression``, the command's path)
  ÷ a full re-run of the same runs with the same edited code (every call live: the
  regression's own request with ``live=True``, as its samples are made); goal ≤ the altered
  fraction + 5 %.
- **wall time on 2 queue workers** (``run_on_workers``, timed from every worker ready): a
  regression replay ÷ a full re-run of the same runs, each try with a fresh edit (so the
  edited calls are never cached), best of ``repeat``; goal ≤ 1.0× (it never costs time). The
  simulator answers after ``LATENCY_S`` — a provider's latency (real ones take longer), which
  is what a cache hit saves; without it a loopback call costs as little as a cache read.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import textwrap
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.conf import settings

from runs.bench.recording import _openai_at
from runs.engine.analysis.batches import batch_run_ids
from runs.engine.analysis.batches.regression import regression_result
from runs.engine.apps import registry
from runs.engine.apps.versions import app_version
from runs.engine.providers.simulator import Simulator
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Node, Run

NAME = "regress_bench"  # the pipeline name every version of the app is registered under
LATENCY_S = 0.1  # the simulator's answer time per call
TEMPLATES = {  # each LLM step's prompt template, in order; the edit rewrites the last one
    "facts": "List one fact about {topic}.",
    "risks": "Name one risk of {topic}.",
    "examples": "Give one example of {topic}.",
    "summary": "Summarise {topic} in one sentence.",
}
EDITED = "summary"

APP = '''
"""rewind_bench's regression app (written by runs/bench/regress.py): a topic, four questions."""

import os

import openai
from burr.core import ApplicationBuilder, State
from burr.core.action import action

_clients = {}


def ask(prompt):
    where = os.environ["OPENAI_BASE_URL"]
    if where not in _clients:
        _clients[where] = openai.OpenAI(base_url=where, max_retries=0, timeout=30)
    reply = _clients[where].chat.completions.create(
        model="rewind-sim-1", temperature=0, messages=[{"role": "user", "content": prompt}]
    )
    return reply.choices[0].message.content


@action(reads=[], writes=["topic"])
def receive(state: State, topic: str) -> State:
    return state.update(topic=topic)
'''
STEP = """

@action(reads=["topic"], writes=["NAME"])
def NAME(state: State) -> State:
    template = TEMPLATE
    return state.update(NAME=ask(template.format(topic=state["topic"])))
"""
FACTORY = """

def application():
    return (
        ApplicationBuilder()
        .with_actions(receive=receive, NAMES)
        .with_transitions(TRANSITIONS)
        .with_entrypoint("receive")
        .build()
    )
"""


def app_text(templates: dict[str, str]) -> str:
    steps = "".join(
        STEP.replace("NAME", name).replace("TEMPLATE", repr(template))
        for name, template in templates.items()
    )
    names = ["receive", *templates]
    factory = FACTORY.replace("NAMES", ", ".join(f"{n}={n}" for n in templates)).replace(
        "TRANSITIONS", ", ".join(f"({a!r}, {b!r})" for a, b in zip(names, names[1:], strict=False))
    )
    return textwrap.dedent(APP) + steps + factory


def edited(version: int) -> dict[str, str]:
    """The templates with ``summary``'s rewritten (a new wording each ``version``)."""
    return {**TEMPLATES, EDITED: f"In one sentence (version {version}), summarise {{topic}}."}


def altered_fraction(old: dict[str, str], new: dict[str, str]) -> float:
    """The planted fraction of calls an edit alters: every run asks each step once, so the
    steps whose template differs, over all steps."""
    return sum(old[name] != new[name] for name in old) / len(old)


class _SlowSimulator(Simulator):
    """The simulator, answering each chat call after ``LATENCY_S``."""

    def respond(self, body: dict) -> tuple[int, dict]:
        time.sleep(LATENCY_S)
        return super().respond(body)


class _App:
    """The app's versions as module files in ``folder`` (on ``sys.path``), each registered in
    turn under ``NAME``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.prefix = f"rewind_bench_regress_{uuid.uuid4().hex[:8]}"
        self.modules: list[str] = []

    def use(self, templates: dict[str, str]) -> str:
        """Write a new module of the app with ``templates`` and register it; its version."""
        module = f"{self.prefix}_v{len(self.modules)}"
        (self.folder / f"{module}.py").write_text(app_text(templates))
        self.modules.append(module)
        settings.REWIND_PIPELINES = {**settings.REWIND_PIPELINES, NAME: f"{module}.application"}
        registry._load.cache_clear()
        return app_version(registry.get_pipeline(NAME), commit=False).version


@contextmanager
def _app_folder() -> Iterator[_App]:
    """A temporary folder on ``sys.path`` for the app's modules; on leaving, the settings,
    ``sys.path``, the modules and the registry as they were."""
    folder = Path(tempfile.mkdtemp(prefix="rewind-bench-regress-"))
    pipelines = settings.REWIND_PIPELINES
    sys.path.insert(0, str(folder))
    app = _App(folder)
    try:
        yield app
    finally:
        settings.REWIND_PIPELINES = pipelines
        sys.path.remove(str(folder))
        for module in app.modules:
            sys.modules.pop(module, None)
        registry._load.cache_clear()
        shutil.rmtree(folder, ignore_errors=True)


def _record(n: int) -> list[Run]:
    from runs.engine.execution.new_runs import create_run
    from runs.engine.execution.runner import execute_run

    tag = uuid.uuid4().hex[:12]
    runs = []
    for i in range(n):
        run = execute_run(create_run(NAME, {"topic": f"bench topic {i} ({tag})"}).pk)
        if run.status != Run.Status.COMPLETED:
            raise RuntimeError(f"bench: run {run.pk} {run.status}: {run.error}")
        runs.append(run)
    return runs


def _regression(sources: list[Run]) -> tuple[Any, list[int]]:
    """The regression replay ``rewind_regress --runs …`` makes, not executed: its batch."""
    selection = Selection(runs=tuple(s.pk for s in sources))
    batch = make_batch(plan_regression(RegressionRequest(selection=selection)))
    return batch, batch_run_ids(batch)


def _full_reruns(sources: list[Run], version: str) -> list[int]:
    """Every source re-run from its first step with the registered code, every call live."""
    from runs.engine.forking.forks import make_fork
    from runs.engine.forking.replays import regression_request

    return [
        make_fork(replace(regression_request(source, version), live=True)).pk for source in sources
    ]


def _tokens(ids: list[int]) -> int:
    nodes = Node.objects.filter(run_id__in=ids).exclude(cache_source=Node.CacheSource.INHERITED)
    return sum(nodes.values_list("total_tokens", flat=True))


def _live_llm_calls(ids: list[int]) -> int:
    return Node.objects.filter(
        run_id__in=ids, kind=Node.Kind.LLM, cache_source=Node.CacheSource.LIVE
    ).count()


def _here(ids: list[int]) -> float:
    from runs.engine.execution.runner import execute_run

    began = time.perf_counter()
    for pk in ids:
        execute_run(pk, on_step=None)
    return time.perf_counter() - began


def _on_workers(ids: list[int]) -> tuple[float, float]:
    """(work, startup) seconds of ``ids`` on 2 queue workers; every run must complete."""
    from runs.engine.execution.workers import run_on_workers

    outcome = run_on_workers(ids, 2, quiet=True)
    failed = [d.run.pk for d in outcome.done.values() if d.run.status != Run.Status.COMPLETED]
    if outcome.lost or failed or len(outcome.done) != len(ids):
        raise RuntimeError(f"bench: runs on workers lost {outcome.lost} or failed {failed}")
    return outcome.work_s, outcome.startup_s


def _checked(batch: Any, n: int) -> str:
    """What every regression run must show (an empty string: it does): completed, the edited
    step the first that differs, the only one whose code changed."""
    result = regression_result(batch)
    wrong = [
        run.source.row.source_id
        for run in result.runs
        if not run.completed
        or (run.first_divergence or {}).get("node") != EDITED
        or run.code_changed != [EDITED]
    ]
    return f"runs {wrong} of {n} do not diverge at {EDITED} alone" if wrong else ""


def regress_figures(repeat: int, n: int = 8) -> list[dict[str, Any]]:
    with ExitStack() as stack:
        base = stack.enter_context(_SlowSimulator().serve())
        stack.enter_context(_openai_at(base))
        app = stack.enter_context(_app_folder())
        app.use(TEMPLATES)
        sources = _record(n)
        calls = n * len(TEMPLATES)
        # Tokens, here: the regression replay of the edit ÷ a full re-run with the same code.
        fraction = altered_fraction(TEMPLATES, edited(1))
        version = app.use(edited(1))
        batch, ids = _regression(sources)
        here_s = _here(ids)
        problem = _checked(batch, n)
        spent, live = _tokens(ids), _live_llm_calls(ids)
        full_ids = _full_reruns(sources, version)
        full_here_s = _here(full_ids)
        full, full_live = _tokens(full_ids), _live_llm_calls(full_ids)
        # Wall time on 2 workers, best of ``repeat``: each try a fresh edit (never cached).
        best = best_full = float("inf")
        startup = float("inf")
        for attempt in range(repeat):
            version = app.use(edited(2 + attempt))
            batch, ids = _regression(sources)
            work_s, started_s = _on_workers(ids)
            problem = problem or _checked(batch, n)
            best, startup = min(best, work_s), min(startup, started_s)
            best_full = min(best_full, _on_workers(_full_reruns(sources, version))[0])
    ratio = spent / full if full else 0.0
    goal = fraction + 0.05
    walls = best / best_full if best_full else 0.0
    return [
        {
            "figure": "tokens of a regression replay ÷ a full re-run of the same runs",
            "value": spent,
            "anchor": full,
            "ratio": round(ratio, 4),
            "goal": f"≤ {goal:.2f}× (the fraction of calls the edit alters, {fraction:.2f}, + 0.05)",
            "pass": ratio <= goal and not problem and full_live == calls,
            "note": (
                f"{n} recorded runs of a Burr app with 4 LLM calls each; the edit rewrites the "
                f"last step's prompt template ({EDITED}): {live} of {calls} calls went to the "
                f"provider in the regression, {full_live} in the full re-run; tokens per run "
                f"{spent / n:.1f} against {full / n:.1f}; in this process the regression took "
                f"{here_s:.2f} s, the full re-run {full_here_s:.2f} s (simulator at "
                f"{LATENCY_S * 1000:.0f} ms a call)" + (f"; {problem}" if problem else "")
            ),
        },
        {
            "figure": "regression replay on 2 queue workers ÷ a full re-run on 2 workers (wall)",
            "value": round(best, 4),
            "anchor": round(best_full, 4),
            "ratio": round(walls, 3),
            "goal": "≤ 1.0×",
            "pass": walls <= 1.0 and not problem,
            "note": (
                f"seconds for {n} runs, best of {repeat}, each try a fresh edit of {EDITED}; "
                f"timed from every worker ready (starting 2 took {startup:.2f} s, not counted); "
                f"the simulator answers after {LATENCY_S * 1000:.0f} ms a call (a provider's "
                "latency), which is what a cache hit saves"
            ),
        },
    ]
