"""rewind_bench's batch figures (issue 17, "Performance"), each a ratio to an anchor measured
beside it, on ``n`` recorded demo runs (regions cycling, so a region's first fork pays its llm
calls and the rest are cache hits — the same for the batch and its anchor, which use two
different values of the change):

- **throughput on 2 queue workers**: the same forks one after another in this process ÷ the
  batch on 2 workers (``run_on_workers``), timed from every worker ready; goal ≥ 1.8×;
- **per source**: a batch executed here (plan, make, execute, read the result) ÷ the same
  number of single forks as ``rewind_fork`` makes them (resolve, make, execute, the run's
  JSON); goal ≤ 1.1×.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from typing import Any

from django.db import connection

from runs.engine.analysis.batches.results import batch_result, batch_run_ids
from runs.engine.run_sets.batches import make_batch, plan_batch
from runs.engine.run_sets.replays import replay_on_workers
from runs.engine.run_sets.requests import BatchRequest, Selection
from runs.models import Run

REGIONS = ("all", "east", "north", "south", "west")


def _sources(n: int) -> list[Run]:
    from runs.engine.execution.new_runs import create_run
    from runs.engine.execution.runner import execute_run

    question = f"Which outreach policy is cheapest per conversion? (batch bench {uuid.uuid4().hex})"
    runs = []
    for i in range(n):
        run = execute_run(
            create_run("research", {"question": question, "region": REGIONS[i % 5]}).pk
        )
        if run.status != Run.Status.COMPLETED:
            raise RuntimeError(f"bench: run {run.pk} {run.status}: {run.error}")
        runs.append(run)
    return runs


def _request(sources: list[Run], value: str) -> BatchRequest:
    return BatchRequest(
        Selection(runs=tuple(s.pk for s in sources)), "analyse", "args.cost_scale", (value,)
    )


def _in_process(sources: list[Run], value: str) -> float:
    from runs.engine.execution.runner import execute_run

    began = time.perf_counter()
    batch = make_batch(plan_batch(_request(sources, value)))
    for pk in batch_run_ids(batch):
        execute_run(pk, on_step=None)
    batch_result(batch)
    return time.perf_counter() - began


def _single_forks(sources: list[Run], value: str) -> float:
    from runs.engine.analysis.report import run_json
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.forks import make_fork, resolve_fork

    began = time.perf_counter()
    for source in sources:
        fork = make_fork(resolve_fork(source, "analyse", "args.cost_scale", value))
        run_json(execute_run(fork.pk, on_step=None))
    return time.perf_counter() - began


def batch_figures(n: int) -> list[dict[str, Any]]:
    from runs.engine.execution.runner import execute_run
    from runs.engine.execution.workers import run_on_workers

    sources = _sources(n)
    # Per source: the batch here vs single forks, alternating values so neither warms the
    # other's cache (each value's first fork per region pays its llm calls).
    single = _single_forks(sources, "2.5")
    batched = _in_process(sources, "3.5")
    per_source = batched / single if single else 0.0
    # Throughput: the same forks one after another here, vs the batch on 2 queue workers.
    plan = plan_batch(_request(sources, "4.5"))
    here = make_batch(plan)
    began = time.perf_counter()
    for pk in batch_run_ids(here):
        execute_run(pk, on_step=None)
    sequential = time.perf_counter() - began
    away = make_batch(plan_batch(_request(sources, "5.5")))
    outcome = run_on_workers(batch_run_ids(away), 2, quiet=True)
    if outcome.lost or len(outcome.done) != n:
        raise RuntimeError(f"bench: the batch on workers lost runs: {outcome.lost}")
    ratio = sequential / outcome.work_s if outcome.work_s else 0.0
    return [
        {
            "figure": f"batch of {n} forks, 2 queue workers ÷ one after another in one process",
            "value": round(outcome.work_s, 4),
            "anchor": round(sequential, 4),
            "ratio": round(ratio, 3),
            "goal": "≥ 1.8×",
            "pass": ratio >= 1.8,
            "note": (
                f"seconds for {n} forks of recorded research runs at analyse (args.cost_scale), "
                f"5 regions: 5 forks pay their llm calls, the rest are cache hits; timed from "
                f"every worker ready (starting them took {outcome.startup_s:.2f} s, not "
                "counted); 2 workers on a 2-core machine shared with the database and this "
                "process"
            ),
        },
        {
            "figure": "per source run of a batch ÷ one rewind_fork of that run",
            "value": round(batched / n, 5),
            "anchor": round(single / n, 5),
            "ratio": round(per_source, 3),
            "goal": "≤ 1.1×",
            "pass": per_source <= 1.1,
            "note": f"seconds per source over {n} sources, both in this process",
        },
    ]


CEILING_CODE = """
import sys, time
start = float(sys.argv[1])
while time.time() < start:
    time.sleep(0.001)
