"""An import, start to end: what PATH holds, each app written as a run (parents before the
forks made from them, sub-applications linked to the step that spawned them), and the report
the command, the dashboard and ``--follow`` print. One bad app never stops its siblings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runs.engine.errors import InputError
from runs.engine.imports.persisters import database, persisted_apps
from runs.engine.imports.tracker import AppDir, LogError, app_dirs, read_app, steps
from runs.engine.imports.writing import Action, RunWriter, Source, import_key, write_steps
from runs.engine.telemetry import export_run
from runs.models import Run


@dataclass
class ImportReport:
    imported: list[int] = field(default_factory=list)  # runs made
    updated: list[int] = field(default_factory=list)  # runs that got new steps
    skipped: int = 0  # apps already imported with nothing new
    errors: list[LogError] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "updated": self.updated,
            "skipped": self.skipped,
            "errors": [e.as_json() for e in self.errors],
        }

    def count(self, writer: RunWriter) -> None:
        """Count what ``writer`` did (committed) and send a run that changed and is not
        still being followed to the OpenTelemetry collector, if one is configured."""
        if (writer.created or writer.added) and writer.run is not None:
            if writer.finished:
                export_run(writer.run.pk)
        if writer.created:
            self.imported.append(writer.run.pk)
        elif writer.added or writer.renamed:
            self.updated.append(writer.run.pk)
        else:
            self.skipped += 1


def tracker_source(app: AppDir, pipeline: str | None, origin: Path) -> Source:
    source = Source(
        key=import_key("tracker", app.project, app.app_id),
        pipeline=(pipeline or app.project)[:100],
        pipeline_given=bool(pipeline),
        imported_from={"path": str(origin), "project": app.project, "app_id": app.app_id},
        actions={
            name: Action(name, spec["reads"], spec["writes"]) for name, spec in app.actions.items()
        },
        conditions={(a, b): c for a, b, c in app.transitions},
    )
    if app.parent is not None:
        parent = Run.objects.filter(
            import_key=import_key("tracker", app.project, app.parent.app_id)
        ).first()
        if parent is not None:
            source.parent = parent
            source.parent_sequence_id = app.parent.sequence_id
    return source


def _in_order(apps: list[AppDir]) -> list[AppDir]:
    """Apps with every fork after the app it was forked from (when both are here)."""
    by_id = {(a.project, a.app_id): a for a in apps}
    ordered: list[AppDir] = []
    seen: set[tuple[str, str]] = set()

    def visit(app: AppDir, depth: int = 0) -> None:
        key = (app.project, app.app_id)
        if key in seen:
            return
        seen.add(key)
        parent = app.parent and by_id.get((app.project, app.parent.app_id))
        if parent is not None and depth < 10_000:
            visit(parent, depth + 1)
        ordered.append(app)

    for app in apps:
        visit(app)
    return ordered


def import_app(app: AppDir, pipeline: str | None, origin: Path, *, following: bool = False):
    return write_steps(
        tracker_source(app, pipeline, origin),
        (step for step, _ in steps(app, following=following)),
        following=following,
    )


def import_path(
    path: str | Path,
    *,
    pipeline: str | None = None,
    project: str | None = None,
    app_id: str | None = None,
    following: bool = False,
    max_line: int | None = None,
) -> ImportReport:
    """Import every app under ``path`` (Burr's root, a project or one app directory).
    ``max_line``: the longest line of a log, or JSON file, read (bytes; ``MAX_LINE``)."""
    origin = Path(path).expanduser()
    if not origin.exists():
        raise InputError(f"{origin}: no such directory")
    if not origin.is_dir():
        raise InputError(f"{origin}: not a directory (give Burr's tracker directory)")
    report = ImportReport()
    apps: list[AppDir] = []
    root = origin.resolve()
    found = list(app_dirs(origin, project))
    if not found:
        raise InputError(
            f"{origin}: no Burr tracker log here (an app's directory holds log.jsonl; "
            "Burr writes them under ~/.burr/<project>/<app_id>/)"
        )
    for proj, directory in found:
        if app_id is not None and directory.name != app_id:
            continue
        try:
            apps.append(read_app(directory, proj, root=root, limit=max_line))
        except LogError as exc:
            report.errors.append(exc)
    for app in _in_order(apps):
        try:
            report.count(import_app(app, pipeline, root, following=following))
        except LogError as exc:
            report.errors.append(exc)
    link_children(apps)
    return report


def link_children(apps: list[AppDir]) -> None:
    """Each sub-application's run linked to the run and step that spawned it, once both are
    imported (Burr's ``spawning_parent_pointer``; ``children.jsonl`` says the same from the
    parent's side)."""
    for app in apps:
        if app.spawner is None:
            continue
        child_key = import_key("tracker", app.project, app.app_id)
        spawner = Run.objects.filter(
            import_key=import_key("tracker", app.project, app.spawner.app_id)
        ).values_list("pk", flat=True).first()  # fmt: skip
        if spawner is not None:
            Run.objects.filter(import_key=child_key, spawned_by__isnull=True).update(
                spawned_by_id=spawner, spawned_sequence_id=app.spawner.sequence_id
            )


def import_persister(
    url: str, table: str, *, pipeline: str | None = None, app_id: str | None = None
) -> ImportReport:
    """Import the apps a Burr state persister wrote into ``table`` of the database at
    ``url``: one run per (partition key, app id)."""
    db = database(url, table)
    report = ImportReport()
    for app, app_steps in persisted_apps(db):
        if app_id is not None and app.app_id != app_id:
            continue
        project = app.partition_key or table
        source = Source(
            key=import_key("persister", db.location, table, app.partition_key, app.app_id),
            pipeline=(pipeline or project)[:100],
            pipeline_given=bool(pipeline),
            imported_from={"path": db.location, "project": project, "app_id": app.app_id},
            calls_logged=False,
        )
        try:
            report.count(write_steps(source, app_steps))
        except LogError as exc:
            report.errors.append(exc)
    return report
