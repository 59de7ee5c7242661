"""Noise: how much a run's outputs vary on their own, and whether a fork's difference is more.

A fork's diff says what changed; it cannot say *why*. At temperature > 0 an LLM step answers
differently every time, so a changed leaf may be the fork's change or the model's jitter. To
tell them apart Rewind measures the jitter: a run is **sampled** k times — k live, unchanged
forks (cache reads skipped, DESIGN.md "Live mode"; made by ``run_sets.samples``), recorded on
the run (``Run.sample_of``, counted in ``Run.sample_count``) — and each changed leaf of a fork
is judged against the values the parent produced there, itself and its samples (the
*references*: k + 1 of them), by the leaf's type (:func:`decide`, which also says why; :func:`judge`, the verdict alone):

- a value one of the references holds is ``within-noise``; any other value of a leaf every
  reference had the same (a deterministic tool's output) is ``beyond-noise``.
- a **number** is ``within-noise`` inside the references' range widened by ``NUMBER_MARGIN``
  of its width on each side, ``beyond-noise`` outside it.
- a **text** (two or more words, or a JSON object or array) is judged by what it states
  (:mod:`.texts`): JSON and code held in text structurally (:mod:`.structured`); otherwise
  ``beyond-noise``, however few words differ, when it quotes a figure (digits or a number
  word), gives a name, or ranks a name no reference does, negates where none does (or drops
  the negation every one has), reverses a claim by an opposite word, changes a unit, or swaps
  the roles of two names or figures (:mod:`.lexicon` holds the words it knows); ``within-noise``
  only on evidence — the same text as a reference once case, spacing and number words are set
  aside, or few enough new words (``TEXT_MARGIN``, ``TEXT_FLOOR``) with every figure, name,
  unit and polarity word carried by the references, every word they all carry kept, in the
  same roles — and ``uncertain`` otherwise, saying what it could not check.
- a **category** (a one-word string, a boolean, null, a leaf the parent did or did not have)
  the references never took is ``beyond-noise``.

``uncertain`` — the rule cannot show either (a text, above), or k is too small to tell: what
is new is of a kind the references show among themselves too often. For a **category**: when more than ``RARE_SHARE`` of the
references hold a value no other reference holds (the Good–Turing estimate of the chance that
one more draw gives a value never seen: 1 such reference in 9 is 11 %), a value never seen is
what the step does now and then, not necessarily the change. For a **text**: when more than
``RARE_SHARE`` of the references carry a figure (name, ranking) no other reference has, a new
one is ``uncertain`` — unless it takes the place of one every reference has ("48231 instead of
48213") or the text carries more new ones than any reference does, which stays
``beyond-noise``. With ``RARE_SHARE`` = 5 %, the false-alarm goal, a single such reference
makes a new value uncertain up to k = 18 and not from k = 19 on. A text judged against a single
reference text that states nothing new is ``uncertain`` too (no spread to compare its words
with). More samples settle it.

``no-samples``: no finished sample re-executed that step (the parent was sampled from a later
step, or its samples are still running).

Every verdict carries its reason (``Judgement.why``, ``Verdict.why``; shown on the compare
page and in ``rewind_diff --json``): the figures, names, rankings or negation that made it
beyond (and what they replaced), the range or the share of new words it was measured against,
or the values that make it uncertain, with the threshold it was held to. With a ``referee``
(a judge model, ``runs.engine.judging``), each text the rule leaves uncertain is put to it, and
its verdict is labelled as its own (``Verdict.by``). The rule's false-alarm, miss and
uncertain rates are measured by leaf type on two labelled sets kept with the tests — the one
it is tuned on (``noise_cases``, ``noise_cases_tuning``) and one committed before it changed
and never tuned on (``noise_cases_unseen``) — and on simulated cases of the demo pipeline
(:mod:`runs.bench.noise`, reported by ``rewind_bench``).

A step is covered by a sample when the sample re-executed it (its fork point is at or before
the step); the steps before a sample's fork point are copies of the parent, not draws.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import F

from runs.engine.analysis.facts import Pool, is_number
from runs.engine.analysis.judgements import (
    ABSENT,
    BEYOND,
    NO_SAMPLES,
    RARE_SHARE,
    RULE,
    UNCERTAIN,
    WITHIN,
    Judgement,
    Referee,
)
from runs.engine.analysis.leaves import flatten
from runs.engine.analysis.reading import listed
from runs.engine.analysis.structured import parse_json_text
from runs.engine.analysis.texts import TEXT_FLOOR, TEXT_MARGIN, judge_text
from runs.lib.hashing import canonical_json

if TYPE_CHECKING:
    from runs.models import Node, Run

__all__ = [
    "BEYOND",
    "MAX_SAMPLES",
    "NO_SAMPLES",
    "NUMBER_MARGIN",
    "RARE_SHARE",
    "RULE",
    "TEXT_FLOOR",
    "TEXT_MARGIN",
    "UNCERTAIN",
    "WITHIN",
    "Judgement",
    "LeafValues",
    "Referee",
    "StepStability",
    "Verdict",
    "decide",
    "is_text",
    "judge",
    "leaf_kind",
    "stability",
    "step_keys",
    "verdicts",
]

MAX_SAMPLES = 50

_ABSENT = ABSENT  # judgements.ABSENT: a leaf a run's step did not have


# --------------------------------------------------------------------------- the rule

# A number is within noise inside the references' [min, max] widened by this share of the
# width on each side. With k = 5 samples (6 references) a fresh draw of a varying number falls
# outside the bare range about 2 times in 7 (the chance a 7th draw is the smallest or the
# largest); half the width each side brings that down to a few per cent on the measured cases,
# while a deterministic number (width 0) still flips to beyond-noise at any change.
NUMBER_MARGIN = 0.5


def leaf_kind(value: Any) -> str:
    """How the rule judges a leaf's value: ``number``, ``text`` or ``category``."""
    if is_number(value):
        return "number"
    return "text" if is_text(value) else "category"


