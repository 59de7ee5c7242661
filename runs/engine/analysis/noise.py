"""Noise: how much a run's outputs vary on their own, and whether a fork's difference is more.

A fork's diff says what changed; it cannot say *why*. At temperature > 0 an LLM step answers
differently every time, so a changed leaf may be the fork's change or the model's jitter. To
tell them apart Rewind measures the jitter: a run is **sampled** k times — k live, unchanged
forks (cache reads skipped, DESIGN.md "Live mode"), recorded on the run (``Run.sample_of``,
counted in ``Run.sample_count``) — and each changed leaf of a fork is judged against the
values the parent produced across its samples and itself:

- ``within-noise``: the fork's value is one the parent produced; or the leaf varied across
  the samples and the value is inside what that variation covers — a number between the
  smallest and largest seen, anything for a text, list or mixed leaf that varied (an LLM text
  that differs from sample to sample has no bounded set of values: the demo's texts at
  temperature 0.8 almost never repeat, so a new one is exactly what its noise looks like);
- ``beyond-noise``: the leaf was the same in every sample and the parent, and the fork's value
  differs (a deterministic tool's output, a text the model always wrote the same way); or a
  number that varied, outside the range seen;
- ``no-samples``: no finished sample re-executed that step (the parent was sampled from a
  later step, or its samples are still running).

A step is covered by a sample when the sample re-executed it (its fork point is at or before
the step); the steps before a sample's fork point are copies of the parent, not draws.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import F

from runs.engine.analysis.leaves import flatten
from runs.engine.errors import ForkError
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.hashing import canonical_json

if TYPE_CHECKING:
    from runs.models import Node, Run

__all__ = [
    "BEYOND",
    "MAX_SAMPLES",
    "NO_SAMPLES",
    "WITHIN",
    "LeafValues",
    "StepStability",
    "Verdict",
    "make_samples",
    "sample_request",
    "stability",
    "step_keys",
    "verdicts",
]

BEYOND, WITHIN, NO_SAMPLES = "beyond-noise", "within-noise", "no-samples"
MAX_SAMPLES = 50

# A leaf a run's step did not have: a value of its own, so "the parent sometimes wrote no
# sections[3]" and "the fork wrote none" agree. Not valid JSON, so it never equals a leaf.
_ABSENT = "<absent>"


# --------------------------------------------------------------------------- sampling


def sample_request(source: Run, k: int, node: str | None = None) -> Fork:
    """The fork each of ``k`` samples of ``source`` from ``node`` (default: its first step)
    is — a live, unchanged fork — checked before anything is written or projected."""
    if not 1 <= k <= MAX_SAMPLES:
        raise ForkError(f"k must be between 1 and {MAX_SAMPLES}, got {k}")
    if node is None:
        first = source.nodes.order_by("sequence_id").values_list("sequence_id", flat=True).first()
        if first is None:
            raise ForkError(f"run {source.pk} has no steps to sample")
        node = str(first)
    return resolve_fork(source, node, live=True)


def make_samples(
    source: Run, k: int, node: str | None = None, *, request: Fork | None = None
) -> list[Run]:
    """``k`` live, unchanged forks of ``source`` from ``node`` (default: its first step),
    recorded as its samples; queued, not executed. All or nothing: a refusal writes nothing.
    ``request``: the ``sample_request`` already made (the dashboard projects its cost first)."""
    from runs.models import Run

    request = request or sample_request(source, k, node)
    with transaction.atomic():
        samples = [make_fork(request) for _ in range(k)]
        Run.objects.mark_samples(source, samples)
    return samples


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    """Whether one changed leaf of a fork is beyond the noise of the run it was forked from."""

    node: str
    sequence_id: int
    path: str
    verdict: str  # BEYOND | WITHIN | NO_SAMPLES
    samples: int  # finished samples that re-executed the step
    distinct: int  # distinct values the parent produced there (itself and its samples)

    def as_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "sequence_id": self.sequence_id,
            "path": self.path,
            "verdict": self.verdict,
            "samples": self.samples,
            "distinct": self.distinct,
        }


def step_keys(names: list[str]) -> list[tuple[str, int]]:
    """A step's identity across runs: its name and how many times that name ran before it
    (``diff.align`` pairs steps the same way)."""
    seen: Counter = Counter()
    keys = []
    for name in names:
        keys.append((name, seen[name]))
        seen[name] += 1
    return keys


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def judge(fork_value: Any, observed: list[Any]) -> str:
    """The verdict on ``fork_value`` given the values the parent produced (``_ABSENT`` for a
    leaf it did not have); ``observed`` holds the parent's value first, then each sample's."""
    if len(observed) < 2:
        return NO_SAMPLES
    seen = {canonical_json(v) for v in observed}
    if canonical_json(fork_value) in seen:
        return WITHIN
    if len(seen) == 1:
        return BEYOND  # the parent never varied here: any other value is the change
    if all(_number(v) for v in observed):
        if not _number(fork_value):
            return BEYOND
        return WITHIN if min(observed) <= fork_value <= max(observed) else BEYOND
    return WITHIN


def verdicts(
    run_a: Run, nodes_a: list[Node], nodes_b: list[Node], changes: list[dict[str, Any]]
) -> list[Verdict]:
    """A verdict for every changed leaf of ``changes`` (``diff_runs``' aligned steps of A
    against B), judged against ``run_a``'s finished samples. One query: the samples' steps."""
    from runs.models import Node, Run

    rows = (
        Node.objects.filter(run__sample_of=run_a, run__status=Run.Status.COMPLETED)
        .annotate(sample_start=F("run__fork_sequence_id"))
        .only("run_id", "sequence_id", "name", "output")
        .order_by("run_id", "sequence_id")
    )
    samples: dict[int, tuple[int, list[Node]]] = {}
    for node in rows:
        start = node.sample_start if node.sample_start is not None else 0
        samples.setdefault(node.run_id, (start, []))[1].append(node)
    # Each sample's steps by (name, occurrence), flattened once, lazily.
    by_key = [(start, dict(zip(step_keys([n.name for n in ns]), ns, strict=True)))
              for start, ns in samples.values()]  # fmt: skip
    flat_cache: dict[int, dict[str, Any]] = {}

    def leaves(node: Node | None) -> dict[str, Any]:
        if node is None:
            return {}
        if id(node) not in flat_cache:
            flat_cache[id(node)] = flatten(node.output)
        return flat_cache[id(node)]

    keys_a = dict(
        zip(
            (n.sequence_id for n in nodes_a),
            step_keys([n.name for n in nodes_a]),
            strict=True,
        )
    )
    keys_b = dict(
        zip(
            (n.sequence_id for n in nodes_b),
            step_keys([n.name for n in nodes_b]),
            strict=True,
        )
    )
    node_a = {n.sequence_id: n for n in nodes_a}
    node_b = {n.sequence_id: n for n in nodes_b}

    out: list[Verdict] = []
    for change in changes:
        if not change["fields"]:
            continue
        a_seq, b_seq = change["a_sequence_id"], change["b_sequence_id"]
        key = keys_a[a_seq] if a_seq is not None else keys_b[b_seq]
        step = a_seq if a_seq is not None else b_seq
        covering = [steps for start, steps in by_key if start <= step]
        parent = leaves(node_a.get(a_seq)) if a_seq is not None else {}
        fork = leaves(node_b.get(b_seq)) if b_seq is not None else {}
        for item in change["fields"]:
            path = item["path"]
            observed = [parent.get(path, _ABSENT)]
            observed += [leaves(steps.get(key)).get(path, _ABSENT) for steps in covering]
            verdict = judge(fork.get(path, _ABSENT), observed) if covering else NO_SAMPLES
            out.append(
                Verdict(
                    node=change["name"],
                    sequence_id=change["sequence_id"],
                    path=path,
                    verdict=verdict,
                    samples=len(covering),
                    distinct=len({canonical_json(v) for v in observed}),
                )
            )
    return out


# --------------------------------------------------------------------------- stability


@dataclass
class LeafValues:
    """One leaf of a step across the samples: each value seen (canonical JSON) and how many
    samples gave it, most frequent first; ``source`` is the sampled run's own value."""

    path: str
    counts: list[tuple[str, int]]
    source: str

    @property
    def seen(self) -> list[tuple[str, int, bool]]:
        """``(text, count, is the sampled run's own value)`` for reading: a text as itself, any
        other value as JSON, a missing leaf as ``(absent)``; the run's own value is listed
        even when no sample gave it."""
        rows = [(_readable(value), count, value == self.source) for value, count in self.counts]
        if not self.source_count:
            rows.append((_readable(self.source), 0, True))
        return rows

    @property
    def source_count(self) -> int:
        """How many samples gave the sampled run's own value."""
        return dict(self.counts).get(self.source, 0)

    @property
    def varies(self) -> bool:
        return len(self.counts) > 1 or (bool(self.counts) and self.counts[0][0] != self.source)


