"""The run graph as a picture: a pipeline's graph laid out in Python, drawn as inline SVG.

Presentation, not engine: it reads a pipeline's declaration (a Rewind ``Pipeline`` or a Burr
app's ``graph``) and a run's steps, never a request, and computes coordinates the run page's
template writes into ``<svg>`` attributes. No JavaScript lays anything out: the Content
Security Policy allows no inline script, and a picture computed on the server is the same in
every browser, with or without JavaScript, and in a test.

The layout is a plain layered one, deterministic for a given graph:

1. a depth-first walk from the entrypoint (transitions in their declared order) finds the
   back edges — the ones that close a loop (``response → prompt``, ``counter → counter``);
2. every other edge points down: a node's layer is the longest path to it from the
   entrypoint over those edges;
3. a layer's nodes are ordered by the mean position of their predecessors (first seen first
   on a tie) and centred;
4. an edge to the next layer is a short curve; one that skips layers runs down a lane on the
   left, a back edge up a lane on the right, a self-loop is a loop on the node's right side.

The run is laid over it: the transitions its steps took (consecutive steps: the same pairs
its ``Edge`` rows record, with no query of their own), how often each node ran, the status
and ``cache_source`` of its latest visit, and what never ran — "pending" while the run goes
on through a linear pipeline, "not run yet" while it goes on through a graph that branches or
loops (its next step is chosen at run time: only the step it is executing is marked,
"running"), "not reached" once it failed or was interrupted, "not taken" for a branch a
completed run did not choose.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import PipelineError
from runs.models import Node, Run
from runs.pages.progress import Progress

NODE_W = 184
NODE_H = 46
COL_GAP = 24
ROW_GAP = 30  # between two layers no shown label sits between
LABEL_ROW_GAP = 50  # between two layers an edge label sits between
LANE_GAP = 16  # between two lanes of skip or back edges, and between a lane and the nodes
SELF_LOOP = 40  # how far a self-loop reaches right of its node
CORNER = 8
PAD = 10
NAME_CHAR_W = 8.3  # generous advance of a 13px semibold character, for fitting text
SMALL_CHAR_W = 6.3  # 11px
WIDE = 480  # wider than this, a phone shows the graph at a legible scale in a scrolling frame


@dataclass(frozen=True)
class GraphSpec:
    """What is drawn: node names (declared order), transitions (source, target, condition
    label, declared order) and the entrypoint. Hashable, so a layout is computed once."""

    nodes: tuple[str, ...]
    transitions: tuple[tuple[str, str, str], ...]
    entrypoint: str

    @classmethod
    def of(cls, pipeline: Any) -> GraphSpec:
        """The graph of a registered pipeline: a Rewind ``Pipeline`` or a ``BurrApp``."""
        if isinstance(pipeline, BurrApp):
            graph = pipeline.graph
            return cls(
                nodes=tuple(action.name for action in graph.actions),
                transitions=tuple(
                    (t.from_.name, t.to.name, str(t.condition.name)) for t in graph.transitions
                ),
                entrypoint=pipeline.entrypoint,
            )
        return cls(
            nodes=tuple(node.name for node in pipeline.nodes),
            transitions=tuple((t.source, t.target, t.label) for t in pipeline.transitions),
            entrypoint=pipeline.entrypoint,
        )

    def with_steps(self, names: Sequence[str]) -> GraphSpec:
        """This graph plus whatever a run did that it does not declare (the pipeline changed
        since, or it is no longer registered): every step is drawn, every transition taken."""
        known = set(self.nodes)
        nodes = list(self.nodes)
        for name in names:
            if name not in known:
                known.add(name)
                nodes.append(name)
        pairs = {(s, t) for s, t, _ in self.transitions}
        transitions = list(self.transitions)
        for pair in zip(names, names[1:], strict=False):
            if pair not in pairs:
                pairs.add(pair)
                transitions.append((*pair, ""))
        if len(nodes) == len(self.nodes) and len(transitions) == len(self.transitions):
            return self
        entrypoint = self.entrypoint or (nodes[0] if nodes else "")
        return GraphSpec(tuple(nodes), tuple(transitions), entrypoint)


EMPTY = GraphSpec((), (), "")


@dataclass(frozen=True)
class Box:
    name: str
    x: int
    y: int
    layer: int
    w: int = NODE_W
    h: int = NODE_H

    @property
    def cx(self) -> int:
        return self.x + self.w // 2

    @property
    def cy(self) -> int:
        return self.y + self.h // 2

    @property
    def right(self) -> int:
        return self.x + self.w

    @property
    def bottom(self) -> int:
        return self.y + self.h


@dataclass(frozen=True)
class Link:
    """One transition as drawn: ``kind`` is down (to the next layer), skip (past layers, left
    lane), back (up, right lane) or self (a loop on the node)."""

    source: str
    target: str
    condition: str  # the declared label ("" for one the run took but the graph lacks)
    label: str  # what is written beside it ("" when it says nothing: a lone default)
    kind: str
    d: str  # the SVG path
    label_x: int
    label_y: int
    label_anchor: str


@dataclass(frozen=True)
class Layout:
    boxes: dict[str, Box]
    order: tuple[str, ...]  # layer by layer, left to right: the reading order
    links: tuple[Link, ...]
    width: int
    height: int


def _fit(text: str, width: float, char_w: float) -> str:
    """``text`` cut with "…" to what fits ``width`` px (the full text goes in a <title>)."""
    limit = max(int(width / char_w), 4)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _walk(spec: GraphSpec, out: dict[str, list[str]]) -> tuple[list[str], list[str], set]:
    """Depth-first from the entrypoint, then from each node not reached yet (declared
    order): the discovery order, the post-order and the back edges (those closing a loop)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    discovery: list[str] = []
    post: list[str] = []
    back: set[tuple[str, str]] = set()
    roots = [spec.entrypoint, *spec.nodes] if spec.entrypoint in out else list(spec.nodes)
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        discovery.append(root)
        stack = [(root, iter(out[root]))]
        while stack:
            node, targets = stack[-1]
            for target in targets:
                if target not in state:
                    state[target] = 1
                    discovery.append(target)
                    stack.append((target, iter(out[target])))
                    break
                if state[target] == 1:
                    back.add((node, target))
            else:
                state[node] = 2
                post.append(node)
                stack.pop()
    return discovery, post, back


