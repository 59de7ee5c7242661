"""The what-if grid's presentation: a row per run (the parent first, then one per value), a
column per step aligned by name and occurrence, and the final output's chosen leaves side by
side. The grid pages (``runs.views.grids``) render it.

A cell says what its step gave by a *letter*, per column (issue 17, item 6): ``=`` is the
parent's output (neutral grey, in the parent's row and wherever a fork reproduced it), and each
other distinct output gets the next letter — A, B, C… in the order it first appears down the
column — on the next colour of a small fixed palette (``PALETTE``), so two different outputs in a
column never share a colour until the palette runs out, and even then their letters differ:
colour is never the only signal. (Colours used to come from the hash, and different hashes came
out near-identical.) ``hash_colour`` remains for the stability page's histogram.
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
from runs.engine.analysis.outcomes.values import OutcomeValue, evaluate_runs
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import PipelineError
from runs.engine.forking.overrides import current_fields
from runs.forms import field_text
from runs.lib.hashing import canonical_json
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


# Eight hues 45° apart round the colour wheel (HLS lightness 0.72, saturation 0.8): light
# enough for dark letters, none of them grey (grey is "="). In the order a column hands them
# out, each next one as far as possible from the ones before (amber, blue, green, pink…).
PALETTE = (
    "#f1d47e",  # amber, 45°
    "#7e9bf1",  # blue, 225°
    "#7ef19b",  # green, 135°
    "#f17ed4",  # pink, 315°
    "#b87ef1",  # violet, 270°
    "#f17e7e",  # coral, 0°
    "#7ef1f1",  # cyan, 180°
    "#b8f17e",  # lime, 90°
)
SAME = "="  # the parent's output: the neutral cell


def letter(index: int) -> str:
    """A, B, …, Z, AA, AB, …: the ``index``-th distinct output of a column."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("A") + rest) + text
    return text


def letter_outputs(parent: str | None, shas: list[str | None]) -> list[tuple[str, str]]:
    """(letter, colour) for each hash of a column, in order: ``("=", "")`` for the parent's
    hash, the same letter and colour for the same hash, the next letter and the next palette
    colour for a new one; ``("", "")`` where there is no hash (failed, not reached)."""
    seen: dict[str, int] = {}
    out = []
    for sha in shas:
        if not sha:
            out.append(("", ""))
        elif sha == parent:
            out.append((SAME, ""))
        else:
            index = seen.setdefault(sha, len(seen))
            out.append((letter(index), PALETTE[index % len(PALETTE)]))
    return out


def row_outcomes(values: list[OutcomeValue]) -> list[dict[str, Any]]:
    """The outcomes a row shows beside its cells: ``[{name, value, pass}]`` (the grid page's
    outcome column appears once a row has any)."""
    return [{"name": v.name, "value": v.value, "pass": v.passed} for v in values]


# --------------------------------------------------------------------------- the matrix


@dataclass
class Cell:
    node: Node | None
    colour: str = ""  # a palette colour for a lettered output; "" for "=" and the rest
    state: str = "missing"  # source | same | changed | failed | missing | pending
    href: str = ""
    letter: str = ""  # "=" (the parent's output) or A, B, C… (see ``letter_outputs``)

    @property
    def mark(self) -> str:
        """The letter as the command line prints it."""
        return self.letter or {"failed": "x", "pending": "…"}.get(self.state, "-")

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
    outcomes: list[dict[str, Any]] = field(default_factory=list)  # ``row_outcomes``
    # A crossed grid's second value: as typed; for the parent and the fork of a value alone,
    # the value the parent had (``cross_as_parent``).
    cross_label: str = ""
    cross_as_parent: bool = False

    @property
    def marks(self) -> str:
        """The row's letters, one per column ("x" failed, "-" not reached, "…" running)."""
        return " ".join(c.mark for c in self.cells)


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


def _parent_value(grid: Grid, nodes: list[Node], name: str) -> str:
    """The value the field ``name`` had in the parent, as the fork editor shows it."""
    node = next((n for n in nodes if n.sequence_id == grid.sequence_id), None)
    if node is None:
        return ""
    try:
        spec = get_pipeline(grid.source.pipeline).node(node.name)
    except PipelineError:
        return ""
    value = current_fields(spec, node).get(name)
    return "" if value is None else field_text(value)