@dataclass
class StepStability:
    """One step of the sampled run: the output hashes its samples gave, with counts."""

    name: str
    sequence_id: int | None  # the sampled run's; None for a step only samples reached
    kind: str
    source_sha256: str
    hashes: list[tuple[str, int]] = field(default_factory=list)  # most frequent first
    leaves: list[LeafValues] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(count for _, count in self.hashes)

    @property
    def same_as_source(self) -> int:
        return dict(self.hashes).get(self.source_sha256, 0)

    @property
    def distinct(self) -> int:
        return len(self.hashes)

    @property
    def varying_leaves(self) -> list[LeafValues]:
        return [leaf for leaf in self.leaves if leaf.varies]

    @property
    def steady_leaves(self) -> int:
        return sum(1 for leaf in self.leaves if not leaf.varies)


FAILED = "(failed)"


def _readable(canonical: str) -> str:
    if canonical == _ABSENT:
        return "(absent)"
    value = json.loads(canonical)
    return value if isinstance(value, str) else canonical


def _value_text(value: Any) -> str:
    return _ABSENT if value is _ABSENT else canonical_json(value)


def stability(source_nodes: list[Node], sample_nodes: list[Node]) -> list[StepStability]:
    """Per step of the sampled run, the hashes and leaf values its samples produced.

    ``sample_nodes``: the steps of the samples, ordered by run and sequence id. Only steps a
    sample executed count (inherited ones are copies of the source, not draws), so a sample
    still running contributes the steps it has finished. Pure: no query."""
    by_sample: dict[int, list[Node]] = {}
    for node in sample_nodes:
        by_sample.setdefault(node.run_id, []).append(node)

    steps: dict[tuple[str, int], StepStability] = {}
    source_leaves: dict[tuple[str, int], dict[str, Any]] = {}
    for key, node in zip(step_keys([n.name for n in source_nodes]), source_nodes, strict=True):
        steps[key] = StepStability(node.name, node.sequence_id, node.kind, node.output_sha256)
        source_leaves[key] = flatten(node.output) if node.output_sha256 else {}

    hashes: dict[tuple[str, int], Counter] = {}
    values: dict[tuple[str, int], dict[str, Counter]] = {}
    for nodes in by_sample.values():
        for key, node in zip(step_keys([n.name for n in nodes]), nodes, strict=True):
            if node.cache_source == "inherited":
                continue
            if key not in steps:  # a branch or loop turn only a sample took
                steps[key] = StepStability(node.name, None, node.kind, "")
                source_leaves[key] = {}
            hashes.setdefault(key, Counter())[node.output_sha256 or FAILED] += 1
            if node.output_sha256:
                per_path = values.setdefault(key, {})
                flat = flatten(node.output)
                for path in {*flat, *source_leaves[key]}:
                    per_path.setdefault(path, Counter())[_value_text(flat.get(path, _ABSENT))] += 1

    for key, step in steps.items():
        step.hashes = hashes.get(key, Counter()).most_common()
        source = source_leaves[key]
        per_path = values.get(key, {})
        ordered = list(source) + [p for p in per_path if p not in source]
        step.leaves = [
            LeafValues(
                path=path,
                counts=per_path.get(path, Counter()).most_common(),
                source=_value_text(source.get(path, _ABSENT)),
            )
            for path in ordered
            if path in per_path
        ]
    return list(steps.values())