def _lane(taken: list[tuple[int, int, int]], span: tuple[int, int]) -> int:
    """The first lane none of whose edges so far overlaps ``span`` (layers, inclusive); the
    lane is recorded in ``taken`` as (lane, first layer, last layer)."""
    lane = 0
    while any(i == lane and not (b < span[0] or a > span[1]) for i, a, b in taken):
        lane += 1
    taken.append((lane, *span))
    return lane


@lru_cache(maxsize=128)
def layout(spec: GraphSpec) -> Layout:
    """Coordinates for every node and a path for every transition of ``spec``."""
    if not spec.nodes:
        return Layout({}, (), (), 0, 0)
    graph = _layered(spec)
    boxes = _columns(graph, _rows(graph))
    order = tuple(sorted(boxes, key=lambda n: (boxes[n].layer, boxes[n].x)))
    raw, xs = _draw(graph, boxes)
    return _shifted(boxes, order, raw, xs)


@dataclass(frozen=True)
class _Layered:
    """A graph with steps 1 and 2 done: each node's targets (the first declared transition of
    a pair, in declared order), each pair's condition, the walk's discovery order and back
    edges, each node's layer and each layer's nodes (discovery order)."""

    out: dict[str, list[str]]
    condition: dict[tuple[str, str], str]
    discovery: list[str]
    back: set[tuple[str, str]]
    layer: dict[str, int]
    layers: dict[int, list[str]]

    def shown(self, source: str, target: str) -> str:
        """What is written beside a transition."""
        label = self.condition[(source, target)]
        if label == "default" and len(self.out[source]) == 1:
            return ""  # a lone default transition says nothing
        return label


