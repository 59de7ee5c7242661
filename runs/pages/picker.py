"""The compare page's picker (issue 19): a search, not a list of the lineage. It offers a few
runs without being asked — the compared runs' roots and parents, their lineages' newest, the
newest runs — and finds any other by id or text (``runs.models.search``) as a person types: every
answer bounded, whatever the lineage holds."""

from __future__ import annotations

from dataclasses import dataclass

from runs.models import Run
from runs.models.search import RUN_ID, search_runs
from runs.pages.change import describe_change

# Runs offered without a search: the newest of the compared runs' lineages, the newest others.
LINEAGE_RUNS = 10
RECENT_RUNS = 20
# Matches a search answers with, at most.
FOUND_RUNS = 20


@dataclass(frozen=True)
class RunChoice:
    pk: int
    label: str


def _choice(run: Run) -> RunChoice:
    change = describe_change(run)
    if change.is_fork:
        value = change.value_text
        short = value if len(value) <= 40 else value[:39] + "…"
        what = f"fork of {change.parent} at {change.node}: {change.field} = {short}"
    elif change.is_replay:
        what = f"replay of {change.parent}"
    elif change.is_sample:
        what = f"sample of {run.sample_of_id}"
    elif change.is_regression:
        what = f"regression replay of {change.parent}"
    else:
        what = "root"
    return RunChoice(run.pk, f"run {run.pk} · {run.pipeline} · {what} · {run.status}")


def compare_choices(*runs: Run) -> tuple[list[RunChoice], list[RunChoice]]:
    """What the picker offers before a search: the given runs, their roots and parents and the
    newest ``LINEAGE_RUNS`` of their lineages; then the ``RECENT_RUNS`` newest others. Three
    queries, each with a LIMIT or a handful of ids."""
    roots = {r.root_id or r.pk for r in runs}
    named = roots | {r.pk for r in runs} | {r.parent_id for r in runs if r.parent_id}
    recent_first = ("-created_at", "-id")
    lineage = list(Run.objects.select_related("parent").filter(pk__in=named).order_by("id"))
    if roots:
        newest = (
            Run.objects.select_related("parent")
            .filter(root_id__in=roots)
            .exclude(pk__in=named)
            .order_by(*recent_first)[:LINEAGE_RUNS]
        )
        lineage += sorted(newest, key=lambda r: r.pk)
    ids = {r.pk for r in lineage}
    recent = list(
        Run.objects.select_related("parent")
        .exclude(pk__in=ids)
        .order_by(*recent_first)[:RECENT_RUNS]
    )
    return [_choice(r) for r in lineage], [_choice(r) for r in recent]


def find_choices(query: str) -> list[RunChoice]:
    """The newest ``FOUND_RUNS`` runs ``query`` names (an id, or text: ``runs.models.search``);
    with no query, the newest runs. One query."""
    runs = Run.objects.select_related("parent").order_by("-created_at", "-id")
    if query:
        runs = search_runs(runs, query)
    return [_choice(r) for r in runs[:FOUND_RUNS]]


def run_id(text: str | None) -> int | None:
    """A run id typed or chosen in the picker ("12", "run 12", "#12"), or None."""
    match = RUN_ID.match((text or "").strip())
    if not match:
        return None
    number = int(match.group(1))
    return number if 1 <= number <= 2**31 - 1 else None