def is_text(value: Any) -> bool:
    """A string of two or more words is text (judged by what it states); a one-word string —
    a label, an id, a group name — is a category (judged by the set of values seen)."""
    return isinstance(value, str) and (len(value.split()) > 1 or parse_json_text(value) is not None)


def _show(value: Any, limit: int = 40) -> str:
    if value == _ABSENT:
        return "(absent)"
    if is_number(value):
        return _num(value)
    text = value if isinstance(value, str) else canonical_json(value)
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _num(value: float) -> str:
    return f"{value:.6g}"


def _judge_number(value: float, references: list[Any]) -> Judgement:
    numbers = [v for v in references if is_number(v)]
    if not numbers:
        return Judgement(BEYOND, "the references never gave a number here")
    low, high = min(numbers), max(numbers)
    slack = NUMBER_MARGIN * (high - low)
    span = f"the references' range {_num(low)} to {_num(high)}"
    if low <= value <= high:
        return Judgement(WITHIN, f"inside {span}")
    widened = f"widened by half its width ({_num(low - slack)} to {_num(high + slack)})"
    if low - slack <= value <= high + slack:
        return Judgement(WITHIN, f"outside {span} but inside it {widened}")
    return Judgement(BEYOND, f"outside {span} {widened}")


def _category_key(value: Any) -> str:
    """What a reference counts as when a category is judged: its own value, or its kind when
    it is a text or a number (``<absent>`` against texts asks "did the step write one?")."""
    if is_text(value) and value != _ABSENT:
        return "(a text)"
    return "(a number)" if is_number(value) else canonical_json(value)


def _judge_category(value: Any, references: list[Any]) -> Judgement:
    counts = Counter(_category_key(v) for v in references)
    readable = {_category_key(v): _show(v) for v in references}
    readable.update({"(a text)": "a text", "(a number)": "a number"})
    given = ", ".join(f"{readable[key]} ×{count}" for key, count in counts.most_common())
    singletons = [key for key, count in counts.items() if count == 1]
    share = len(singletons) / len(references)
    if share > RARE_SHARE:
        return Judgement(
            UNCERTAIN,
            f"{_show(value)} was never given, but {len(singletons)} of {len(references)} "
            f"references gave a value no other did ({listed(readable[k] for k in singletons)})"
            f", over the {RARE_SHARE:.0%} share under which a value never given is the change: "
            "new values turn up that often, too few samples to tell",
        )
    return Judgement(
        BEYOND,
        f"{_show(value)} was never given; the references gave {given} (values no other "
        f"reference gave: {share:.0%}, within the {RARE_SHARE:.0%} share)",
    )


def _pools(observed: list[Any], context: Sequence[Pool | Iterable[Any]] | None) -> list[Pool]:
    own = [[] if v == _ABSENT else [v] for v in observed]
    if context is None:
        return [Pool.of(values) for values in own]
    if len(context) != len(observed):
        raise ValueError("context: one pool of values per reference")
    return [
        c if isinstance(c, Pool) else Pool.of([*c, *values])
        for c, values in zip(context, own, strict=True)
    ]