# A transition's geometry before the shift: source, target, condition, label, path, label
# spot (x, y, anchor), kind.
_Raw = tuple[str, str, str, str, list, tuple[float, float, str], str]


def _layered(spec: GraphSpec) -> _Layered:
    """Steps 1 and 2: the back edges, then each node's layer (the longest path to it)."""
    out: dict[str, list[str]] = {name: [] for name in spec.nodes}
    condition: dict[tuple[str, str], str] = {}
    for source, target, label in spec.transitions:
        if (source, target) not in condition:  # the first declared transition of a pair
            condition[(source, target)] = label
            out[source].append(target)
    discovery, post, back = _walk(spec, out)

    layer = dict.fromkeys(spec.nodes, 0)
    for source in reversed(post):  # reverse post-order: topological without back edges
        for target in out[source]:
            if (source, target) not in back:
                layer[target] = max(layer[target], layer[source] + 1)
    layers: dict[int, list[str]] = defaultdict(list)
    for name in discovery:
        layers[layer[name]].append(name)
    return _Layered(out, condition, discovery, back, layer, layers)


def _rows(graph: _Layered) -> dict[int, int]:
    """Each layer's top: which layers have a label between them decides how far apart they
    are."""
    layer = graph.layer
    labelled = {
        layer[s]
        for (s, t) in graph.condition
        if (s, t) not in graph.back and layer[t] == layer[s] + 1 and graph.shown(s, t)
    }
    top, y = {}, 0
    for index in range(max(graph.layers) + 1):
        top[index] = y
        y += NODE_H + (LABEL_ROW_GAP if index in labelled else ROW_GAP)
    return top


def _columns(graph: _Layered, top: dict[int, int]) -> dict[str, Box]:
    """Step 3: each layer ordered by its predecessors' mean centre, then centred on x = 0."""
    first_seen = {name: i for i, name in enumerate(graph.discovery)}
    preds: dict[str, list[str]] = defaultdict(list)
    for source, target in graph.condition:
        if (source, target) not in graph.back and source != target:
            preds[target].append(source)
    centre: dict[str, float] = {}
    boxes: dict[str, Box] = {}
    for index in sorted(graph.layers):

        def key(name: str) -> tuple[float, int]:
            placed = [centre[p] for p in preds[name] if p in centre]
            return (sum(placed) / len(placed) if placed else 0.0, first_seen[name])

        row = sorted(graph.layers[index], key=key) if index else graph.layers[index]
        left = -(len(row) * NODE_W + (len(row) - 1) * COL_GAP) / 2
        for i, name in enumerate(row):
            x = round(left + i * (NODE_W + COL_GAP))
            boxes[name] = Box(name, x, top[index], index)
            centre[name] = x + NODE_W / 2
    return boxes


def _extent(graph: _Layered, boxes: dict[str, Box], lo: int, hi: int, side: str) -> int:
    """The leftmost (or rightmost, self-loops included) point of layers lo..hi."""
    spanned = [b for b in boxes.values() if lo <= b.layer <= hi]
    if side == "left":
        return min(b.x for b in spanned)
    return max(
        b.right + (SELF_LOOP + 6 if (b.name, b.name) in graph.condition else 0) for b in spanned
    )