began = time.perf_counter()
x = 0
for i in range(2_000_000):
    x += i * i
print(time.perf_counter() - began)
"""


def loop_seconds(processes: int) -> float:
    """Wall time of a CPU-bound Python loop run by ``processes`` processes at once (the
    slowest one): what this machine gives two processes that share nothing."""
    start = time.time() + 0.3  # every interpreter is up by then: they begin together
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CEILING_CODE, repr(start)],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for _ in range(processes)
    ]
    return max(float(child.communicate(timeout=120)[0]) for child in children)


CEILING_SHARE = 0.9  # of what 2 processes that share nothing give here (issue 33's goal)


def batch_figure(repeat: int, replays: int = 200) -> dict[str, Any]:
    """Throughput of ``replays`` cached replays of one research run (every call a cache hit)
    on 2 queue workers ÷ on 1, best of ``repeat`` each, the two alternating. Timed from the
    moment every worker is ready (the replays are enqueued then) to the last replay finished;
    the verdicts are given after. Starting a worker process (a fresh interpreter importing
    Django and the engine) is a fixed cost per batch, reported in ``note``. ``ceiling`` is what
    the machine itself gives: a CPU-bound loop in 2 processes that share nothing ÷ in 1,
    measured beside (the figure cannot beat it)."""
    from runs.engine.execution.new_runs import create_run
    from runs.engine.execution.runner import execute_run
    from runs.models import Run

    question = f"Which outreach policy is cheapest per conversion? (batch bench {uuid.uuid4().hex})"
    source = execute_run(create_run("research", {"question": question}).pk)
    if source.status != Run.Status.COMPLETED:
        raise RuntimeError(f"bench: run {source.pk} {source.status}: {source.error}")
    sources = [source] * replays

    def batch(workers: int) -> tuple[float, float]:
        outcome = replay_on_workers(sources, workers, quiet=True, judge=False)
        bad = [r for r in outcome.results if not r.identical]
        if bad or len(outcome.results) != replays:
            raise RuntimeError(f"bench: a batch replay was not identical: {bad[:1]}")
        return replays / outcome.work_s, outcome.startup_s

    # Alternate, so that whatever else the machine does weighs on both alike.
    one = two = 0.0
    one_startup = two_startup = loop_one = loop_two = float("inf")
    for _ in range(repeat):
        throughput, startup = batch(1)
        one, one_startup = max(one, throughput), min(one_startup, startup)
        throughput, startup = batch(2)
        two, two_startup = max(two, throughput), min(two_startup, startup)
        loop_one, loop_two = min(loop_one, loop_seconds(1)), min(loop_two, loop_seconds(2))
    ratio = round(two / one, 3) if one else 0.0
    ceiling = 2 * loop_one / loop_two
    bound = round(CEILING_SHARE * ceiling, 2)
    return {
        "figure": f"batch replays, 2 queue workers ÷ 1 ({connection.vendor})",
        "value": round(two, 6),
        "anchor": round(one, 6),
        "ratio": ratio,
        "goal": f"≥ {bound}× ({CEILING_SHARE:.0%} of the ceiling)",
        "pass": ratio >= bound,
        "ceiling": round(ceiling, 3),
        "of_ceiling": round(ratio / ceiling, 3) if ceiling else None,
        "note": (
            f"replays per second, {replays} cached replays of one research run per batch, "
            f"timed from every worker ready (starting the workers took {one_startup:.2f} s "
            f"for 1, {two_startup:.2f} s for 2, not counted); this machine gives 2 processes "
            f"that share nothing {ceiling:.2f}× one (a CPU-bound loop, measured beside)"
        ),
    }
