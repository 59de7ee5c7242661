"""What a set of runs is asked, parsed once at the edge (a command's options, a form): which
source runs (``Selection``, ``select_sources``, ``parse_where``) and, for a batch, the change
(``BatchRequest``, ``parse_set``) or the regression replay (``RegressionRequest``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.db.models import JSONField, Q
from django.db.models.functions import Cast

from runs.engine.analysis.noise import MAX_SAMPLES
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import ForkError
from runs.models import Batch, Run

_INPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def parse_where(text: str) -> tuple[str, str]:
    """``input.NAME=VALUE`` → (NAME, VALUE as typed); anything else is one clear error."""
    key, sep, value = text.partition("=")
    name = key.strip().removeprefix("input.")
    if not sep or not key.strip().startswith("input.") or not _INPUT_NAME.fullmatch(name):
        raise ForkError(f"--where takes input.NAME=VALUE (a run input), got {text!r}")
    return name, value


@dataclass(frozen=True)
class Selection:
    """The source runs: an explicit list (``runs``, in the order given), or the completed
    root runs of ``pipeline`` — never forks, replays or samples — whose inputs match every
    ``where`` (NAME, VALUE as typed: compared as text, and as the JSON it reads as): a declared
    pipeline's run inputs, a Burr app's runtime inputs of the first turn."""

    runs: tuple[int, ...] = ()
    pipeline: str = ""
    where: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if bool(self.runs) == bool(self.pipeline):
            raise ForkError("select the source runs by --runs or by --pipeline, one of the two")
        if self.where and not self.pipeline:
            raise ForkError("--where narrows a --pipeline selection")

    def as_json(self) -> dict[str, Any]:
        if self.runs:
            return {"runs": list(self.runs)}
        return {"pipeline": self.pipeline, "where": {n: v for n, v in self.where}}

    def describe(self) -> str:
        if self.runs:
            return f"{len(self.runs)} run(s) given"
        where = " and ".join(f"input.{n} = {v!r}" for n, v in self.where)
        return f"completed runs of {self.pipeline}" + (f" where {where}" if where else "")

    def queryset(self):
        """The pipeline selection as a query (no explicit list)."""
        # Looked into as JSON (jsonb on PostgreSQL): the columns keep the text as written.
        query = Run.objects.annotate(
            given=Cast("inputs", JSONField()), given_turns=Cast("turns", JSONField())
        ).filter(
            pipeline=self.pipeline,
            status=Run.Status.COMPLETED,
            parent__isnull=True,
            sample_of__isnull=True,
        )
        for name, value in self.where:
            try:
                typed = json.loads(value)
            except ValueError:
                typed = None
            alike = [value]
            if typed is not None and not isinstance(typed, dict | list) and typed != value:
                alike.append(typed)
            match = Q()
            # A declared pipeline's input is the run's; a Burr app's runtime input is its
            # first turn's (``app.run(inputs=…)``, an imported or recorded run's first step).
            for where in (f"given__{name}", f"given_turns__0__inputs__{name}"):
                for each in alike:
                    match |= Q(**{where: each})
            query = query.filter(match)
        return query.order_by("id")


def select_sources(
    selection: Selection, limit: int = Batch.MAX_SOURCES, *, newest: bool = False
) -> list[Run]:
    """The source runs, checked: they exist, are finished, share one pipeline, and there are
    at most ``limit`` of them — or, ``newest``, the newest ``limit`` of a pipeline's (in the
    order of their ids). Refusals are one line; nothing is written."""
    if selection.runs:
        found = Run.objects.in_bulk(list(selection.runs))
        missing = [pk for pk in selection.runs if pk not in found]
        if missing:
            raise ForkError(f"no run {', '.join(map(str, missing[:10]))}")
        runs = [found[pk] for pk in dict.fromkeys(selection.runs)]
        pipelines = sorted({r.pipeline for r in runs})
        if len(pipelines) > 1:
            raise ForkError(f"a batch's runs share one pipeline; these are of {pipelines}")
        unfinished = [r.pk for r in runs if not r.is_finished]
        if unfinished:
            raise ForkError(f"runs still going (fork them once finished): {unfinished[:10]}")
    else:
        get_pipeline(selection.pipeline)  # a typo is an error, not "no run matches"
        if newest:
            runs = sorted(selection.queryset().reverse()[:limit], key=lambda r: r.pk)
        else:
            runs = list(selection.queryset()[: limit + 1])
        if not runs:
            raise ForkError(f"no run matches: {selection.describe()}")
    if len(runs) > limit:
        raise ForkError(f"a batch takes at most {limit} source runs; narrow the selection")
    return runs


@dataclass(frozen=True)
class BatchRequest:
    """One change — ``field`` of step ``node`` (a name, ``name#k`` or a step number, resolved
    in each source run) set to each of ``values`` (as typed) — over ``selection`` (at most
    ``limit`` of its runs, the newest; 0: all, up to ``Batch.MAX_SOURCES``), with ``samples``
    stability samples per source (0: none)."""

    selection: Selection
    node: str
    field: str
    values: tuple[str, ...]
    samples: int = 0
    limit: int = 0

    def __post_init__(self) -> None:
        if not self.node:
            raise ForkError("--node names the step to change")
        if not self.field:
            raise ForkError("--set FIELD=VALUE names the field to change")
        if not self.values:
            raise ForkError("give at least one value")
        if len(self.values) > Batch.MAX_VALUES:
            raise ForkError(f"a batch tries at most {Batch.MAX_VALUES} values")
        if len(set(self.values)) != len(self.values):
            raise ForkError("each value once")
        if not 0 <= self.samples <= MAX_SAMPLES:
            raise ForkError(f"--samples must be between 0 and {MAX_SAMPLES}, got {self.samples}")
        check_limit(self.limit, self.selection)


def check_limit(limit: int, selection: Selection) -> None:
    """``--limit`` narrows a pipeline's runs to the newest N; it cannot narrow ``--runs``."""
    if limit and selection.runs:
        raise ForkError("--limit narrows a --pipeline selection; --runs names every run")
    if not 0 <= limit <= Batch.MAX_SOURCES:
        raise ForkError(f"--limit must be between 1 and {Batch.MAX_SOURCES}, got {limit}")


def parse_set(text: str) -> tuple[str, str]:
    """``FIELD=VALUE`` → (FIELD, VALUE as typed)."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ForkError(f"--set takes FIELD=VALUE, got {text!r}")
    return name.strip(), value


@dataclass(frozen=True)
class RegressionRequest:
    """A regression replay (``rewind_regress``): the ``selection``'s completed root runs — at
    most ``limit`` of them, the newest (0: all, up to ``Batch.MAX_SOURCES``) — re-run with the
    app's code as it is now, with ``samples`` stability samples per source (0: none)."""

    selection: Selection
    samples: int = 0
    limit: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.samples <= MAX_SAMPLES:
            raise ForkError(f"--samples must be between 0 and {MAX_SAMPLES}, got {self.samples}")
        check_limit(self.limit, self.selection)