def _draw(graph: _Layered, boxes: dict[str, Box]) -> tuple[list[_Raw], list[float]]:
    """Step 4, as numbers: every transition's geometry and every x the picture reaches (to be
    shifted into the positive quarter once the extents are known)."""
    raw: list[_Raw] = []
    left_spans: list[tuple[int, int, int]] = []
    right_spans: list[tuple[int, int, int]] = []
    xs: list[float] = [b.x for b in boxes.values()] + [b.right for b in boxes.values()]
    layer = graph.layer
    # Shorter lane edges first: they take the inner lanes, so lanes do not cross each other.
    drawing = sorted(
        graph.condition.items(), key=lambda item: abs(layer[item[0][0]] - layer[item[0][1]])
    )
    for (source, target), cond in drawing:
        s, t, label = boxes[source], boxes[target], graph.shown(source, target)
        if source == target:
            kind = "self"
            path, spot = _self_loop(s)
            xs.append(s.right + SELF_LOOP)
        elif (source, target) in graph.back:
            kind = "back"
            span = (t.layer, s.layer)
            lane = _lane(right_spans, span)
            lx = _extent(graph, boxes, *span, "right") + LANE_GAP * (lane + 1)
            path = _elbow(s.right, s.cy, lx, t.cy, t.right)
            spot = (s.right + 4, s.cy - 5, "start")  # above where it leaves its source
            xs.append(lx)
        elif t.layer == s.layer + 1:
            kind = "down"
            path, spot = _down(s, t)
        else:
            kind = "skip"
            span = (s.layer, t.layer)
            lane = _lane(left_spans, span)
            lx = _extent(graph, boxes, *span, "left") - LANE_GAP * (lane + 1)
            path = _elbow(s.x, s.cy, lx, t.cy, t.x)
            spot = (s.x - 4, s.cy - 5, "end")  # above where it leaves its source
            xs.append(lx)
        if label:
            xs += _label_reach(label, spot)
        raw.append((source, target, cond, label, path, spot, kind))
    return raw, xs


def _self_loop(s: Box) -> tuple[list, tuple[float, float, str]]:
    """A loop on the node's right side, and where its label goes."""
    x, cy = s.right, s.cy
    path = [
        ("M", x, cy - 11),
        ("C", x + SELF_LOOP, cy - 34, x + SELF_LOOP, cy + 34, x + 2, cy + 11),
    ]
    return path, (x + SELF_LOOP - 4, cy + 4, "start")


def _down(s: Box, t: Box) -> tuple[list, tuple[float, float, str]]:
    """A short curve to the next layer, and where its label goes."""
    x1, y1, x2, y2 = s.cx, s.bottom, t.cx, t.y
    ym = (y1 + y2) / 2
    path = [("M", x1, y1), ("C", x1, ym, x2, ym, x2, y2 - 1)]
    if abs(x2 - x1) < 1:
        return path, (x1 + 6, round(ym) + 4, "start")
    u = 0.7  # well past the fork, where the branches are apart
    spot = (
        round(x1 + (x2 - x1) * (3 * u**2 - 2 * u**3)),
        round(_cubic(y1, ym, ym, y2, u)) + 4,
        "middle",
    )
    return path, spot


def _label_reach(label: str, spot: tuple[float, float, str]) -> list[float]:
    """The x (or both xs) a label written at ``spot`` reaches."""
    width = (len(label) + 7) * SMALL_CHAR_W  # and room for a count: " ×12345"
    x, _, anchor = spot
    if anchor == "start":
        return [x + width]
    if anchor == "end":
        return [x - width]
    return [x - width / 2, x + width / 2]


def _shifted(
    boxes: dict[str, Box], order: tuple[str, ...], raw: list[_Raw], xs: list[float]
) -> Layout:
    """The geometry shifted into the positive quarter, with a margin: the layout."""
    dx = round(PAD - min(xs))
    height = max(b.bottom for b in boxes.values()) + PAD
    shifted = {n: Box(n, b.x + dx, b.y + PAD, b.layer) for n, b in boxes.items()}
    links = tuple(
        Link(
            source=source,
            target=target,
            condition=cond,
            label=label,
            kind=kind,
            d=_path(path, dx, PAD),
            label_x=round(spot[0] + dx),
            label_y=round(spot[1] + PAD),
            label_anchor=spot[2],
        )
        for source, target, cond, label, path, spot, kind in raw
    )
    width = round(max(xs) + dx + PAD)
    return Layout(shifted, order, links, width, round(height + PAD))


def _cubic(a: float, b: float, c: float, d: float, u: float) -> float:
    return (1 - u) ** 3 * a + 3 * (1 - u) ** 2 * u * b + 3 * (1 - u) * u**2 * c + u**3 * d


