"""What the bisect page shows: the outcomes two runs disagree on and, for the one asked, the
bisect as far as its forks go — replayed over the forks that exist (``bisect.replay``: none is
made, nothing is stored) — and whether its task may still make more.

Nothing here sees a request; the view (``runs/views/bisect.py``) parses the query with
``BisectForm`` and hands the values in."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.tasks import TaskResultStatus
from django.tasks.exceptions import TaskResultDoesNotExist

from runs.engine.analysis.bisect import Result, differing
from runs.engine.errors import BisectError
from runs.engine.run_sets.bisect import replay
from runs.forms.compare import MAX_BISECT_BUDGET
from runs.models import Run
from runs.tasks import bisect_task


def page_context(
    good: Run, bad: Run, name: str, task: Any, budget: int | None = None
) -> dict[str, Any]:
    """What the page shows: the outcomes the runs disagree on and, for ``name``, the bisect
    within ``budget`` forks (None: the default) as far as its forks go; ``running`` while its
    task may still make more."""
    context: dict[str, Any] = {
        "good": good,
        "bad": bad,
        "outcome": name,
        "budget": budget,
        "choices": differing(good, bad),
        "result": None,
        "error": "",
        "bad_outcome": False,
        "running": False,
        "query": query(name, budget, task),
        "max_budget": MAX_BISECT_BUDGET,
    }
    if not name:
        return context
    try:
        result = replay(good, bad, name, budget)
    except BisectError as exc:
        context.update(error=str(exc), bad_outcome=True)
        return context
    context.update(result=result, data=result.as_json(), **answer(result))
    if result.pending is None or task is None:
        return context  # done, or never started here: the button starts it
    status, stopped = task_status(str(task))
    if stopped:
        context["error"] = stopped
    context["running"] = status in (TaskResultStatus.READY, TaskResultStatus.RUNNING)
    return context


def query(name: str, budget: int | None, task: Any = None) -> str:
    """The page's query string: the outcome, the budget when one was asked, the task."""
    return urlencode(
        {
            "outcome": name,
            **({"budget": budget} if budget else {}),
            **({"task": task} if task else {}),
        }
    )


def answer(result: Result) -> dict[str, Any]:
    """The parts of a finished bisect the page words: the earlier steps left untried, the
    step that flips by construction (when it needed no fork), and the budget that tries the
    rest (every step, or, when no single step decides it, every pair: the page's offer)."""
    step, last = result.step, result.by_construction
    unknown = {c.index for c in result.unknown}
    accounted = unknown | {p.candidate.index for p in result.probes}
    return {
        "untried_before": sum(1 for i in unknown if step is not None and i < step.index),
        "unforked_last": last if last is not None and last.index not in accounted else None,
        "budget_for_the_rest": result.budget_for_the_rest,
    }


def task_status(task_id: str) -> tuple[str | None, str]:
    """The bisect task's status, and why it stopped without a result ("" if it did not)."""
    try:
        found = bisect_task.get_result(task_id)
    except (TaskResultDoesNotExist, NotImplementedError):
        return None, ""  # not this queue's (the immediate backend keeps no results)
    if found.status == TaskResultStatus.FAILED:
        return found.status, "the worker's bisect failed; start it again"
    if found.status == TaskResultStatus.SUCCESSFUL:
        value = found.return_value or {}
        return found.status, value.get("error", "") if isinstance(value, dict) else ""
    return found.status, ""
