"""What the pages show of history imported from Burr (``runs.engine.imports``): the import
page's report, a step's spans, where a run came from, and what to register to fork it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from runs.engine.imports.service import ImportReport
from runs.models import Node, Run
from runs.pages.masking import masked

# A span's attribute value is shown up to this many characters (a prompt can be long).
ATTRIBUTE_CHARS = 300


@dataclass(frozen=True)
class ImportedRun:
    """A run an import made or added steps to, as the report lists it."""

    pk: int
    pipeline: str
    project: str
    app_id: str


@dataclass
class ReportView:
    imported: list[ImportedRun] = field(default_factory=list)
    updated: list[ImportedRun] = field(default_factory=list)
    skipped: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def nothing_new(self) -> bool:
        return not (self.imported or self.updated or self.errors)


def report_view(report: ImportReport) -> ReportView:
    """The report with each run's app named (one query for every run it names)."""
    ids = [*report.imported, *report.updated]
    rows = Run.objects.filter(pk__in=ids).values_list("pk", "pipeline", "imported_from")
    by_id = {}
    for pk, pipeline, origin in rows:
        origin = origin or {}
        by_id[pk] = (pipeline, str(origin.get("project", "")), str(origin.get("app_id", "")))

    def named(pk: int) -> ImportedRun:
        pipeline, project, app_id = by_id.get(pk, ("", "", ""))
        return ImportedRun(pk, pipeline, project, app_id)

    return ReportView(
        imported=[named(pk) for pk in report.imported],
        updated=[named(pk) for pk in report.updated],
        skipped=report.skipped,
        errors=[e.as_json() for e in report.errors],
    )


@dataclass(frozen=True)
class SpanRow:
    """A span Burr's tracer logged inside a step: its name, nesting depth, duration and
    attributes (each value as text, masked, then cut to ``ATTRIBUTE_CHARS``)."""

    name: str
    depth: int
    duration_ms: float | None
    attributes: list[tuple[str, str]]
    step_level: bool  # attributes logged on the step itself, outside any span


def _parse(moment: str) -> datetime | None:
    try:
        return datetime.fromisoformat(moment) if moment else None
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= ATTRIBUTE_CHARS else text[:ATTRIBUTE_CHARS] + "…"


def step_spans(node: Node) -> list[SpanRow]:
    """The step's spans in the order begun, each indented under its parent."""
    spans = node.spans if isinstance(node.spans, list) else []
    depth: dict[str, int] = {}
    rows = []
    for span in spans:
        if not isinstance(span, dict):
            continue
        span_id, parent = str(span.get("id") or ""), span.get("parent")
        level = depth.get(str(parent), -1) + 1 if parent else 0
        if span_id:
            depth[span_id] = level
        start, end = _parse(span.get("start", "")), _parse(span.get("end", ""))
        duration = None
        if start is not None and end is not None:
            duration = max((end - start).total_seconds(), 0) * 1000
        attributes = span.get("attributes") if isinstance(span.get("attributes"), dict) else {}
        # Masked whole before any value is cut: a secret cut in half is no longer recognised.
        attributes = masked(attributes)
        rows.append(
            SpanRow(
                name=masked(str(span.get("name", ""))),
                depth=min(level, 5),
                duration_ms=duration,
                attributes=[(str(k), _text(v)) for k, v in attributes.items()],
                step_level=not span_id,
            )
        )
    return rows


def fork_hint(run: Run) -> str:
    """What a person must do to fork an imported run whose app this server does not know."""
    return (
        f"To fork this run, register its app as {run.pipeline!r} in REWIND_PIPELINES "
        f'(REWIND_PIPELINES="{run.pipeline}=your.module.application") and restart the '
        "dashboard and its workers — or import it again under the name of an app already "
        "registered (rewind_import PATH --pipeline NAME). Until then it can be browsed and "
        "compared, not forked."
    )


def sub_applications(run: Run) -> list[Run]:
    """The runs ``run`` spawned (Burr's sub-applications: MapStates children, spawned apps),
    in the order of the steps that spawned them. Only an imported run has any: no query for
    another."""
    if not run.imported_from:
        return []
    children = run.children.order_by("spawned_sequence_id", "id")
    return list(children.only("pk", "spawned_sequence_id"))
