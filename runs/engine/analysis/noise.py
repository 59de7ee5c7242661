"""Noise: how much a run's outputs vary on their own, and whether a fork's difference is more.

A fork's diff says what changed; it cannot say *why*. At temperature > 0 an LLM step answers
differently every time, so a changed leaf may be the fork's change or the model's jitter. To
tell them apart Rewind measures the jitter: a run is **sampled** k times — k live, unchanged
forks (cache reads skipped, DESIGN.md "Live mode"), recorded on the run (``Run.sample_of``,
counted in ``Run.sample_count``) — and each changed leaf of a fork is judged against the
values the parent produced there, itself and its samples (the *references*), by the leaf's
type (:func:`judge`):

- ``within-noise``: the fork's value is one of the references; or it lies inside what their
  variation covers: a **number** inside the references' range widened by ``NUMBER_MARGIN`` of
  its width on each side; a **text** whose distance to the nearest reference is at most
  ``TEXT_MARGIN`` × the largest distance from a reference to its own nearest other reference
  (how far apart the samples themselves fall);
- ``beyond-noise``: otherwise — a number outside the widened range, a **category** (a one-word
  string, a boolean, null, a leaf the parent did or did not have) the references never took, a
  text farther from every reference than they are from one another, or any new value of a leaf
  that was the same in every reference (a deterministic tool's output);
- ``no-samples``: no finished sample re-executed that step (the parent was sampled from a
  later step, or its samples are still running).

The distance between two texts (:func:`text_distance`) is over their tokens (lowercased words
and numbers): the larger of 1 − the Jaccard index of their token sets and 1 − that of their
*figures* (the numbers they quote) — so a text that rewords the same facts stays near its
samples, and one that quotes new figures does not. The rule's false-alarm and miss rates are
measured on simulated cases with a known answer (:mod:`runs.bench.noise`,
reported by ``rewind_bench``).

A step is covered by a sample when the sample re-executed it (its fork point is at or before
the step); the steps before a sample's fork point are copies of the parent, not draws.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import F

from runs.engine.analysis.leaves import flatten
from runs.engine.errors import ForkError
from runs.engine.forking.forks import Fork, make_fork, resolve_fork
from runs.lib.hashing import canonical_json

if TYPE_CHECKING:
    from runs.models import Node, Run

__all__ = [
    "BEYOND",
    "MAX_SAMPLES",
    "NO_SAMPLES",
    "NUMBER_MARGIN",
    "TEXT_MARGIN",
    "WITHIN",
    "LeafValues",
    "StepStability",
    "Verdict",
    "is_text",
    "judge",
    "make_samples",
    "sample_request",
    "stability",
    "step_keys",
    "text_distance",
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


# A number is within noise inside the references' [min, max] widened by this share of the
# width on each side. With k = 5 samples (6 references) a fresh draw of a varying number falls
# outside the bare range about 2 times in 7 (the chance a 7th draw is the smallest or the
# largest); half the width each side brings that down to a few per cent on the measured cases,
# while a deterministic number (width 0) still flips to beyond-noise at any change.
NUMBER_MARGIN = 0.5
# A text is within noise when its nearest reference is at most this many times as far as the
# farthest "nearest other reference" among the references themselves. At 1 a fresh draw is
# the most isolated of k + 2 exchangeable texts about 1 time in k + 2 (14 % at k = 5, 12 %
# measured); 1.4 is the smallest step (of 1.25, 1.3, 1.4, 1.5) that brings the measured false
# alarms under 5 % at k = 5 (runs.bench.noise, rewind_bench), at the price of more misses (19 % at
# 1.25, 24 % at 1.4). A spread of 0.72 or more (1 / 1.4) leaves no room: texts that vary that
# much make every new text within-noise.
TEXT_MARGIN = 1.4

_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")

_Tokens = tuple[frozenset[str], frozenset[str]]


def is_text(value: Any) -> bool:
    """A string of two or more words is text (judged by distance); a one-word string — a
    label, an id, a group name — is a category (judged by the set of values seen)."""
    return isinstance(value, str) and len(value.split()) > 1


def _tokens(text: str) -> _Tokens:
    """A text's token set (lowercased words and numbers) and its figures (the numbers)."""
    tokens = _TOKEN_RE.findall(text.lower())
    return frozenset(tokens), frozenset(t for t in tokens if t[0].isdigit())


def _jaccard_distance(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return 1 - len(a & b) / union if union else 0.0


def _distance(a: _Tokens, b: _Tokens) -> float:
    return max(_jaccard_distance(a[0], b[0]), _jaccard_distance(a[1], b[1]))


def text_distance(a: str, b: str) -> float:
    """0 (the same words and figures) to 1 (nothing shared): the larger of 1 − Jaccard of the
    two texts' token sets and 1 − Jaccard of their figures. Word order is ignored: a text is
    judged by what it says (its terms and its numbers), which a resampled text keeps."""
    return _distance(_tokens(a), _tokens(b))


def _judge_number(value: float, references: list[Any]) -> str:
    numbers = [v for v in references if _number(v)]
    if not numbers:
        return BEYOND
    low, high = min(numbers), max(numbers)
    slack = NUMBER_MARGIN * (high - low)
    return WITHIN if low - slack <= value <= high + slack else BEYOND


def _judge_text(value: str, references: list[Any]) -> str:
    texts = [_tokens(v) for v in references if isinstance(v, str) and v != _ABSENT]
    if len(texts) < 2:  # one text or none: no spread to compare with
        return BEYOND
    own = _tokens(value)
    nearest = min(_distance(own, t) for t in texts)
    spread = max(
        min(_distance(t, u) for j, u in enumerate(texts) if j != i) for i, t in enumerate(texts)
    )
    return WITHIN if nearest <= TEXT_MARGIN * spread else BEYOND


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
    if _number(fork_value):
        return _judge_number(fork_value, observed)
    if is_text(fork_value):
        return _judge_text(fork_value, observed)
    return BEYOND  # a category the parent never produced


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