def _elbow(x1: float, y1: float, lane: float, y2: float, x2: float) -> list:
    """Out sideways from (x1, y1) to the lane, along it to y2, in to (x2, y2); rounded."""
    sx = 1 if lane > x1 else -1
    sy = 1 if y2 > y1 else -1
    r = min(CORNER, abs(y2 - y1) / 2, abs(lane - x1), abs(lane - x2))
    end = x2 + (1 if lane > x2 else -1)  # stop a pixel short: the arrowhead meets the border
    return [
        ("M", x1, y1),
        ("H", lane - sx * r),
        ("Q", lane, y1, lane, y1 + sy * r),
        ("V", y2 - sy * r),
        ("Q", lane, y2, lane - sx * r, y2),
        ("H", end),
    ]


def _path(commands: list, dx: float, dy: float) -> str:
    """SVG path data with x and y shifted (H takes an x, V a y; the rest x y pairs)."""
    parts = []
    for command, *numbers in commands:
        if command == "H":
            values = [numbers[0] + dx]
        elif command == "V":
            values = [numbers[0] + dy]
        else:
            values = [n + (dx if i % 2 == 0 else dy) for i, n in enumerate(numbers)]
        parts.append(command + " ".join(_number(v) for v in values))
    return " ".join(parts)


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


# --- the run over the graph ------------------------------------------------------------------

UNVISITED = {
    Run.Status.QUEUED: "pending",
    Run.Status.RUNNING: "pending",
    Run.Status.COMPLETED: "not taken",
    Run.Status.FAILED: "not reached",
    Run.Status.INTERRUPTED: "not reached",
    Run.Status.CANCELLED: "not reached",
}
NOT_YET = "not run yet"  # a step of a branching or looping graph while the run goes on
RUNNING = "running"


@dataclass(frozen=True)
class GraphNode:
    box: Box
    visits: tuple[Node, ...]  # this node's steps, in order
    state: str  # "visited", "failed", or what an unvisited node is: UNVISITED
    selected: Node | None  # the step the inspector shows, when it is one of these visits
    index: int
    running: bool = False  # the step the run is executing now

    @property
    def last(self) -> Node | None:
        return self.visits[-1] if self.visits else None

    @property
    def visit_count(self) -> int:
        return len(self.visits)

    @property
    def css(self) -> str:
        classes = ["gnode", "state-" + self.state.replace(" ", "-")]
        if self.last is not None:
            classes += [f"src-{self.last.cache_source}", f"kind-{self.last.kind}"]
        if self.selected is not None:
            classes.append("selected")
        if self.running and self.state != RUNNING:
            classes.append(RUNNING)  # a step it ran before and is running again
        return " ".join(classes)

    # Where the template writes each part of the box (SVG attributes: the Content Security
    # Policy allows no style attribute, and a picture needs no JavaScript).
    @property
    def text_x(self) -> int:
        return self.box.x + 14

    @property
    def name_y(self) -> int:
        return self.box.y + 19

    @property
    def detail_y(self) -> int:
        return self.box.y + 36

    @property
    def badge_x(self) -> int:  # the visit count straddles the top right corner
        return self.box.right - 30

    @property
    def badge_text_x(self) -> int:
        return self.box.right - 13

    @property
    def badge_y(self) -> int:
        return self.box.y - 8

    @property
    def badge_text_y(self) -> int:
        return self.box.y + 4

    @property
    def ring_x(self) -> int:
        return self.box.x - 4

    @property
    def ring_y(self) -> int:
        return self.box.y - 4

    @property
    def name_text(self) -> str:
        room = NODE_W - 22
        return _fit(self.box.name, room, NAME_CHAR_W)

    @property
    def detail(self) -> str:
        last = self.last
        if last is None:
            return self.state
        if self.running:
            return f"running · visit {self.visit_count + 1}"
        if self.state == "failed":
            words = [last.kind, "failed"]
        else:
            words = [last.kind, last.cache_source]
        if self.selected is not None and self.visit_count > 1:
            position = self.visits.index(self.selected) + 1
            words.append(f"visit {position}/{self.visit_count}")
        elif last.total_tokens:
            words.append(f"{sum(v.total_tokens for v in self.visits)} tok")
        return _fit(" · ".join(words), NODE_W - 22, SMALL_CHAR_W)

    @property
    def title(self) -> str:
        name = self.box.name
        last = self.last
        if last is None:
            return f"{name}: {self.state}"
        steps = ", ".join(str(v.sequence_id) for v in self.visits[:12])
        more = "…" if self.visit_count > 12 else ""
        ran = "ran once" if self.visit_count == 1 else f"ran {self.visit_count} times"
        now = ", running again now" if self.running else ""
        return (
            f"{name}: {ran} (step {steps}{more}){now}; latest {last.kind}, {last.status}, "
            f"{last.cache_source}"
        )