def decide(
    fork_value: Any,
    observed: list[Any],
    context: Sequence[Pool | Iterable[Any]] | None = None,
) -> Judgement:
    """The verdict on ``fork_value`` given the values the parent produced (``_ABSENT`` for a
    leaf it did not have), and why. ``observed`` holds the parent's value first, then each
    sample's; ``context``, when given, holds per reference every leaf value of its step (or
    its :class:`Pool`): what a text may quote without quoting anything new."""
    if len(observed) < 2:
        return Judgement(NO_SAMPLES, "no finished sample re-ran this step")
    seen = Counter(canonical_json(v) for v in observed)
    mine = canonical_json(fork_value)
    if mine in seen:
        return Judgement(WITHIN, f"a value the references gave ({seen[mine]} of {len(observed)})")
    if len(seen) == 1:
        only = "the same text" if is_text(observed[0]) else _show(observed[0])
        return Judgement(
            BEYOND, f"every reference gave {only}: the step never varied here, so any other "
            "value is the change",
        )  # fmt: skip
    if is_number(fork_value):
        return _judge_number(fork_value, observed)
    if is_text(fork_value):
        return judge_text(fork_value, observed, _pools(observed, context), decide)
    return _judge_category(fork_value, observed)


def judge(
    fork_value: Any,
    observed: list[Any],
    context: Sequence[Pool | Iterable[Any]] | None = None,
) -> str:
    """:func:`decide`'s verdict alone."""
    return decide(fork_value, observed, context).verdict


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    """Whether one changed leaf of a fork is beyond the noise of the run it was forked from."""

    node: str
    sequence_id: int
    path: str
    verdict: str  # BEYOND | WITHIN | UNCERTAIN | NO_SAMPLES
    samples: int  # finished samples that re-executed the step
    distinct: int  # distinct values the parent produced there (itself and its samples)
    why: str  # what made the verdict (Judgement.why)
    by: str = RULE  # the rule, or "judge:<model>" when a Referee decided an uncertain text

    def as_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "sequence_id": self.sequence_id,
            "path": self.path,
            "verdict": self.verdict,
            "samples": self.samples,
            "distinct": self.distinct,
            "why": self.why,
            "by": self.by,
            # DESIGN.md's contract: the judge's model, present only when a judge decided it.
            **({"judge": self.by.removeprefix("judge:")} if self.by.startswith("judge:") else {}),
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


def verdicts(
    run_a: Run,
    nodes_a: list[Node],
    nodes_b: list[Node],
    changes: list[dict[str, Any]],
    referee: Referee | None = None,
) -> list[Verdict]:
    """A verdict for every changed leaf of ``changes`` (``diff_runs``' aligned steps of A
    against B), judged against ``run_a``'s finished samples. One query: the samples' steps.
    With a ``referee``, each text leaf the rule calls ``uncertain`` is put to it."""
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
    pool_cache: dict[int, Pool] = {}

    def leaves(node: Node | None) -> dict[str, Any]:
        if node is None:
            return {}
        if id(node) not in flat_cache:
            flat_cache[id(node)] = flatten(node.output)
        return flat_cache[id(node)]

    def pool(node: Node | None) -> Pool:
        """Every figure, word and ranked name of a reference's step: what a text leaf of the
        fork may quote without quoting anything new."""
        if node is None:
            return Pool.of([])
        if id(node) not in pool_cache:
            pool_cache[id(node)] = Pool.of(leaves(node).values())
        return pool_cache[id(node)]

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
        parent_node = node_a.get(a_seq) if a_seq is not None else None
        parent = leaves(parent_node)
        fork = leaves(node_b.get(b_seq)) if b_seq is not None else {}
        context = [pool(parent_node)] + [pool(steps.get(key)) for steps in covering]
        for item in change["fields"]:
            path = item["path"]
            observed = [parent.get(path, _ABSENT)]
            observed += [leaves(steps.get(key)).get(path, _ABSENT) for steps in covering]
            judged = (
                decide(fork.get(path, _ABSENT), observed, context)
                if covering
                else Judgement(NO_SAMPLES, "no finished sample re-ran this step")
            )
            candidate = fork.get(path, _ABSENT)
            if referee is not None and judged.verdict == UNCERTAIN and is_text(candidate):
                texts = [v for v in observed if is_text(v) and v != _ABSENT]
                judged = referee(candidate, texts, judged) or judged
            out.append(
                Verdict(
                    node=change["name"],
                    sequence_id=change["sequence_id"],
                    path=path,
                    verdict=judged.verdict,
                    samples=len(covering),
                    distinct=len({canonical_json(v) for v in observed}),
                    why=judged.why,
                    by=judged.by,
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
