"""The what-if grid's presentation: a row per run (the parent first, then one per value), a
column per step aligned by name and occurrence, each cell coloured by its output hash, and the
final output's chosen leaves side by side. The grid pages (``runs.views.grids``) render it; the
stability page shares the colours.
"""

from __future__ import annotations

import colorsys
import json
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from runs.engine.analysis.diff import align
from runs.engine.analysis.leaves import flatten
from runs.engine.analysis.noise import step_keys
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import PipelineError
from runs.engine.forking.overrides import current_fields
from runs.forms import field_text
from runs.hashing import canonical_json
from runs.models import Grid, GridRow, Node, Run

DEFAULT_LEAVES = 4  # leaves of the final output shown when none are chosen
SHORT_LEAF = 160  # a default leaf is one whose values are short enough to read side by side


# --------------------------------------------------------------------------- colours


def hash_colour(sha: str) -> str:
    """A light colour for an output hash, the same for the same hash everywhere (grid cells,
    histogram bars): hue, saturation and lightness come from the hash's leading bytes, light
    enough that dark text stays readable on it."""
    if not sha or len(sha) < 10:
        return "#d0d5dd"
    digits = int(sha[:10], 16)
    hue = (digits >> 16) % 360 / 360
    saturation = 0.55 + (digits >> 8 & 0xFF) / 255 * 0.3
    lightness = 0.72 + (digits & 0xFF) / 255 * 0.12
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


# --------------------------------------------------------------------------- the matrix


@dataclass
class Cell:
    node: Node | None
    colour: str = ""
    state: str = "missing"  # source | same | changed | failed | missing | pending
    href: str = ""

    @property
    def short(self) -> str:
        return self.node.output_sha256[:6] if self.node and self.node.output_sha256 else ""


@dataclass
class MatrixRow:
    label: str  # the value as typed; the parent's: the value it had
    run: Run
    cells: list[Cell]
    leaves: list[dict[str, Any]] = field(default_factory=list)
    changed: int = 0  # steps whose hash differs from the parent's
    tokens: int = 0
    is_parent: bool = False


def _columns(runs_nodes: list[list[Node]]) -> list[tuple[str, int]]:
    """Every step any row reached, aligned by name and occurrence (``diff.align``), in the
    parent's order with the others where they appear."""
    names: list[str] = []
    for nodes in runs_nodes:
        row = [n.name for n in nodes]
        names = [names[i] if i is not None else row[j] for i, j in align(names, row)]
    return step_keys(names)


def final_output(nodes: list[Node]) -> dict[str, Any]:
    """What a run ended with: each step's output under its name, a later run of a step
    replacing an earlier one (a declared node writes the state key of its own name)."""
    return {n.name: n.output for n in nodes if n.status == Node.Status.COMPLETED}


def leaf_paths(nodes_by_run: dict[int, list[Node]]) -> list[str]:
    """Every leaf of any row's final output, in the order they first appear."""
    return list(
        dict.fromkeys(p for nodes in nodes_by_run.values() for p in flatten(final_output(nodes)))
    )


def _leaf_text(value: Any) -> str:
    if value is _MISSING:
        return "—"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_MISSING = object()


def _default_leaves(paths: list[str], flats: list[dict[str, Any]]) -> list[str]:
    """The leaves that differ between rows, short ones, nearest the end of the run first;
    else the last few."""
    differing = [
        p
        for p in reversed(paths)
        if len({canonical_json(f.get(p)) for f in flats}) > 1
        and all(len(_leaf_text(f.get(p, ""))) <= SHORT_LEAF for f in flats)
    ]
    picked = set(differing[:DEFAULT_LEAVES] or paths[-DEFAULT_LEAVES:])
    return [p for p in paths if p in picked]


def _parent_value(grid: Grid, nodes: list[Node]) -> str:
    """The value the grid's field had in the parent, as the fork editor shows it."""
    node = next((n for n in nodes if n.sequence_id == grid.sequence_id), None)
    if node is None:
        return ""
    try:
        spec = get_pipeline(grid.source.pipeline).node(node.name)
    except PipelineError:
        return ""
    value = current_fields(spec, node).get(grid.field)
    return "" if value is None else field_text(value)


def build_matrix(
    grid: Grid, rows: list[GridRow], nodes_by_run: dict[int, list[Node]], leaves: list[str] | None
) -> dict[str, Any]:
    """The rows (parent first), the aligned step columns and the final-output leaves."""
    parent = grid.source
    entries = [(_parent_value(grid, nodes_by_run.get(parent.pk, [])), parent, True)] + [
        (grid.values[r.position] if r.position < len(grid.values) else "?", r.run, False)
        for r in rows
    ]
    all_nodes = [nodes_by_run.get(run.pk, []) for _, run, _ in entries]
    columns = _columns(all_nodes)
    parent_by_key = dict(zip(step_keys([n.name for n in all_nodes[0]]), all_nodes[0], strict=True))
    flats = [flatten(final_output(nodes)) for nodes in all_nodes]
    paths = list(dict.fromkeys(p for flat in flats for p in flat))
    finished = [flat for flat, (_, run, _) in zip(flats, entries, strict=True) if run.is_finished]
    shown = leaves or _default_leaves(paths, finished)

    matrix: list[MatrixRow] = []
    for (label, run, is_parent), nodes, flat in zip(entries, all_nodes, flats, strict=True):
        by_key = dict(zip(step_keys([n.name for n in nodes]), nodes, strict=True))
        compare = reverse("compare", args=[parent.pk, run.pk])
        cells = []
        for key in columns:
            node = by_key.get(key)
            cell = Cell(node)
            if node is None:
                cell.state = "missing" if run.is_finished else "pending"
            elif node.status != Node.Status.COMPLETED or not node.output_sha256:
                cell.state = "failed"
            else:
                cell.colour = hash_colour(node.output_sha256)
                base = parent_by_key.get(key)
                if is_parent:
                    cell.state = "source"
                else:
                    same = base is not None and base.output_sha256 == node.output_sha256
                    cell.state = "same" if same else "changed"
            if node is not None:
                cell.href = (
                    reverse("node-detail", args=[run.pk, node.sequence_id])
                    if is_parent
                    else compare
                )
            cells.append(cell)
        row = MatrixRow(label=label, run=run, cells=cells, is_parent=is_parent)
        row.changed = sum(1 for c in cells if c.state in {"changed", "failed"})
        row.tokens = sum(n.total_tokens for n in nodes if n.cache_source != "inherited")
        row.leaves = [
            {
                "text": _leaf_text(flat.get(path, _MISSING)),
                "changed": not is_parent
                and canonical_json(flat.get(path)) != canonical_json(flats[0].get(path)),
            }
            for path in shown
        ]
        matrix.append(row)
    return {
        "columns": [
            {"name": name, "occurrence": occurrence + 1, "repeated": occurrence > 0}
            for name, occurrence in columns
        ],
        "rows": matrix,
        "leaves": shown,
        "all_leaves": paths,
        "finished": all(run.is_finished for _, run, _ in entries),
    }