@dataclass(frozen=True)
class GraphEdge:
    link: Link
    taken: int  # how many times the run took this transition

    @property
    def css(self) -> str:
        return f"edge {self.link.kind}" + (" taken" if self.taken else "")

    @property
    def label(self) -> str:
        label = _fit(self.link.label, 150, SMALL_CHAR_W) if self.link.label else ""
        if self.taken > 1:
            label = f"{label} ×{self.taken}".strip()
        return label

    @property
    def title(self) -> str:
        words = f"{self.link.source} → {self.link.target}"
        if self.link.condition:
            words += f" when {self.link.condition}"
        if self.taken:
            words += f"; taken {self.taken}×" if self.taken > 1 else "; taken"
        return words


@dataclass(frozen=True)
class RunGraph:
    width: int
    height: int
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    unvisited: tuple[str, ...]  # in reading order
    unvisited_state: str
    sources: tuple[str, ...]  # the cache sources its steps show, for the legend
    running: str | None = None  # the step the run is executing (a branching or looping graph)

    @property
    def wide(self) -> bool:
        return self.width > WIDE


def pipeline_spec(name: str) -> GraphSpec:
    """The declared graph of a registered pipeline, or an empty one if it is not registered
    (anymore): then the run's own steps make the graph."""
    try:
        return GraphSpec.of(get_pipeline(name))
    except PipelineError:
        return EMPTY


def run_graph(
    run: Run, nodes: Sequence[Node], selected: Node | None = None, now: Progress | None = None
) -> RunGraph:
    """The run's steps laid over its pipeline's graph. No queries: ``nodes`` are its steps in
    order, as the page already has them; ``now`` is what the run is doing (``runs.pages.progress``;
    None: nothing is marked running)."""
    names = [node.name for node in nodes]
    spec = pipeline_spec(run.pipeline).with_steps(names)
    drawn = layout(spec)
    visits: dict[str, list[Node]] = defaultdict(list)
    for node in nodes:
        visits[node.name].append(node)
    taken: dict[tuple[str, str], int] = defaultdict(int)
    for pair in zip(names, names[1:], strict=False):
        taken[pair] += 1
    unvisited_state = UNVISITED.get(run.status, "not reached")
    if now is not None and not now.linear and not run.is_finished:
        unvisited_state = NOT_YET  # only the step chosen at run time is to come: ``running``
    running = now.running if now is not None else None
    graph_nodes = []
    for index, name in enumerate(drawn.order):
        steps = tuple(visits.get(name, ()))
        if not steps:
            state = RUNNING if name == running else unvisited_state
        elif any(step.status == Node.Status.FAILED for step in steps):
            state = "failed"
        else:
            state = "visited"
        chosen = selected if selected is not None and selected in steps else None
        graph_nodes.append(
            GraphNode(drawn.boxes[name], steps, state, chosen, index, name == running)
        )
    edges = tuple(GraphEdge(link, taken.get((link.source, link.target), 0)) for link in drawn.links)
    # Taken transitions last, so they are drawn over the others.
    edges = tuple(sorted(edges, key=lambda e: e.taken > 0))
    sources = tuple(dict.fromkeys(node.cache_source for node in nodes))
    return RunGraph(
        width=drawn.width,
        height=drawn.height,
        nodes=tuple(graph_nodes),
        edges=edges,
        unvisited=tuple(n for n in drawn.order if n not in visits and n != running),
        unvisited_state=unvisited_state,
        sources=sources,
        running=running,
    )