def ordered_rows(rows: list[GridRow]) -> list[GridRow]:
    """A grid's rows in reading order: each value's fork, then its crossed cells."""
    return sorted(
        rows, key=lambda r: (r.position, -1 if r.cross_position is None else r.cross_position)
    )


def load_grid(grid: Grid) -> tuple[list[GridRow], dict[int, list[Node]]]:
    """A grid's rows with their runs (one query) and every step of its parent and its forks
    (one query), what ``build_matrix`` takes."""
    rows = ordered_rows(list(grid.rows.select_related("run")))
    nodes_by_run: dict[int, list[Node]] = {}
    run_ids = [grid.source_id, *(r.run_id for r in rows)]
    for node in Node.objects.filter(run_id__in=run_ids).order_by("run_id", "sequence_id"):
        nodes_by_run.setdefault(node.run_id, []).append(node)
    return rows, nodes_by_run


def build_matrix(
    grid: Grid, rows: list[GridRow], nodes_by_run: dict[int, list[Node]], leaves: list[str] | None
) -> dict[str, Any]:
    """The rows (parent first), the aligned step columns and the final-output leaves. A
    crossed grid's rows: each value's fork (the second field as the parent had it), then
    that value with each cross value."""
    parent = grid.source
    parent_nodes = nodes_by_run.get(parent.pk, [])
    crossed_as = _parent_value(grid, parent_nodes, grid.cross_field) if grid.crossed else ""
    entries = [(_parent_value(grid, parent_nodes, grid.field), parent, True)] + [
        (_pick(grid.values, r.position), r.run, False) for r in ordered_rows(rows)
    ]
    crosses = [(crossed_as, True)] + [
        (crossed_as, True)
        if r.cross_position is None
        else (_pick(grid.cross_values, r.cross_position), False)
        for r in ordered_rows(rows)
    ]
    all_nodes = [nodes_by_run.get(run.pk, []) for _, run, _ in entries]
    columns = _columns(all_nodes)
    parent_by_key = dict(zip(step_keys([n.name for n in all_nodes[0]]), all_nodes[0], strict=True))
    flats = [flatten(final_output(nodes)) for nodes in all_nodes]
    paths = list(dict.fromkeys(p for flat in flats for p in flat))
    finished = [flat for flat, (_, run, _) in zip(flats, entries, strict=True) if run.is_finished]
    shown = leaves or _default_leaves(paths, finished)

    keyed = [
        dict(zip(step_keys([n.name for n in nodes]), nodes, strict=True)) for nodes in all_nodes
    ]
    letters = {
        key: letter_outputs(
            _sha(parent_by_key.get(key)), [_sha(by_key.get(key)) for by_key in keyed]
        )
        for key in columns
    }
    # Every row's outcomes in bounded queries (runs.engine.analysis.outcomes.evaluate_runs).
    outcomes = evaluate_runs([run for _, run, _ in entries])
    matrix: list[MatrixRow] = []
    for i, ((label, run, is_parent), by_key, flat) in enumerate(
        zip(entries, keyed, flats, strict=True)
    ):
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
                cell.letter, cell.colour = letters[key][i]
                if is_parent:
                    cell.state = "source"
                else:
                    cell.state = "same" if cell.letter == SAME else "changed"
            if node is not None:
                cell.href = (
                    reverse("node-detail", args=[run.pk, node.sequence_id])
                    if is_parent
                    else compare
                )
            cells.append(cell)
        row = MatrixRow(label=label, run=run, cells=cells, is_parent=is_parent)
        if grid.crossed:
            row.cross_label, row.cross_as_parent = crosses[i]
        row.changed = sum(1 for c in cells if c.state in {"changed", "failed"})
        row.tokens = sum(n.total_tokens for n in by_key.values() if n.cache_source != "inherited")
        row.outcomes = row_outcomes(outcomes.get(run.pk, []))
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
        "outcomes": any(row.outcomes for row in matrix),
        "palette": PALETTE,
        "palette_exhausted": any(
            len({mark for mark, _ in column if mark not in ("", SAME)}) > len(PALETTE)
            for column in letters.values()
        ),
    }


def _pick(values: list[str], index: int) -> str:
    return values[index] if 0 <= index < len(values) else "?"


def _sha(node: Node | None) -> str | None:
    if node is None or node.status != Node.Status.COMPLETED:
        return None
    return node.output_sha256 or None
